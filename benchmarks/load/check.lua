-- wrk script: POST /v1/check for one authorization, single scope.
-- Environment: AGENTAUTH_API_KEY, AGENTAUTH_AUTHORIZATION_ID, optional AGENTAUTH_DELAY_MS (pacing).
local key = os.getenv("AGENTAUTH_API_KEY")
local auth = os.getenv("AGENTAUTH_AUTHORIZATION_ID")
local delay_ms = tonumber(os.getenv("AGENTAUTH_DELAY_MS") or "0")

wrk.method = "POST"
wrk.path = "/v1/check"
wrk.headers["Authorization"] = "Bearer " .. key
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"authorization_id":"' .. auth .. '","scopes":["email.send"],"resource":"mailbox:42"}'

local errors = 0

function delay()
  return delay_ms
end

function response(status, headers, body)
  if status ~= 200 then
    errors = errors + 1
    if errors <= 3 then
      io.stderr:write("unexpected status " .. status .. ": " .. body .. "\n")
    end
  end
end

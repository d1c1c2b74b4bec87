-- wrk script: POST /v1/check, single scope, for one authorization or several.
-- Environment: AGENTAUTH_API_KEY, AGENTAUTH_AUTHORIZATION_ID, optional AGENTAUTH_AUTHORIZATION_IDS
-- and AGENTAUTH_DELAY_MS (pacing).
local key = os.getenv("AGENTAUTH_API_KEY")
local auth = os.getenv("AGENTAUTH_AUTHORIZATION_ID")
local delay_ms = tonumber(os.getenv("AGENTAUTH_DELAY_MS") or "0")

wrk.method = "POST"
wrk.path = "/v1/check"
wrk.headers["Authorization"] = "Bearer " .. key
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"authorization_id":"' .. auth .. '","scopes":["email.send"],"resource":"mailbox:42"}'

-- AGENTAUTH_AUTHORIZATION_IDS (comma-separated) spreads the checks round-robin over several
-- authorizations, as many users' agents would; without it every check hits the one above.
local ids = {}
for id in string.gmatch(os.getenv("AGENTAUTH_AUTHORIZATION_IDS") or "", "[^,]+") do
  ids[#ids + 1] = id
end
local next_id = 0

if #ids > 0 then
  function request()
    next_id = next_id % #ids + 1
    local body = '{"authorization_id":"' .. ids[next_id] .. '","scopes":["email.send"],"resource":"mailbox:42"}'
    return wrk.format(nil, nil, nil, body)
  end
end

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

-- wrk script: POST /v1/check with the body in the file AGENTAUTH_BODY_FILE (e.g. twenty scopes and
-- a 16 KiB context), as the key AGENTAUTH_API_KEY. Counts the answers by status.
local key = os.getenv("AGENTAUTH_API_KEY")
local f = assert(io.open(os.getenv("AGENTAUTH_BODY_FILE"), "r"))
wrk.method = "POST"
wrk.path = "/v1/check"
wrk.headers["Authorization"] = "Bearer " .. key
wrk.headers["Content-Type"] = "application/json"
wrk.body = f:read("*a")
f:close()

local threads = {}
function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  statuses = {}
end

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end

function done(summary, latency, requests)
  local all = {}
  for _, t in ipairs(threads) do
    local s = t:get("statuses")
    for k, v in pairs(s) do
      all[k] = (all[k] or 0) + v
    end
  end
  local out = {}
  for k, v in pairs(all) do
    table.insert(out, k .. "=" .. v)
  end
  io.write("attacker statuses: " .. table.concat(out, " ") .. "\n")
end

-- wrk script: GET /healthz, optional pacing with AGENTAUTH_DELAY_MS.
local delay_ms = tonumber(os.getenv("AGENTAUTH_DELAY_MS") or "0")
function delay()
  return delay_ms
end

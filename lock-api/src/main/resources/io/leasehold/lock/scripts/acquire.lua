-- acquire: take the lock for an owner, with a fresh fencing token, in one step.
-- KEYS[1]  lock key            <prefix>{<name>}
-- KEYS[2]  fencing counter     <prefix>{<name>}:fence
-- ARGV[1]  owner               32 hex chars, random per acquisition
-- ARGV[2]  lease, ms           integer > 0
-- ARGV[3]  counter idle TTL, ms (any value is safe: a lost counter is re-seeded from TIME)
-- Returns  {1, token, pttl}    acquired; also when this owner already holds it (a retried
--                              acquire is idempotent: same token, lease reset)
--          {0, token, pttl}    held by another owner: its token and remaining ms
-- The lock value is "<owner>:<token>". The token is kept as a string end to end because Lua
-- numbers are doubles and TIME-seeded tokens (~1.8e15) print in exponent form.
local current = redis.call('GET', KEYS[1])
if current then
  local sep = string.find(current, ':', 1, true)
  local token = string.sub(current, sep + 1)
  if string.sub(current, 1, sep - 1) == ARGV[1] then
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
    return {1, token, tonumber(ARGV[2])}
  end
  return {0, token, redis.call('PTTL', KEYS[1])}
end
if redis.call('EXISTS', KEYS[2]) == 0 then
  -- Seed from the server clock in microseconds: a counter seeded this way stays below the
  -- clock (fewer than one acquisition per microsecond), so a re-seeded counter is above
  -- every token handed out before the counter was lost.
  local now = redis.call('TIME')
  redis.call('SET', KEYS[2], now[1] .. string.format('%06d', tonumber(now[2])))
end
redis.call('INCR', KEYS[2])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
local token = redis.call('GET', KEYS[2])
redis.call('SET', KEYS[1], ARGV[1] .. ':' .. token, 'PX', ARGV[2])
return {1, token, tonumber(ARGV[2])}

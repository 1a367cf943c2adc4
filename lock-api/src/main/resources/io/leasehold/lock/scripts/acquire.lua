-- acquire: take the lock for an owner, with a fresh fencing token, in one step.
-- KEYS[1]  lock key            <prefix>{<name>}
-- KEYS[2]  fencing counter     <prefix>{<name>}:fence (the last token handed out for the name)
-- ARGV[1]  owner               32 hex chars, random per acquisition
-- ARGV[2]  lease, ms           integer > 0
-- ARGV[3]  counter idle TTL, ms  integer > 0 (any value is safe: a lost counter only means the
--                              next token comes from TIME alone)
-- Returns  {1, token, pttl}    acquired; also when this owner already holds it (a retried
--                              acquire is idempotent: same token, lease reset, no new token)
--          {0, token, pttl}    held by another owner: its token and remaining ms
-- The lock value is "<owner>:<token>".
-- Fencing token: a hybrid logical clock. On every acquisition
--   token = max(counter + 1, server TIME in microseconds)   (just TIME when the counter is gone)
-- and the counter is set to the token with the idle TTL. Tokens strictly increase across key
-- expiry, a lost counter (flush, restart without persistence) and a failover to a replica that
-- missed the latest acquisitions, as long as the failover (or restart) takes longer than the clock
-- skew between the servers: the new server's TIME is then past every token the old one handed out
-- (each acquisition takes well over a microsecond, so the counter never runs ahead of the clock by
-- more than a few tokens). Within one server, "+ 1" keeps them strictly increasing even when the
-- clock stands still or steps back.
-- Tokens are strings in Redis and in every reply. Lua numbers are doubles, exact for integers
-- below 2^53 (~9.0e15); TIME in microseconds is ~1.8e15, so the arithmetic is exact until the
-- year ~2255. They are formatted with string.format('%.0f', x), never tostring(x), which prints
-- large numbers with an exponent (1.8e+15).
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
local now = redis.call('TIME')
local token = tonumber(now[1]) * 1000000 + tonumber(now[2])
local counter = redis.call('GET', KEYS[2])
if counter then
  token = math.max(tonumber(counter) + 1, token)
end
token = string.format('%.0f', token)
redis.call('SET', KEYS[2], token, 'PX', ARGV[3])
redis.call('SET', KEYS[1], ARGV[1] .. ':' .. token, 'PX', ARGV[2])
return {1, token, tonumber(ARGV[2])}

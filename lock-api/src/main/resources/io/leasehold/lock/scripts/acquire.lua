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
--          error               "ERR key '<key>' holds a value that is not a Leasehold lock (...)"
--                              when KEYS[1] holds another type or a string without ':', or
--                              "... not a Leasehold fencing counter (...)" when KEYS[2] holds
--                              another type or a string that is not a decimal integer below
--                              2^53 - 1 (e.g. another application's keys under the prefix);
--                              nothing is written then
-- The lock value is "<owner>:<token>", and "<owner>:<token>:<seq>" once renew or extend has set
-- its TTL (see renew.lua). A retried acquire by the same owner resets the TTL only while no renewal
-- or extend has run (seq 0): a late retry must never undo a later extend.
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
-- A key Leasehold did not write (another application's, under the prefix) is answered with an
-- error naming the key and what it holds, never an opaque WRONGTYPE or Lua error further on: the
-- GETs use pcall, and every value is checked before it is used.
-- A release that hands the lock to the next waiter of its client in the same call is handoff.lua.
-- The blocks between '-- [shared:<name>] begin' and '-- [shared:<name>] end' are the same, line
-- for line, in handoff.lua (scripts cannot include each other; SharedScriptBlocksTest checks it).
-- [shared:foreign] begin
local function foreign(key, what, expected)
  local kind = redis.call('TYPE', key)['ok']
  return redis.error_reply("ERR key '" .. key .. "' holds a value that is not a Leasehold " .. what
      .. ' (a ' .. kind .. ', not ' .. expected .. ')')
end
-- [shared:foreign] end
-- [shared:read] begin
local current = redis.pcall('GET', KEYS[1])
if type(current) == 'table' and current.err then
  return foreign(KEYS[1], 'lock', "a string '<owner>:<token>'")
end
if current then
  local sep = string.find(current, ':', 1, true)
  if not sep then
    return foreign(KEYS[1], 'lock', "'<owner>:<token>'")
  end
  local rest = string.sub(current, sep + 1)
  local seqSep = string.find(rest, ':', 1, true)
  local token = seqSep and string.sub(rest, 1, seqSep - 1) or rest
  local owner = string.sub(current, 1, sep - 1)
  -- [shared:read] end
  if owner == ARGV[1] then
    if seqSep then
      return {1, token, redis.call('PTTL', KEYS[1])}
    end
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
    return {1, token, tonumber(ARGV[2])}
  end
  return {0, token, redis.call('PTTL', KEYS[1])}
end
-- [shared:grant] begin
local now = redis.call('TIME')
local token = tonumber(now[1]) * 1000000 + tonumber(now[2])
local counter = redis.pcall('GET', KEYS[2])
if type(counter) == 'table' and counter.err then
  return foreign(KEYS[2], 'fencing counter', 'a string holding a decimal integer')
end
if counter then
  -- + 1 must stay exact in a double: the counter must be below 2^53 - 1
  if not string.match(counter, '^%d+$') or tonumber(counter) >= 9007199254740991 then
    return foreign(KEYS[2], 'fencing counter', 'a decimal integer below 2^53 - 1')
  end
  token = math.max(tonumber(counter) + 1, token)
end
token = string.format('%.0f', token)
redis.call('SET', KEYS[2], token, 'PX', ARGV[3])
redis.call('SET', KEYS[1], ARGV[1] .. ':' .. token, 'PX', ARGV[2])
-- [shared:grant] end
return {1, token, tonumber(ARGV[2])}

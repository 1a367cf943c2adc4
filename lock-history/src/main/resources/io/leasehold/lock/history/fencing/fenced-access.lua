-- fenced-access: one read or write of a counter that protects itself with fencing tokens (the
-- protected resource of a safety test; it lives on a Redis server of its own, which no fault touches).
-- KEYS[1]  the resource's hash: value (the counter, default 0), highest (the highest token seen),
--          seq (how many accesses it has numbered)
-- KEYS[2]  the resource's append-only log of accepted writes: a list of "seq token previous value time"
-- ARGV[1]  "read" or "write"
-- ARGV[2]  the fencing token: a decimal integer >= 0 without leading zeros
-- ARGV[3]  write only: the new value, a decimal integer
-- Returns  {accepted, seq, highest, value}
--   accepted 1 when the token is >= the highest token seen: the token becomes the highest (reads count
--            too: a stale holder's late write must fail once the next holder has read), the access is done
--            0 when a higher token was seen: nothing changes but seq
--   seq      this access's number (every access gets the next, accepted or not): the resource's own
--            order of accesses, which lets a checker order them exactly
--   highest  the highest token seen after this access (string)
--   value    read accepted: the value (string); write accepted: the value it replaced (string);
--            rejected: false (a stale holder learns nothing)
-- Tokens are compared as decimal strings (length, then digits), not as Lua numbers: doubles are exact
-- only up to 2^53, and a token is any 64-bit value.
local op, token = ARGV[1], ARGV[2]
if op ~= 'read' and op ~= 'write' then
  return redis.error_reply('ERR fenced-access: op must be read or write, but was ' .. tostring(op))
end
if not (token == '0' or string.match(token, '^[1-9][0-9]*$')) then
  return redis.error_reply('ERR fenced-access: token must be a decimal integer >= 0 without leading zeros, but was ' .. token)
end
local new_value = ARGV[3]
if op == 'write' and not (new_value and string.match(new_value, '^-?[0-9]+$')) then
  return redis.error_reply('ERR fenced-access: value must be a decimal integer, but was ' .. tostring(new_value))
end

local seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
local highest = redis.call('HGET', KEYS[1], 'highest')
local function lower(a, b)
  if #a ~= #b then return #a < #b end
  return a < b
end
if highest and lower(token, highest) then
  return {0, seq, highest, false}
end
local value = redis.call('HGET', KEYS[1], 'value') or '0'
redis.call('HSET', KEYS[1], 'highest', token)
if op == 'read' then
  return {1, seq, token, value}
end
local now = redis.call('TIME')
local micros = now[1] .. string.format('%06d', tonumber(now[2]))
redis.call('HSET', KEYS[1], 'value', new_value)
redis.call('RPUSH', KEYS[2], seq .. ' ' .. token .. ' ' .. value .. ' ' .. new_value .. ' ' .. micros)
return {1, seq, token, value}

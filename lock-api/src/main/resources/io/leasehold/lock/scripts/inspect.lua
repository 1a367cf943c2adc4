-- inspect: who holds the lock, without changing anything.
-- KEYS[1]  lock key
-- Returns  {token, pttl}       the holder's fencing token (string) and remaining ms
--          {}                  not held
--          error               "ERR key '<key>' holds a value that is not a Leasehold lock (...)"
--                              when the key holds another type or a string without ':' (e.g.
--                              another application's key under the prefix)
local function foreign(key, expected)
  local kind = redis.call('TYPE', key)['ok']
  return redis.error_reply("ERR key '" .. key .. "' holds a value that is not a Leasehold lock"
      .. ' (a ' .. kind .. ', not ' .. expected .. ')')
end
local current = redis.pcall('GET', KEYS[1])
if type(current) == 'table' and current.err then
  return foreign(KEYS[1], "a string '<owner>:<token>'")
end
if not current then
  return {}
end
local sep = string.find(current, ':', 1, true)
if not sep then
  return foreign(KEYS[1], "'<owner>:<token>'")
end
-- the value is "<owner>:<token>" or "<owner>:<token>:<seq>" (see renew.lua)
local rest = string.sub(current, sep + 1)
local seqSep = string.find(rest, ':', 1, true)
return {seqSep and string.sub(rest, 1, seqSep - 1) or rest, redis.call('PTTL', KEYS[1])}

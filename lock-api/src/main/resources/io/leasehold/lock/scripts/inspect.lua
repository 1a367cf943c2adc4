-- inspect: who holds the lock, without changing anything.
-- KEYS[1]  lock key
-- Returns  {token, pttl}       the holder's fencing token (string) and remaining ms
--          {}                  not held
local current = redis.call('GET', KEYS[1])
if not current then
  return {}
end
local sep = string.find(current, ':', 1, true)
return {string.sub(current, sep + 1), redis.call('PTTL', KEYS[1])}

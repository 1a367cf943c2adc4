-- renew: reset the lease of many locks in one call (the watchdog's batch).
-- KEYS[i]  lock key of lease i (in a cluster all keys of one call share a slot)
-- ARGV[2i-1] owner of lease i
-- ARGV[2i]   new lease of lease i, ms
-- Returns  array, one entry per key:
--           1  renewed
--           0  absent (expired or deleted)
--          -1  held by another owner
local result = {}
for i = 1, #KEYS do
  local current = redis.call('GET', KEYS[i])
  if not current then
    result[i] = 0
  else
    local sep = string.find(current, ':', 1, true)
    if string.sub(current, 1, sep - 1) == ARGV[2 * i - 1] then
      redis.call('PEXPIRE', KEYS[i], ARGV[2 * i])
      result[i] = 1
    else
      result[i] = -1
    end
  end
end
return result

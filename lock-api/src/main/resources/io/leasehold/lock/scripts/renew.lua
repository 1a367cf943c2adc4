-- renew: reset the lease of many locks in one call (the watchdog's batch).
-- KEYS[i]  lock key of lease i (in a cluster all keys of one call share a slot)
-- ARGV[2i-1] owner of lease i
-- ARGV[2i]   new lease of lease i, ms
-- Returns  array, one entry per key:
--           1  renewed
--           0  absent (expired or deleted)
--          -1  held by another owner
--          -2  the key holds something that is not a Leasehold lock (another type, or a string
--              without ':'), e.g. another application's key under the prefix; left untouched
-- One such key must not fail the whole batch (every healthy lease of it would be declared
-- lost), so GET runs under pcall and each key gets its own code.
local result = {}
for i = 1, #KEYS do
  local current = redis.pcall('GET', KEYS[i])
  if type(current) == 'table' and current.err then
    result[i] = -2
  elseif not current then
    result[i] = 0
  else
    local sep = string.find(current, ':', 1, true)
    if not sep then
      result[i] = -2
    elseif string.sub(current, 1, sep - 1) == ARGV[2 * i - 1] then
      redis.call('PEXPIRE', KEYS[i], ARGV[2 * i])
      result[i] = 1
    else
      result[i] = -1
    end
  end
end
return result

-- extend: set the remaining lease of a lock this owner holds.
-- KEYS[1]  lock key
-- ARGV[1]  owner
-- ARGV[2]  new lease, ms (from now)
-- Returns   1  extended
--           0  absent (expired or deleted)
--          -1  held by another owner
--          -2  the key holds something that is not a Leasehold lock (another type, or a string
--              without ':'); left untouched
local current = redis.pcall('GET', KEYS[1])
if type(current) == 'table' and current.err then
  return -2
end
if not current then
  return 0
end
local sep = string.find(current, ':', 1, true)
if not sep then
  return -2
end
if string.sub(current, 1, sep - 1) ~= ARGV[1] then
  return -1
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1

-- extend: set the remaining lease of a lock this owner holds.
-- KEYS[1]  lock key
-- KEYS[2]  optional: the lock's release channel, for a release that leaves the lock taken until its
--          min-hold time is up: once the TTL is set, 'released' is published there, so that waiters
--          ask again and learn the new TTL (without it, they would wait for the TTL they were told)
-- ARGV[1]  owner
-- ARGV[2]  new lease, ms (from now; integer > 0)
-- ARGV[3]  sequence number of this TTL command of the lease (integer >= 1; see renew.lua)
-- ARGV[4]  with KEYS[2]: publish command, 'SPUBLISH' (sharded pub/sub) or 'PUBLISH'
-- Returns   1  extended: the TTL is the new lease, from now
--           2  superseded: a renewal or extend of this lease with a higher sequence number already
--              ran; its TTL stands
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
local rest = string.sub(current, sep + 1)
local seqSep = string.find(rest, ':', 1, true)
local token = seqSep and string.sub(rest, 1, seqSep - 1) or rest
local applied = seqSep and tonumber(string.sub(rest, seqSep + 1)) or 0
if tonumber(ARGV[3]) <= applied then
  return 2
end
redis.call('SET', KEYS[1], ARGV[1] .. ':' .. token .. ':' .. ARGV[3], 'PX', ARGV[2])
if KEYS[2] then
  redis.call(ARGV[4], KEYS[2], 'released')
end
return 1

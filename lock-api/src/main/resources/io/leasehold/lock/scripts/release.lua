-- release: delete the lock if this owner holds it, and tell waiters.
-- KEYS[1]  lock key            <prefix>{<name>}
-- KEYS[2]  release channel     <prefix>{<name>}:released (same slot as the lock)
-- ARGV[1]  owner
-- ARGV[2]  publish command     'SPUBLISH' (sharded pub/sub) or 'PUBLISH'
-- ARGV[3]  (optional) the owner an earlier handoff of this release granted the lock to (see
--          handoff.lua): the resend of a handoff whose reply was lost; if that owner holds the
--          lock, the handoff ran, and the answer is 1 with nothing touched
-- Returns  1                   released (and published)
--          0                   absent (expired or deleted: perhaps by an earlier attempt of this
--                              very release, whose reply was lost)
--         -1                   held by someone else: another owner's lock, or a key that holds
--                              something that is not a Leasehold lock (another type or a string
--                              without ':'), which is left untouched
local current = redis.pcall('GET', KEYS[1])
if type(current) == 'table' and current.err then
  return -1
end
if not current then
  return 0
end
local sep = string.find(current, ':', 1, true)
if not sep then
  return -1
end
local owner = string.sub(current, 1, sep - 1)
if owner ~= ARGV[1] then
  return owner == ARGV[3] and 1 or -1
end
redis.call('DEL', KEYS[1])
redis.call(ARGV[2], KEYS[2], 'released')
return 1

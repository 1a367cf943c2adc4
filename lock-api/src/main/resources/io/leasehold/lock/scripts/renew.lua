-- renew: reset the lease of many locks in one call (the watchdog's batch).
-- KEYS[i]    lock key of lease i (in a cluster all keys of one call share a slot)
-- ARGV[3i-2] owner of lease i
-- ARGV[3i-1] new lease of lease i, ms (integer > 0)
-- ARGV[3i]   sequence number of this TTL command of lease i (integer >= 1, see below)
-- Returns  array, one entry per key:
--           1  renewed: the TTL is the new lease, from now
--           2  superseded: this owner holds the lock, but a renewal or extend of this lease with a
--              higher sequence number already ran, so its TTL stands and this one is dropped
--           0  absent (expired or deleted)
--          -1  held by another owner
--          -2  the key holds something that is not a Leasehold lock (another type, or a string
--              without ':'), e.g. another application's key under the prefix; left untouched
-- Sequence numbers: every TTL-setting command of one lease (renew, extend) carries the next number,
-- and the lock value records the highest one applied ("<owner>:<token>:<seq>"). Redis applies a
-- command only if its number is higher, so the TTL in force is always that of the latest command the
-- lease sent, whatever order the commands reach Redis in (several connections, a retry after a
-- timeout, a command delayed by a pause): the engine can then never count on a TTL that a command
-- it sent later has replaced.
-- One foreign key must not fail the whole batch (every healthy lease of it would be declared
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
    elseif string.sub(current, 1, sep - 1) ~= ARGV[3 * i - 2] then
      result[i] = -1
    else
      local rest = string.sub(current, sep + 1)
      local seqSep = string.find(rest, ':', 1, true)
      local token = seqSep and string.sub(rest, 1, seqSep - 1) or rest
      local applied = seqSep and tonumber(string.sub(rest, seqSep + 1)) or 0
      local seq = tonumber(ARGV[3 * i])
      if seq <= applied then
        result[i] = 2
      else
        redis.call('SET', KEYS[i], ARGV[3 * i - 2] .. ':' .. token .. ':' .. ARGV[3 * i], 'PX', ARGV[3 * i - 1])
        result[i] = 1
      end
    end
  end
end
return result

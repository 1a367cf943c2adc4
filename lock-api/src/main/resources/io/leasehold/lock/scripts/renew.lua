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
-- lost), so each key gets its own code, and nothing here can raise an error for a key's content.
-- Cost: the renew of a lease is one SET; its read is a share of one MGET per 1000 keys, which never
-- fails (a key of another type reads as nil; EXISTS then tells it from an absent one). Values are
-- compared with string.find, which makes no new string. A key given twice is checked the second time
-- against what the first wrote (the engine sends each lease once, but the order rule must hold).
local call, find, sub = redis.call, string.find, string.sub
local keys, argv = KEYS, ARGV
local n = #keys
local values
if n <= 1000 then
  values = n > 0 and call('MGET', unpack(keys)) or {}
else
  -- (in chunks: unpack of very many keys would overflow Lua's stack)
  values = {}
  for from = 1, n, 1000 do
    local chunk = call('MGET', unpack(keys, from, math.min(from + 999, n)))
    for j = 1, #chunk do
      values[from + j - 1] = chunk[j]
    end
  end
end
local written = {}
local result = {}
for i = 1, n do
  local key = keys[i]
  local current = written[key] or values[i]
  if not current then
    result[i] = call('EXISTS', key) == 1 and -2 or 0
  else
    local owner = argv[3 * i - 2]
    local sep = find(current, ':', 1, true)
    if not sep then
      result[i] = -2
    elseif sep ~= #owner + 1 or find(current, owner, 1, true) ~= 1 then
      -- the part before the first ':' is not this owner
      result[i] = -1
    else
      local seqSep = find(current, ':', sep + 1, true)
      local applied = seqSep and tonumber(sub(current, seqSep + 1)) or 0
      local seq = argv[3 * i]
      if tonumber(seq) <= applied then
        result[i] = 2
      else
        -- "<owner>:<token>" as found, with this command's number
        local value = (seqSep and sub(current, 1, seqSep - 1) or current) .. ':' .. seq
        call('SET', key, value, 'PX', argv[3 * i - 1])
        written[key] = value
        result[i] = 1
      end
    end
  end
end
return result

-- quorum-restore: on one node of a quorum of independent masters (see docs/design/quorum-locks.md),
-- put back the leases that a renewal found missing here while a majority of the nodes confirmed
-- them, so that a lease held on exactly a majority does not end with the next node that dies.
-- A lease goes missing on a node when its grant there came too late, was another attempt's, or the
-- node did not hear the renewals for longer than the lease (a partition): its copy ran out.
-- KEYS[1]     quorum record   <prefix>quorum  hash, no TTL (see quorum-enlist.lua): the node takes
--                             part only while its field 'run' is this server process's run_id and
--                             'seeded' is '1'; its field 'floor' is the largest token committed here
-- KEYS[1+i]   lock key of lease i, for the call's n leases (<prefix>{<name>}, all of one prefix)
-- then per lease i, two arguments, from ARGV[1] on:
--   value     "<owner>:<token>:<seq>": the lease's value as the renewal that found it missing wrote
--             it on the other nodes (renew.lua's value)
--   lease     ms (integer > 0): the renewal's lease, from now
-- Returns  {-2}      this node takes no part (no record, a record of another server process, or one
--                    sitting out after a reset): nothing is written
--          {codes}   one entry per lease:
--                     1  put back: the lock holds the value with a TTL of the lease, and the floor
--                        is at least its token
--                     0  left alone: the key exists (this owner's, another's, anything at all): a
--                        lock is put back only where the name is free
--                    (a token below the floor is put back too: the floor is the whole prefix's, so
--                    any other lock committed here since raised it; the caller sends a put-back only
--                    while a majority holds the lease, when no later lease of its lock can be committed)
--          error     "ERR ..." when a value is not "<owner>:<token>:<seq>" with a decimal token
--                    below 2^53 - 1, a lease no positive integer, or the record is not a hash (or
--                    its floor no such integer); nothing is written then
-- Safe because the lease is still confirmed by a majority: no other owner can hold a majority's
-- grants meanwhile, and a grant here by another owner is never overwritten (the key must be free).
-- The fencing counter is not touched: a quorum's tokens rise by the floors (quorum-commit.lua).
local MAX = 9007199254740991
local function decimal(text)
  return text and string.match(text, '^%d+$') and tonumber(text) < MAX
end
local n = #KEYS - 1
local tokens, texts = {}, {}
for i = 1, n do
  local value, lease = ARGV[2 * i - 1], ARGV[2 * i]
  local token = value and string.match(value, '^[^:]+:(%d+):%d+$')
  if not decimal(token) then
    return redis.error_reply("ERR value of lease " .. i .. " must be '<owner>:<token>:<seq>' with a"
        .. " decimal token below 2^53 - 1, but was '" .. tostring(value) .. "'")
  end
  if not (lease and string.match(lease, '^%d+$') and tonumber(lease) > 0) then
    return redis.error_reply("ERR lease of lease " .. i .. " must be a positive integer of ms, but was '"
        .. tostring(lease) .. "'")
  end
  tokens[i], texts[i] = tonumber(token), token
end
local record = redis.pcall('HMGET', KEYS[1], 'run', 'seeded', 'floor')
if type(record) == 'table' and record.err then
  return redis.error_reply("ERR key '" .. KEYS[1] .. "' holds a value that is not a Leasehold quorum"
      .. " record (a " .. redis.call('TYPE', KEYS[1])['ok'] .. ', not a hash)')
end
local floor = record[3]
if floor and not decimal(floor) then
  return redis.error_reply("ERR key '" .. KEYS[1] .. "' holds a value that is not a Leasehold quorum"
      .. " record (its 'floor' is '" .. floor .. "', not a decimal integer below 2^53 - 1)")
end
if record[1] ~= string.match(redis.call('INFO', 'server'), 'run_id:(%x+)') or record[2] ~= '1' then
  return {-2}
end
local highest = floor and tonumber(floor) or 0
local codes = {}
for i = 1, n do
  if redis.call('SET', KEYS[1 + i], ARGV[2 * i - 1], 'PX', ARGV[2 * i], 'NX') then
    codes[i] = 1
    if tokens[i] > highest then
      highest = tokens[i]
      redis.call('HSET', KEYS[1], 'floor', texts[i])
    end
  else
    codes[i] = 0
  end
end
return {codes}

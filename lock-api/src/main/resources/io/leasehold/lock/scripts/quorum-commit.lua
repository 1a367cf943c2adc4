-- quorum-commit: phase 2 of an acquisition over a quorum of independent masters (see
-- docs/design/quorum-locks.md): on one node that granted the lock in phase 1 (acquire.lua), make the
-- quorum's token the lock's, above every token this node ever committed, so that every later lease
-- of a majority (which shares a node with this one's) gets a larger token, whatever the nodes' clocks
-- say and whether or not the name's counter expired meanwhile.
-- KEYS[1]  lock key            <prefix>{<name>}
-- KEYS[2]  fencing counter     <prefix>{<name>}:fence (acquire.lua's KEYS[2])
-- KEYS[3]  quorum record       <prefix>quorum  hash, no TTL (see quorum-enlist.lua): the node takes part
--                              only while its field 'run' is this server process's run_id and 'seeded'
--                              is '1'; its field 'floor' is the largest token committed on this node,
--                              for any name; nothing lowers it (a quorum node is a standalone master:
--                              the keys need not share a slot)
-- ARGV[1]  expected value      "<owner>:<token>": what the caller last knew this node to hold for the
--                              attempt (phase 1's value, or an earlier commit's)
-- ARGV[2]  quorum token T      a decimal integer other than the expected value's token, below 2^53 - 1
--                              (the caller takes one more than the largest token the majority
--                              granted, so that no node's phase-1 value is ever "<owner>:<T>": a
--                              value that is, was written by a commit, and only then; each attempt has
--                              an owner of its own, granted once per node). It is below the expected
--                              value's token on a node whose grant came after the majority's decided
--                              T (a slow node: its clock had moved on); the node's counter is not
--                              lowered then, and the lease lives on that node too
-- ARGV[3]  counter idle TTL, ms  integer > 0 (as in acquire.lua)
-- ARGV[4]  largest lease, ms   the client's, integer > 0: it must be the record's 'lease' (the value the
--                              node sits out after a reset, see quorum-enlist.lua)
-- ARGV[5]  lease, ms     optional, integer > 0: the committed lock's TTL, set from now; given for a
--                        fair waiter, whose phase-1 grant lives only for a grant window (see
--                        quorum-fair-acquire.lua). Absent: the grant's TTL is kept
-- Returns  {1, pttl}     committed: the lock holds "<owner>:<T>" with its TTL kept, or set to
--                        ARGV[5] (pttl ms left),
--                        and the counter and the floor are at least T; also when it held
--                        "<owner>:<T>" already (a resent commit whose reply was lost: only a commit
--                        writes that value, since T is no token the node granted this owner)
--          {0}           the attempt's grant is gone (expired, released, taken by another owner, or
--                        another token of the same owner): nothing is written
--          {-2}          this node takes no part (no record, a record of another server process, or
--                        one still sitting out after a reset): nothing is written; the caller has it
--                        enlisted (quorum-enlist.lua) and does not count it
--          {-3, lease}   the client's largest lease is not the record's (a string): nothing is written;
--                        the clients of one quorum must agree on it
--          {-1, floor}   T is not above this node's floor (the largest token committed here, a
--                        string): nothing is written; the caller commits again, on every node of the
--                        attempt, with a T above the largest floor it was told
--          error         "ERR ..." when ARGV[2] is no such integer, ARGV[1] no such value (its
--                        token T itself) or ARGV[3], ARGV[4] or a given ARGV[5] no positive integer, or a key holds what Leasehold did not write (a lock string
--                        without ':', a counter or floor that is not a decimal integer below
--                        2^53 - 1, a record that is not a hash); nothing is written then
-- The phase-1 value carries no sequence number: the lease is not handed out before the commit, so no
-- renewal or extend of it can have run.
local function foreign(key, what, expected)
  local kind = redis.call('TYPE', key)['ok']
  return redis.error_reply("ERR key '" .. key .. "' holds a value that is not a Leasehold " .. what
      .. ' (a ' .. kind .. ', not ' .. expected .. ')')
end
local MAX = 9007199254740991
local function decimal(text)
  return text and string.match(text, '^%d+$') and tonumber(text) < MAX
end
if not decimal(ARGV[2]) then
  return redis.error_reply("ERR quorum token must be a decimal integer below 2^53 - 1, but was '"
      .. tostring(ARGV[2]) .. "'")
end
local quorumToken = tonumber(ARGV[2])
local sep = string.find(ARGV[1], ':', 1, true)
local grantedToken = sep and string.sub(ARGV[1], sep + 1)
if not decimal(grantedToken) or tonumber(grantedToken) == quorumToken then
  return redis.error_reply("ERR expected value must be '<owner>:<token>' with a token other than the"
      .. " quorum token " .. ARGV[2] .. ", but was '" .. ARGV[1] .. "'")
end
if not (ARGV[3] and string.match(ARGV[3], '^%d+$') and tonumber(ARGV[3]) > 0) then
  return redis.error_reply("ERR counter idle TTL must be a positive integer of ms, but was '"
      .. tostring(ARGV[3]) .. "'")
end
if not (decimal(ARGV[4]) and tonumber(ARGV[4]) > 0) then
  return redis.error_reply("ERR largest lease must be a positive integer of ms, but was '"
      .. tostring(ARGV[4]) .. "'")
end
if ARGV[5] and not (decimal(ARGV[5]) and tonumber(ARGV[5]) > 0) then
  return redis.error_reply("ERR lease must be a positive integer of ms, but was '" .. ARGV[5] .. "'")
end
local committed = string.sub(ARGV[1], 1, sep - 1) .. ':' .. ARGV[2]

local current = redis.pcall('GET', KEYS[1])
if type(current) == 'table' and current.err then
  return foreign(KEYS[1], 'lock', "a string '<owner>:<token>'")
end
if current and not string.find(current, ':', 1, true) then
  return foreign(KEYS[1], 'lock', "'<owner>:<token>'")
end
local counter = redis.pcall('GET', KEYS[2])
if type(counter) == 'table' and counter.err then
  return foreign(KEYS[2], 'fencing counter', 'a string holding a decimal integer')
end
if counter and not decimal(counter) then
  return foreign(KEYS[2], 'fencing counter', 'a decimal integer below 2^53 - 1')
end
local record = redis.pcall('HMGET', KEYS[3], 'run', 'seeded', 'floor', 'lease')
if type(record) == 'table' and record.err then
  return foreign(KEYS[3], 'quorum record', 'a hash')
end
local floor = record[3]
if floor and not decimal(floor) then
  return foreign(KEYS[3], 'quorum record', "a hash whose 'floor' is a decimal integer below 2^53 - 1")
end

if record[1] ~= string.match(redis.call('INFO', 'server'), 'run_id:(%x+)') or record[2] ~= '1' then
  return {-2}
end
if record[4] ~= ARGV[4] then
  return {-3, record[4] or '0'}
end
if not current or (current ~= ARGV[1] and current ~= committed) then
  return {0}
end
if current ~= committed and floor and tonumber(floor) >= quorumToken then
  return {-1, floor}
end
if ARGV[5] then
  redis.call('SET', KEYS[1], committed, 'PX', ARGV[5])
else
  redis.call('SET', KEYS[1], committed, 'KEEPTTL')
end
if not counter or tonumber(counter) < quorumToken then
  redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
else
  redis.call('PEXPIRE', KEYS[2], ARGV[3])
end
if not floor or tonumber(floor) < quorumToken then
  redis.call('HSET', KEYS[3], 'floor', ARGV[2])
end
return {1, redis.call('PTTL', KEYS[1])}

-- handoff: a holder's release that hands the lock to the next waiter of its client in the same
-- step (the waiter's acquire, with a fresh owner and a fresh fencing token), or, when asked to and
-- another client waits too, lets it go to everybody instead (a yield).
-- KEYS[1]  lock key            <prefix>{<name>}
-- KEYS[2]  fencing counter     <prefix>{<name>}:fence (the last token handed out for the name)
-- KEYS[3]  release channel     <prefix>{<name>}:released
-- KEYS[4]  yield marker        <prefix>{<name>}:yielded: a yield writes the releasing owner there
--                              (PX lease), so that a resend of the same handoff, whose first reply
--                              was lost, can tell "yielded, then another client took it" (released)
--                              from "lost before the release" (-1)
-- ARGV[1]  waiter's owner      32 hex chars, random per acquisition: the owner the lock is handed to
-- ARGV[2]  lease, ms           integer > 0 (the waiter's lease; also the yield marker's TTL)
-- ARGV[3]  counter idle TTL, ms  integer > 0 (as in acquire.lua)
-- ARGV[4]  releasing owner     if this owner holds the lock, it is released, and the lock taken for
--                              ARGV[1] with a fresh token in the same step
-- ARGV[5]  publish command     'SPUBLISH' or 'PUBLISH' (and so which subscriber count to read)
-- ARGV[6]  '1' to yield        when another client waits (a second subscriber on the channel), the
--                              lock is released for everybody instead: delete, publish, no grant
--                              (so one client's waiters cannot keep the lock from the others'); the
--                              message is 'yielded <token>' (the released lock's token), so that the
--                              yielding client can tell its own yield's message from a later
--                              release (any other release publishes 'released'); anything else
--                              (the engine sends '0') never yields
-- Returns  {status, token, pttl, released}: the first three as acquire.lua answers them for the
--          waiter, the 4th what became of the releasing owner's lock:
--          {1, token, pttl, 1}   released by this call, and granted to ARGV[1] with a fresh token;
--                                or ARGV[1] holds it already (an earlier send of this very handoff
--                                released it and its reply was lost: same token, lease reset
--                                while seq is 0, as a retried acquire, no new token)
--          {1, token, pttl, 0}   absent (expired or deleted): the lock was free, and is taken as by
--                                an acquire
--          {0, token, 0, 1}      yielded: released (deleted, 'yielded <token>' published, the
--                                marker written), not granted; token is the released lock's
--          {0, token, pttl, -1}  held by another owner (the releasing lease was lost): its token
--                                and remaining ms
--          {0, token, pttl, 2}   held by another owner, and the yield marker names the releasing
--                                owner: an earlier send of this very handoff yielded (released) the
--                                lock, and another client took it since
--          error                 as acquire.lua's (a foreign KEYS[1] or KEYS[2]); nothing is written
--                                then: the releasing owner's lock stays as it was
-- A granting handoff publishes nothing: the lock goes from one owner to the next without being
-- free, so no other waiter has anything to try for.
-- The lock value and the fencing token are as in acquire.lua (see its header): the blocks between
-- '-- [shared:<name>] begin' and '-- [shared:<name>] end' are the same, line for line, in
-- acquire.lua (scripts cannot include each other; SharedScriptBlocksTest checks it).
-- [shared:foreign] begin
local function foreign(key, what, expected)
  local kind = redis.call('TYPE', key)['ok']
  return redis.error_reply("ERR key '" .. key .. "' holds a value that is not a Leasehold " .. what
      .. ' (a ' .. kind .. ', not ' .. expected .. ')')
end
-- [shared:foreign] end
local releasing = ARGV[4]
local released = 0
-- [shared:read] begin
local current = redis.pcall('GET', KEYS[1])
if type(current) == 'table' and current.err then
  return foreign(KEYS[1], 'lock', "a string '<owner>:<token>'")
end
if current then
  local sep = string.find(current, ':', 1, true)
  if not sep then
    return foreign(KEYS[1], 'lock', "'<owner>:<token>'")
  end
  local rest = string.sub(current, sep + 1)
  local seqSep = string.find(rest, ':', 1, true)
  local token = seqSep and string.sub(rest, 1, seqSep - 1) or rest
  local owner = string.sub(current, 1, sep - 1)
  -- [shared:read] end
  if owner == ARGV[1] then
    if seqSep then
      return {1, token, redis.call('PTTL', KEYS[1]), 1}
    end
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
    return {1, token, tonumber(ARGV[2]), 1}
  end
  if owner ~= releasing then
    if redis.pcall('GET', KEYS[4]) == releasing then
      return {0, token, redis.call('PTTL', KEYS[1]), 2}
    end
    return {0, token, redis.call('PTTL', KEYS[1]), -1}
  end
  if ARGV[6] == '1' then
    local count = redis.call('PUBSUB', ARGV[5] == 'SPUBLISH' and 'SHARDNUMSUB' or 'NUMSUB', KEYS[3])[2]
    if count > 1 then
      redis.call('DEL', KEYS[1])
      redis.call('SET', KEYS[4], releasing, 'PX', ARGV[2])
      redis.call(ARGV[5], KEYS[3], 'yielded ' .. token)
      return {0, token, 0, 1}
    end
  end
  released = 1
end
-- [shared:grant] begin
local now = redis.call('TIME')
local token = tonumber(now[1]) * 1000000 + tonumber(now[2])
local counter = redis.pcall('GET', KEYS[2])
if type(counter) == 'table' and counter.err then
  return foreign(KEYS[2], 'fencing counter', 'a string holding a decimal integer')
end
if counter then
  -- + 1 must stay exact in a double: the counter must be below 2^53 - 1
  if not string.match(counter, '^%d+$') or tonumber(counter) >= 9007199254740991 then
    return foreign(KEYS[2], 'fencing counter', 'a decimal integer below 2^53 - 1')
  end
  token = math.max(tonumber(counter) + 1, token)
end
token = string.format('%.0f', token)
redis.call('SET', KEYS[2], token, 'PX', ARGV[3])
redis.call('SET', KEYS[1], ARGV[1] .. ':' .. token, 'PX', ARGV[2])
-- [shared:grant] end
return {1, token, tonumber(ARGV[2]), released}

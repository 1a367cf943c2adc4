-- acquire: take the lock for an owner, with a fresh fencing token, in one step.
-- KEYS[1]  lock key            <prefix>{<name>}
-- KEYS[2]  fencing counter     <prefix>{<name>}:fence (the last token handed out for the name)
-- ARGV[1]  owner               32 hex chars, random per acquisition
-- ARGV[2]  lease, ms           integer > 0
-- ARGV[3]  counter idle TTL, ms  integer > 0 (any value is safe: a lost counter only means the
--                              next token comes from TIME alone)
-- Handoff (optional; a holder's release that hands the lock to the next waiter of its client):
-- KEYS[3]  release channel     <prefix>{<name>}:released
-- ARGV[4]  releasing owner     if this owner holds the lock, it is released, and the lock taken for
--                              ARGV[1] with a fresh token in the same step
-- ARGV[5]  publish command     'SPUBLISH' or 'PUBLISH' (and so which subscriber count to read)
-- ARGV[6]  '1' to yield        when another client waits (a second subscriber on the channel), the
--                              lock is released for everybody instead: delete, publish, no grant
--                              (so one client's waiters cannot keep the lock from the others'); the
--                              message is 'yielded <token>' (the released lock's token), so that the
--                              yielding client can tell its own yield's message from a later
--                              release (any other release publishes 'released')
-- KEYS[4]  yield marker        <prefix>{<name>}:yielded: a yield writes the releasing owner there
--                              (PX lease), so that a resend of the same handoff, whose first reply
--                              was lost, can tell "yielded, then another client took it" (released)
--                              from "lost before the release" (-1)
-- Returns  {1, token, pttl}    acquired; also when this owner already holds it (a retried
--                              acquire is idempotent: same token, lease reset, no new token)
--          {0, token, pttl}    held by another owner: its token and remaining ms
--          with a handoff, a 4th entry says what became of the releasing owner's lock:
--           1  released (by this call; or it is ARGV[1]'s already, as an earlier send of this very
--              handoff released it and its reply was lost); with a yield: {0, token, 0, 1}
--           0  absent (expired or deleted): the lock was free, and is taken as by an acquire
--          -1  held by another owner (the releasing lease was lost): {0, token, pttl, -1}
--           2  held by another owner, and the yield marker names the releasing owner: an earlier
--              send of this very handoff yielded (released) the lock, and another client took it
--              since: {0, token, pttl, 2}
--          error               "ERR key '<key>' holds a value that is not a Leasehold lock (...)"
--                              when KEYS[1] holds another type or a string without ':', or
--                              "... not a Leasehold fencing counter (...)" when KEYS[2] holds
--                              another type or a string that is not a decimal integer below
--                              2^53 - 1 (e.g. another application's keys under the prefix);
--                              nothing is written then
-- The lock value is "<owner>:<token>", and "<owner>:<token>:<seq>" once renew or extend has set
-- its TTL (see renew.lua). A retried acquire by the same owner resets the TTL only while no renewal
-- or extend has run (seq 0): a late retry must never undo a later extend.
-- Fencing token: a hybrid logical clock. On every acquisition
--   token = max(counter + 1, server TIME in microseconds)   (just TIME when the counter is gone)
-- and the counter is set to the token with the idle TTL. Tokens strictly increase across key
-- expiry, a lost counter (flush, restart without persistence) and a failover to a replica that
-- missed the latest acquisitions, as long as the failover (or restart) takes longer than the clock
-- skew between the servers: the new server's TIME is then past every token the old one handed out
-- (each acquisition takes well over a microsecond, so the counter never runs ahead of the clock by
-- more than a few tokens). Within one server, "+ 1" keeps them strictly increasing even when the
-- clock stands still or steps back.
-- Tokens are strings in Redis and in every reply. Lua numbers are doubles, exact for integers
-- below 2^53 (~9.0e15); TIME in microseconds is ~1.8e15, so the arithmetic is exact until the
-- year ~2255. They are formatted with string.format('%.0f', x), never tostring(x), which prints
-- large numbers with an exponent (1.8e+15).
-- A key Leasehold did not write (another application's, under the prefix) is answered with an
-- error naming the key and what it holds, never an opaque WRONGTYPE or Lua error further on: the
-- GETs use pcall, and every value is checked before it is used.
local function foreign(key, what, expected)
  local kind = redis.call('TYPE', key)['ok']
  return redis.error_reply("ERR key '" .. key .. "' holds a value that is not a Leasehold " .. what
      .. ' (a ' .. kind .. ', not ' .. expected .. ')')
end
local current = redis.pcall('GET', KEYS[1])
if type(current) == 'table' and current.err then
  return foreign(KEYS[1], 'lock', "a string '<owner>:<token>'")
end
local handoff = ARGV[4]
local released = handoff and 0 or nil
if current then
  local sep = string.find(current, ':', 1, true)
  if not sep then
    return foreign(KEYS[1], 'lock', "'<owner>:<token>'")
  end
  local rest = string.sub(current, sep + 1)
  local seqSep = string.find(rest, ':', 1, true)
  local token = seqSep and string.sub(rest, 1, seqSep - 1) or rest
  local owner = string.sub(current, 1, sep - 1)
  if owner == ARGV[1] then
    released = handoff and 1 or nil
    if seqSep then
      return {1, token, redis.call('PTTL', KEYS[1]), released}
    end
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
    return {1, token, tonumber(ARGV[2]), released}
  end
  if owner ~= handoff then
    if handoff and KEYS[4] and redis.pcall('GET', KEYS[4]) == handoff then
      return {0, token, redis.call('PTTL', KEYS[1]), 2}
    end
    return {0, token, redis.call('PTTL', KEYS[1]), handoff and -1 or nil}
  end
  if ARGV[6] == '1' then
    local count = redis.call('PUBSUB', ARGV[5] == 'SPUBLISH' and 'SHARDNUMSUB' or 'NUMSUB', KEYS[3])[2]
    if count > 1 then
      redis.call('DEL', KEYS[1])
      if KEYS[4] then
        redis.call('SET', KEYS[4], handoff, 'PX', ARGV[2])
      end
      redis.call(ARGV[5], KEYS[3], 'yielded ' .. token)
      return {0, token, 0, 1}
    end
  end
  released = 1
end
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
return {1, token, tonumber(ARGV[2]), released}

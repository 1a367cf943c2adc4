-- handoff: a holder's release that hands the lock to the next waiter of its client in the same
-- step (the waiter's acquire, with a fresh owner and a fresh fencing token), or, when asked to and
-- a waiter of the lock's wait queue in Redis is ahead of it, grants the lock to that waiter instead
-- (a yield) and gives this client's waiter a place in the queue.
-- KEYS[1]  lock key            <prefix>{<name>}
-- KEYS[2]  fencing counter     <prefix>{<name>}:fence (the last token handed out for the name)
-- KEYS[3]  wait queue          <prefix>{<name>}:queue    (as in acquire.lua)
-- KEYS[4]  waiter leases       <prefix>{<name>}:waiters
-- KEYS[5]  release channel     <prefix>{<name>}:released
-- KEYS[6]  release marker      <prefix>{<name>}:yielded (as in release.lua): a yield adds the
--                              releasing owner for the lease ARGV[2], so that a resend of the same
--                              handoff, whose first reply was lost, can tell "yielded, then another
--                              owner took it" (released) from "lost before the release" (-1)
-- ARGV[1]  waiter's owner      32 hex chars, random per acquisition: the owner the lock is handed to
-- ARGV[2]  lease, ms           integer > 0 (the waiter's lease; also the yield marker's TTL)
-- ARGV[3]  counter idle TTL, ms  integer > 0 (as in acquire.lua)
-- ARGV[4]  releasing owner     if this owner holds the lock, it is released, and the lock taken for
--                              ARGV[1] with a fresh token in the same step
-- ARGV[5]  publish command     'SPUBLISH' or 'PUBLISH'
-- ARGV[6]  '1' to yield        when the live head of the wait queue is another owner (another
--                              client's waiter, or a fair waiter), the lock goes to it instead: a
--                              grant for its grant window, 'granted <head> <token>' published (as
--                              release.lua grants), and ARGV[1] keeps its place in the queue or
--                              takes one at its tail, so that one client's waiters cannot keep the
--                              lock from the others'; anything else (the engine sends '0') never
--                              yields a held lock. A free lock (expired, deleted) goes to a live
--                              head other than ARGV[1] either way, as acquire.lua gives it
-- ARGV[7]  waiter lease, ms    integer > 0: the grant window (as acquire.lua's ARGV[4]); the place
--                              ARGV[1] takes lasts twice that, the grant's window and a waiter lease
--                              after it (as acquire.lua's place mode '2': its waiter asks again
--                              when the grant's TTL runs out)
-- Returns  {status, token, pttl, released}: the first three as acquire.lua answers them for the
--          waiter, the 4th what became of the releasing owner's lock:
--          {1, token, pttl, 1}   released by this call, and granted to ARGV[1] with a fresh token;
--                                or ARGV[1] holds it already (an earlier send of this very handoff
--                                released it and its reply was lost: same token, lease reset
--                                while seq is 0, as a retried acquire, no new token)
--          {1, token, pttl, 0}   absent (expired or deleted): the lock was free, and is taken as by
--                                an acquire
--          {0, token, pttl, 1}   yielded: released (the marker written) and granted to the queue's
--                                head (token and pttl are that grant's); ARGV[1] waits in the queue
--          {0, token, pttl, 0}   absent, and granted to the queue's head; ARGV[1] waits in the queue
--          {0, token, pttl, -1}  held by another owner (the releasing lease was lost): its token
--                                and remaining ms
--          {0, token, pttl, 2}   held by another owner, and the yield marker names the releasing
--                                owner: an earlier send of this very handoff yielded (released) the
--                                lock, and another owner took it since
--          error                 as acquire.lua's (a foreign lock, counter or queue key); nothing
--                                is written then: the releasing owner's lock stays as it was
-- A granting handoff publishes nothing: the lock goes from one owner to the next without being
-- free, so no other waiter has anything to try for. The waiter's place in the wait queue, if it
-- had one, goes with the grant.
-- The blocks between '-- [shared:<name>] begin' and '-- [shared:<name>] end' are the same, line
-- for line, in acquire.lua and release.lua (scripts cannot include each other;
-- SharedScriptBlocksTest checks it).
-- [shared:queue] begin
local function foreign(key, what, expected)
  local kind = redis.call('TYPE', key)['ok']
  return redis.error_reply("ERR key '" .. key .. "' holds a value that is not a Leasehold " .. what
      .. ' (a ' .. kind .. ', not ' .. expected .. ')')
end
-- the lock's owner and token, or nil when free; an error reply for a foreign value
local function readLock()
  local current = redis.pcall('GET', KEYS[1])
  if type(current) == 'table' and current.err then
    return nil, nil, nil, foreign(KEYS[1], 'lock', "a string '<owner>:<token>'")
  end
  if not current then
    return nil
  end
  local sep = string.find(current, ':', 1, true)
  if not sep then
    return nil, nil, nil, foreign(KEYS[1], 'lock', "'<owner>:<token>'")
  end
  local rest = string.sub(current, sep + 1)
  local seqSep = string.find(rest, ':', 1, true)
  return string.sub(current, 1, sep - 1), seqSep and string.sub(rest, 1, seqSep - 1) or rest, seqSep ~= nil
end
-- the fencing counter (nil when absent), or nil and an error reply when it is not a decimal integer
-- below 2^53 - 1 (so that + 1 stays exact in a double); read once per call (the checks and the
-- grant ask for it, and only a grant writes it, see grant())
local counterRead
local function readCounter()
  if counterRead then
    return counterRead.value, counterRead.err
  end
  local counter = redis.pcall('GET', KEYS[2])
  if type(counter) == 'table' and counter.err then
    counterRead = {err = foreign(KEYS[2], 'fencing counter', 'a string holding a decimal integer')}
  elseif counter and (not string.match(counter, '^%d+$') or tonumber(counter) >= 9007199254740991) then
    counterRead = {err = foreign(KEYS[2], 'fencing counter', 'a decimal integer below 2^53 - 1')}
  else
    counterRead = {value = counter or nil}
  end
  return counterRead.value, counterRead.err
end
-- nil when the queue keys are zsets (or absent); else the error reply naming the foreign key
local function checkQueue()
  for i = 3, 4 do
    local kind = redis.call('TYPE', KEYS[i])['ok']
    if kind ~= 'none' and kind ~= 'zset' then
      return foreign(KEYS[i], 'wait queue', 'a zset')
    end
  end
  return nil
end
-- nil when the counter and the queue keys hold what Leasehold writes (or nothing); else the error
-- reply naming the foreign key: checked before anything is written
local function checkKeys()
  local _, err = readCounter()
  if err then
    return err
  end
  return checkQueue()
end
-- the server's TIME, read once per call: every use in one call sees the same instant (as Redis 7.2
-- on gives a script anyway), and each further read would cost a command
local timeRead
local function serverTime()
  if not timeRead then
    timeRead = redis.call('TIME')
  end
  return timeRead
end
local function nowMillis()
  local now = serverTime()
  return tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
end
-- drops the waiters whose lease ran out (deadline <= now)
local function purge(now)
  local expired = redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', now)
  for i = 1, #expired do
    redis.call('ZREM', KEYS[3], expired[i])
    redis.call('ZREM', KEYS[4], expired[i])
  end
end
-- the lock for owner with a fresh fencing token and TTL px; the token, or nil and the error reply
-- when the counter is foreign (nothing is written then).
-- Fencing token: a hybrid logical clock. On every grant
--   token = max(counter + 1, server TIME in microseconds)   (just TIME when the counter is gone)
-- and the counter is set to the token with the idle TTL. Tokens strictly increase across key
-- expiry, a lost counter (flush, restart without persistence) and a failover to a replica that
-- missed the latest acquisitions, as long as the failover (or restart) takes longer than the clock
-- skew between the servers: the new server's TIME is then past every token the old one handed out
-- (each grant takes well over a microsecond, so the counter never runs ahead of the clock by more
-- than a few tokens). Within one server, "+ 1" keeps them strictly increasing even when the clock
-- stands still or steps back. Tokens are strings in Redis and in every reply: Lua numbers are
-- doubles, exact for integers below 2^53 (~9.0e15; TIME in microseconds is ~1.8e15, so until the
-- year ~2255), formatted with string.format('%.0f', x), never tostring(x) (1.8e+15).
local function grant(owner, px, counterTtl)
  local now = serverTime()
  local token = tonumber(now[1]) * 1000000 + tonumber(now[2])
  local counter, err = readCounter()
  if err then
    return nil, err
  end
  if counter then
    token = math.max(tonumber(counter) + 1, token)
  end
  token = string.format('%.0f', token)
  redis.call('SET', KEYS[2], token, 'PX', counterTtl)
  counterRead = {value = token}
  redis.call('SET', KEYS[1], owner .. ':' .. token, 'PX', px)
  return token
end
-- the lock is free: grants it to the head waiter, if any, for the grant window, and names it and
-- its token on the channel ('granted <head> <token>': the waiter can take the grant from the
-- message, see acquire.lua's header); the head and its token, or nil when the queue is empty
local function grantHead(window, counterTtl, publish)
  local head = redis.call('ZRANGE', KEYS[3], 0, 0)[1]
  if not head then
    return nil
  end
  redis.call('ZREM', KEYS[3], head)
  redis.call('ZREM', KEYS[4], head)
  local token = grant(head, window, counterTtl)
  redis.call(publish, KEYS[5], 'granted ' .. head .. (token and (' ' .. token) or ''))
  return head, token
end
-- gives owner a place at the tail of the queue unless it has one (the enqueue order: the server's
-- TIME in µs, and always after the last ticket), and sets its place's deadline to now + lease
local function enqueue(owner, now, lease)
  if not redis.call('ZSCORE', KEYS[3], owner) then
    local micros = serverTime()
    local ticket = tonumber(micros[1]) * 1000000 + tonumber(micros[2])
    local tail = redis.call('ZRANGE', KEYS[3], -1, -1, 'WITHSCORES')
    if #tail > 0 then
      ticket = math.max(ticket, tonumber(tail[2]) + 1)
    end
    redis.call('ZADD', KEYS[3], string.format('%.0f', ticket), owner)
  end
  redis.call('ZADD', KEYS[4], now + tonumber(lease), owner)
end
-- the queue keys live exactly as long as the longest waiter lease in them; a member another
-- application scored +inf is no deadline (and no TTL): passed over, as is a queue of only such;
-- one scored far in the future gets at most 1e15 ms (PEXPIRE takes no more than about 9e15)
local function expireQueue(now)
  local last = redis.call('ZREVRANGEBYSCORE', KEYS[4], '(+inf', '-inf', 'WITHSCORES', 'LIMIT', 0, 1)
  if #last == 0 then
    if redis.call('EXISTS', KEYS[4]) == 0 then
      redis.call('DEL', KEYS[3])
    end
    return
  end
  local ttl = string.format('%.0f', math.min(math.max(tonumber(last[2]) - now, 1), 1e15))
  redis.call('PEXPIRE', KEYS[3], ttl)
  redis.call('PEXPIRE', KEYS[4], ttl)
end
-- the release marker (KEYS[6]): a zset of the owners whose release let the lock go recently,
-- each until its own deadline (server ms), so that a resend of any of them, not only the latest,
-- can tell that it ran; a foreign value there is passed over (pcall): the marker is a hint
local function mark(owner, now, ttl)
  redis.pcall('ZREMRANGEBYSCORE', KEYS[6], '-inf', now)
  redis.pcall('ZADD', KEYS[6], now + tonumber(ttl), owner)
  local last = redis.pcall('ZRANGE', KEYS[6], -1, -1, 'WITHSCORES')
  if type(last) == 'table' and not last.err and #last > 0 then
    redis.call('PEXPIRE', KEYS[6], math.max(tonumber(last[2]) - now, 1))
  end
end
local function marked(owner, now)
  local deadline = redis.pcall('ZSCORE', KEYS[6], owner)
  return type(deadline) == 'string' and tonumber(deadline) > now
end
-- [shared:queue] end
local me = ARGV[1]
local releasing = ARGV[4]
local owner, token, renewed, err = readLock()
if err then
  return err
end
if owner == me then
  if renewed then
    return {1, token, redis.call('PTTL', KEYS[1]), 1}
  end
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return {1, token, tonumber(ARGV[2]), 1}
end
if owner and owner ~= releasing then
  if releasing and marked(releasing, nowMillis()) then
    return {0, token, redis.call('PTTL', KEYS[1]), 2}
  end
  return {0, token, redis.call('PTTL', KEYS[1]), -1}
end
local queued = redis.call('EXISTS', KEYS[3], KEYS[4]) > 0
if queued then
  err = checkKeys()
else
  local _
  _, err = readCounter()
end
if err then
  return err
end
local released = owner and 1 or 0
if queued then
  -- (the queue's head is looked at only for a free lock or a handoff that may yield: the others
  -- pass it by, and touch the queue only to take the waiter's own place out, if it has one)
  if not owner or ARGV[6] == '1' then
    local now = nowMillis()
    purge(now)
    local head = redis.call('ZRANGE', KEYS[3], 0, 0)[1]
    if head and head ~= me then
      if owner then
        mark(releasing, now, ARGV[2])
      end
      local _, granted = grantHead(ARGV[7], ARGV[3], ARGV[5]) -- (its SET replaces the released lock)
      enqueue(me, now, 2 * tonumber(ARGV[7]))
      expireQueue(now)
      return {0, granted, tonumber(ARGV[7]), released}
    end
  end
  -- the new holder keeps no place: out of both keys, also of the waiter leases when its ticket
  -- is gone (a lost queue key), since a holder's release takes out no place (release.lua)
  local ticket = redis.call('ZREM', KEYS[3], me)
  if redis.call('ZREM', KEYS[4], me) + ticket > 0 then
    expireQueue(nowMillis())
  end
end
token = grant(me, ARGV[2], ARGV[3])
return {1, token, tonumber(ARGV[2]), released}

-- release: an owner lets go of its lock, and tells the waiters. One script for a holder's release,
-- a waiter that gives up (cancelled, timed out, its client closing: its place in the wait queue
-- goes), and the clean-up of an owner nobody holds a lease for. If the owner holds the lock (a
-- lease, or a grant it never took: owners are random per acquisition, so such a lock was never
-- handed to anyone), the lock goes straight to the live waiter at the head of the wait queue (a
-- grant, as in acquire.lua) or, with nobody queued, is deleted and 'released' published.
-- KEYS[1]  lock key            <prefix>{<name>}
-- KEYS[2]  fencing counter     <prefix>{<name>}:fence
-- KEYS[3]  wait queue          <prefix>{<name>}:queue
-- KEYS[4]  waiter leases       <prefix>{<name>}:waiters
-- KEYS[5]  release channel     <prefix>{<name>}:released (same slot as the lock)
-- KEYS[6]  release marker      <prefix>{<name>}:yielded: a zset of releasing owners -> deadline;
--                              a release that finds the queue's keys adds its owner for ARGV[5] ms
--                              (see mark()), so that a resend of it, whose first reply was lost, can
--                              tell "released, and granted to the next or taken by another since"
--                              (1) from "lost before the release" (-1), however many releases came
--                              between. A release with nobody queued marks nothing (as cheap as a
--                              plain DEL and publish): its resend that finds another owner answers -1
-- ARGV[1]  owner               the owner letting go
-- ARGV[2]  counter idle TTL, ms  integer > 0 (as in acquire.lua)
-- ARGV[3]  grant window, ms    integer > 0: the waiter lease of the queue's waiters
-- ARGV[4]  publish command     'SPUBLISH' (sharded pub/sub) or 'PUBLISH'
-- ARGV[5]  marker TTL, ms      integer > 0: how long a resend may still come
-- ARGV[6]  (optional) the owner an earlier handoff of this release granted the lock to (see
--          handoff.lua): the resend of a handoff whose reply was lost; if that owner holds the
--          lock, the handoff ran, and the answer is 1 with nothing touched
-- Returns  1    released (granted to the head waiter, or deleted and published); also for a resend
--               that finds another owner after an earlier send of this release (the marker, or the
--               owner of ARGV[6])
--          0    absent (expired or deleted, perhaps by an earlier send of this very release); a
--               live head waiter is granted the free lock all the same
--         -1    held by someone else (the owner's place, if any, is gone all the same), or a key
--               that holds something that is not a Leasehold lock (another type or a string
--               without ':'), which is left untouched
--          error  a foreign queue key, found before anything is written (a foreign fencing counter
--                 only keeps the release from granting the lock to the head waiter)
-- Without a queue (no waiter takes places), a release reads the two queue keys' existence and
-- nothing more of them.
-- The blocks between '-- [shared:<name>] begin' and '-- [shared:<name>] end' are the same, line
-- for line, in acquire.lua and handoff.lua (SharedScriptBlocksTest checks it).
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
local owner, token, renewed, err = readLock()
if err then
  return -1
end
local function movedOn()
  return (ARGV[6] and owner == ARGV[6]) or marked(me, nowMillis())
end
if redis.call('EXISTS', KEYS[3], KEYS[4]) == 0 then
  -- nobody queued
  if not owner then
    return 0
  end
  if owner ~= me then
    return movedOn() and 1 or -1
  end
  redis.call('DEL', KEYS[1])
  redis.call(ARGV[4], KEYS[5], 'released')
  return 1
end
err = checkQueue()
if err then
  return err
end
-- a foreign counter must not keep the owner from letting go: the lock is deleted all the same, and
-- granted to nobody (the waiters' own calls then meet the counter's error)
local _, foreignCounter = readCounter()
if owner ~= me then
  -- a waiter that gives up (or the clean-up of an owner nobody holds) takes its place out; a holder
  -- has none: every step that makes an owner the holder takes it out of the queue, and none puts a
  -- holder back (acquire.lua answers a holder before it enqueues, renew.lua only keeps places)
  redis.call('ZREM', KEYS[3], me)
  redis.call('ZREM', KEYS[4], me)
end
local now = nowMillis()
purge(now)
if owner and owner ~= me then
  expireQueue(now)
  return movedOn() and 1 or -1
end
local released = owner and 1 or 0
local head = nil
if not foreignCounter then
  head = grantHead(ARGV[3], ARGV[2], ARGV[4]) -- (the grant's SET replaces the released lock)
end
if released == 1 then
  mark(me, now, ARGV[5])
  if not head then
    redis.call('DEL', KEYS[1])
    redis.call(ARGV[4], KEYS[5], 'released')
  end
end
expireQueue(now)
return released

-- acquire: take the lock for an owner, with a fresh fencing token, in one step; where the lock has
-- a wait queue, in its order: join that queue, or keep this waiter's place in it alive.
-- KEYS[1]  lock key            <prefix>{<name>}
-- KEYS[2]  fencing counter     <prefix>{<name>}:fence (the last token handed out for the name)
-- KEYS[3]  wait queue          <prefix>{<name>}:queue    zset: owner -> ticket (enqueue order)
-- KEYS[4]  waiter leases       <prefix>{<name>}:waiters  zset: owner -> deadline (server ms)
-- KEYS[5]  release channel     <prefix>{<name>}:released
-- ARGV[1]  owner               32 hex chars, random per acquisition
-- ARGV[2]  lease, ms           integer > 0
-- ARGV[3]  counter idle TTL, ms  integer > 0 (any value is safe: a lost counter only means the
--                              next token comes from the clock alone)
-- ARGV[4]  waiter lease, ms    integer > 0: how long this waiter's place outlives its last call,
--                              and how long a lock granted to the head waits for that waiter to
--                              take it (the grant window)
-- ARGV[5]  publish command     'SPUBLISH' or 'PUBLISH'
-- ARGV[6]  place mode          when the lock is held: '0' joins the queue (or keeps this waiter's
--                              place) for the waiter lease ARGV[4] (fairLock's waiters renew it
--                              every third of it); '2' for the holder's remaining TTL plus ARGV[4]
--                              (lock(name)'s waiters, which ask again when the holder's TTL runs
--                              out, so that their place outlives that without renewals of its
--                              own); '1' takes no place (an acquisition that will not wait: a
--                              tryAcquire without a wait), and its reply's place is 0
-- Returns  {1, token, pttl}        acquired: the lock was free and the queue empty (or this owner at
--                                  its head), or a release granted it to this owner (its value has
--                                  no sequence number yet: the lease is set to ARGV[2] now); also
--                                  when this owner holds it already (a retried acquire is
--                                  idempotent: same token, lease reset while no renewal or extend
--                                  has run (seq 0), so a late retry never undoes a later extend)
--          {0, token, pttl, n}     held by another owner (or granted to the head waiter by this
--                                  call): its token and remaining ms, and this owner's place in the
--                                  queue (1 = next; 0 when it takes none, ARGV[6])
--          error                   "ERR key '<key>' holds a value that is not a Leasehold lock
--                                  (...)" when a key holds something Leasehold did not write
--                                  (another type, a lock string without ':', a counter that is not a
--                                  decimal integer below 2^53 - 1, a queue key that is not a zset);
--                                  nothing is written then
-- The lock value is "<owner>:<token>", and "<owner>:<token>:<seq>" once renew or extend has set
-- its TTL (see renew.lua).
-- The grant: a release (release.lua) or any call that finds the lock free (expired, deleted, or a
-- grant not taken within its window) and a live waiter at the head gives the lock to that waiter
-- in the same step: "<owner>:<token>" with a fresh fencing token and a TTL of the waiter lease, and
-- publishes 'granted <owner> <token>'. The waiter may take the lock from that message without
-- asking again: the grant's token above the holder's token that its last contended reply named
-- proves that the grant ran after that call was sent, so its TTL (the waiter lease) runs out no
-- sooner than the waiter lease after that send. A dead waiter so costs the queue at most one
-- waiter lease (its place expires) or one grant window (it never takes its grant), never the
-- lock's lease. Waiters whose
-- lease ran out are dropped by every call. The queue keys expire with the last waiter's lease, so
-- nothing outlives the clients that wrote it. Without a queue (no waiter takes places), a call
-- reads the two queue keys' existence and nothing more of them.
-- A key Leasehold did not write (another application's, under the prefix) is answered with an
-- error naming the key and what it holds, never an opaque WRONGTYPE or Lua error further on: the
-- GETs use pcall, and every value is checked before it is used.
-- The blocks between '-- [shared:<name>] begin' and '-- [shared:<name>] end' are the same, line
-- for line, in release.lua and handoff.lua (scripts cannot include each other;
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
local owner, token, renewed, err = readLock()
if err then
  return err
end
if owner == me then
  if renewed then
    return {1, token, redis.call('PTTL', KEYS[1])}
  end
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return {1, token, tonumber(ARGV[2])}
end
if redis.call('EXISTS', KEYS[3], KEYS[4]) == 0 then
  -- nobody queued: a free lock is taken, a held one is contended (or its first waiter joins below)
  if not owner then
    token, err = grant(me, ARGV[2], ARGV[3])
    if err then
      return err
    end
    return {1, token, tonumber(ARGV[2])}
  end
  if ARGV[6] == '1' then
    return {0, token, redis.call('PTTL', KEYS[1]), 0}
  end
end
err = checkKeys()
if err then
  return err
end
local now = nowMillis()
purge(now)
local pttl
if owner then
  pttl = redis.call('PTTL', KEYS[1])
else
  local head = redis.call('ZRANGE', KEYS[3], 0, 0)[1]
  if not head or head == me then
    redis.call('ZREM', KEYS[3], me)
    redis.call('ZREM', KEYS[4], me)
    token = grant(me, ARGV[2], ARGV[3])
    expireQueue(now)
    return {1, token, tonumber(ARGV[2])}
  end
  head, token = grantHead(ARGV[4], ARGV[3], ARGV[5])
  pttl = tonumber(ARGV[4])
end
if ARGV[6] == '1' then
  expireQueue(now)
  return {0, token, pttl, 0}
end
enqueue(me, now, ARGV[6] == '2' and math.max(pttl, 0) + tonumber(ARGV[4]) or ARGV[4])
expireQueue(now)
return {0, token, pttl, redis.call('ZRANK', KEYS[3], me) + 1}

-- quorum-fair-acquire: phase 1 of a fairLock acquisition over a quorum of independent masters, on
-- one member (docs/design/quorum-locks.md, "Waiting"): take the lock for an owner where the lock is
-- free and its waiter heads this member's quorum queue, else keep the waiter's place there.
-- The quorum queue orders waiters by *tickets* that the quorum chose, the same on every member (a
-- waiter's first call gets this member's ticket; the quorum sends the largest of a majority's back
-- with every later call, so every member orders that waiter alike, ties broken by waiter id, as a
-- zset does). A member never hands the lock over by itself (its grant would be no quorum's grant):
-- a waiter at the head asks, woken by the release message or its place's renewal.
-- KEYS[1]  lock key            <prefix>{<name>}
-- KEYS[2]  fencing counter     <prefix>{<name>}:fence
-- KEYS[3]  quorum queue        <prefix>{<name>}:quorum-queue    zset: waiter -> ticket
-- KEYS[4]  waiter leases       <prefix>{<name>}:quorum-waiters  zset: waiter -> deadline (server ms)
-- ARGV[1]  owner               32 hex chars, this attempt's (the quorum gives each attempt its own);
--                              '' when the waiter leaves (it gave up, or its client closed): its
--                              place is taken out, and nothing else is done (ARGV[2], [3], [5] and
--                              [6] are not read); replies {0}
-- ARGV[2]  lease, ms           integer > 0
-- ARGV[3]  counter idle TTL, ms  integer > 0
-- ARGV[4]  waiter              the waiter's id, the same for every attempt of one acquisition; ''
--                              for an attempt that will not wait (it takes no place, and is
--                              granted only when the lock is free and the queue empty)
-- ARGV[5]  waiter lease, ms    integer > 0: how long the waiter's place outlives this call
-- ARGV[6]  ticket              the waiter's ticket as the quorum chose it (a decimal integer below
--                              2^53 - 1), or '' before it chose one: the place then takes this
--                              member's ticket, the server's TIME in µs and after the last ticket
-- Returns  {1, token, pttl}           acquired: the lock was free and the waiter at the head of the
--                                     queue (or the queue empty), for its grant window (pttl): a
--                                     waiter's is min(lease, waiter lease), and its place is kept
--                                     (the quorum's commit sets the lease, quorum-commit.lua's
--                                     ARGV[5], and the quorum's leave then takes the place out), so
--                                     that a waiter that dies before its commit holds the queue only
--                                     for that window, and a grant that lapses before its commit
--                                     leaves the waiter at the head; an attempt without a place
--                                     ('' waiter) gets the lease, as acquire.lua; also when this
--                                     owner holds it already (its TTL set to its grant window again)
--          {0, token, pttl, n, ticket}  not acquired: the holder's token and remaining ms (the
--                                     token '0' and the waiter lease when the lock is free but
--                                     another waiter is ahead), the waiter's place (1 = next) and
--                                     its ticket here; place 0 and ticket '0' for waiter ''
--                                     (ARGV[6] is checked all the same)
--          error                      a key holding what Leasehold did not write, as acquire.lua
-- The blocks between '-- [shared:<name>] begin' and '-- [shared:<name>] end' are the same, line
-- for line, in acquire.lua, release.lua and handoff.lua (SharedScriptBlocksTest checks it).
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
local waiter = ARGV[4]
-- how long a grant to this attempt lives on this member: the lease for an attempt without a place;
-- for a waiter only until its commit could have come (the commit sets the lease)
local function grantWindow()
  if waiter == '' then
    return tonumber(ARGV[2])
  end
  return math.min(tonumber(ARGV[2]), tonumber(ARGV[5]))
end
if me == '' then
  local err = checkQueue()
  if err then
    return err
  end
  redis.call('ZREM', KEYS[3], waiter)
  redis.call('ZREM', KEYS[4], waiter)
  expireQueue(nowMillis())
  return {0}
end
local owner, token, renewed, err = readLock()
if err then
  return err
end
if owner == me then
  if renewed then
    return {1, token, redis.call('PTTL', KEYS[1])}
  end
  local window = grantWindow()
  redis.call('PEXPIRE', KEYS[1], string.format('%.0f', window))
  return {1, token, window}
end
err = checkKeys()
if err then
  return err
end
if ARGV[6] ~= '' and (not string.match(ARGV[6], '^%d+$') or tonumber(ARGV[6]) >= 9007199254740991) then
  return redis.error_reply("ERR ticket must be a decimal integer below 2^53 - 1, but was '" .. ARGV[6] .. "'")
end
local now = nowMillis()
purge(now)
if waiter == '' then
  -- no place: granted only when the lock is free and nobody waits
  if not owner and redis.call('EXISTS', KEYS[3]) == 0 then
    token = grant(me, ARGV[2], ARGV[3])
    return {1, token, tonumber(ARGV[2])}
  end
  expireQueue(now)
  if owner then
    return {0, token, redis.call('PTTL', KEYS[1]), 0, '0'}
  end
  return {0, '0', tonumber(ARGV[5]), 0, '0'}
end
if ARGV[6] ~= '' then
  redis.call('ZADD', KEYS[3], ARGV[6], waiter)
  redis.call('ZADD', KEYS[4], now + tonumber(ARGV[5]), waiter)
else
  enqueue(waiter, now, ARGV[5])
end
local head = redis.call('ZRANGE', KEYS[3], 0, 0)[1]
if not owner and head == waiter then
  -- the place stays (see the header): were it dropped here, a grant that lapses or is released
  -- before the quorum commits would leave the head without a place on this member until its next
  -- ask, and a later waiter asking meanwhile would head the queue here
  local window = grantWindow()
  token = grant(me, string.format('%.0f', window), ARGV[3])
  expireQueue(now)
  return {1, token, window}
end
local pttl
if owner then
  pttl = redis.call('PTTL', KEYS[1])
else
  token = '0'
  pttl = tonumber(ARGV[5])
end
expireQueue(now)
return {0, token, pttl, redis.call('ZRANK', KEYS[3], waiter) + 1, redis.call('ZSCORE', KEYS[3], waiter)}

-- queue-release: an owner lets go of a lock that has a wait queue: a holder's release, or a waiter
-- that gives up (cancelled, timed out, its client closing), or the clean-up of an owner nobody holds
-- a lease for. Its place in the queue goes; if it holds the lock (a lease, or a grant it never took:
-- owners are random per acquisition, so such a lock was never handed to anyone), the lock goes
-- straight to the live waiter at the head of the queue (a grant, as in queue-acquire.lua) or, with
-- nobody waiting, is deleted and 'released' published.
-- KEYS[1]  lock key            <prefix>{<name>}
-- KEYS[2]  fencing counter     <prefix>{<name>}:fence
-- KEYS[3]  wait queue          <prefix>{<name>}:queue
-- KEYS[4]  waiter leases       <prefix>{<name>}:waiters
-- KEYS[5]  release channel     <prefix>{<name>}:released
-- KEYS[6]  release marker      <prefix>{<name>}:yielded: a release writes its owner there (PX
--                              ARGV[5]), so that a resend of it, whose first reply was lost, can tell
--                              "released, and granted to the next or taken by another since" (1)
--                              from "lost before the release" (-1)
-- ARGV[1]  owner               the owner letting go
-- ARGV[2]  counter idle TTL, ms  integer > 0 (as in acquire.lua)
-- ARGV[3]  grant window, ms    integer > 0: the waiter lease of the queue's waiters
-- ARGV[4]  publish command     'SPUBLISH' or 'PUBLISH'
-- ARGV[5]  marker TTL, ms      integer > 0: how long a resend may still come
-- Returns  1    released (granted to the head waiter, or deleted and published); also for a resend
--               that finds another owner after an earlier send of this release (the marker)
--          0    absent (expired or deleted, perhaps by an earlier send of this very release); a
--               live head waiter is granted the free lock all the same
--         -1    held by someone else (the owner's place, if any, is gone all the same), or a
--               foreign lock value (left untouched)
--          error  a foreign fencing counter or queue key, found before anything is written
-- The blocks between '-- [shared:<name>] begin' and '-- [shared:<name>] end' are the same, line
-- for line, in queue-acquire.lua (SharedScriptBlocksTest checks it).
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
-- below 2^53 - 1 (so that + 1 stays exact in a double)
local function readCounter()
  local counter = redis.pcall('GET', KEYS[2])
  if type(counter) == 'table' and counter.err then
    return nil, foreign(KEYS[2], 'fencing counter', 'a string holding a decimal integer')
  end
  if counter and (not string.match(counter, '^%d+$') or tonumber(counter) >= 9007199254740991) then
    return nil, foreign(KEYS[2], 'fencing counter', 'a decimal integer below 2^53 - 1')
  end
  return counter
end
-- nil when the counter and the queue keys hold what Leasehold writes (or nothing); else the error
-- reply naming the foreign key: checked before anything is written
local function checkKeys()
  local _, err = readCounter()
  if err then
    return err
  end
  for i = 3, 4 do
    local kind = redis.call('TYPE', KEYS[i])['ok']
    if kind ~= 'none' and kind ~= 'zset' then
      return foreign(KEYS[i], 'wait queue', 'a zset')
    end
  end
  return nil
end
local function nowMillis()
  local now = redis.call('TIME')
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
-- the lock for owner with a fresh fencing token (the hybrid logical clock of acquire.lua) and TTL
-- px; the token (checkKeys has vouched for the counter)
local function grant(owner, px, counterTtl)
  local now = redis.call('TIME')
  local token = tonumber(now[1]) * 1000000 + tonumber(now[2])
  local counter = readCounter()
  if counter then
    token = math.max(tonumber(counter) + 1, token)
  end
  token = string.format('%.0f', token)
  redis.call('SET', KEYS[2], token, 'PX', counterTtl)
  redis.call('SET', KEYS[1], owner .. ':' .. token, 'PX', px)
  return token
end
-- the lock is free: grants it to the head waiter, if any, for the grant window, and names it on
-- the channel; the head and its token, or nil when the queue is empty
local function grantHead(window, counterTtl, publish)
  local head = redis.call('ZRANGE', KEYS[3], 0, 0)[1]
  if not head then
    return nil
  end
  redis.call('ZREM', KEYS[3], head)
  redis.call('ZREM', KEYS[4], head)
  local token = grant(head, window, counterTtl)
  redis.call(publish, KEYS[5], 'granted ' .. head)
  return head, token
end
-- the queue keys live exactly as long as the longest waiter lease in them
local function expireQueue(now)
  local last = redis.call('ZRANGE', KEYS[4], -1, -1, 'WITHSCORES')
  if #last == 0 then
    redis.call('DEL', KEYS[3], KEYS[4])
    return
  end
  local ttl = math.max(tonumber(last[2]) - now, 1)
  redis.call('PEXPIRE', KEYS[3], ttl)
  redis.call('PEXPIRE', KEYS[4], ttl)
end
-- [shared:queue] end
local owner, token, renewed, err = readLock()
if err then
  return -1
end
err = checkKeys()
if err then
  return err
end
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('ZREM', KEYS[4], ARGV[1])
local now = nowMillis()
purge(now)
if owner and owner ~= ARGV[1] then
  expireQueue(now)
  return redis.pcall('GET', KEYS[6]) == ARGV[1] and 1 or -1
end
local released = 0
if owner then
  redis.call('DEL', KEYS[1])
  released = 1
end
local head = grantHead(ARGV[3], ARGV[2], ARGV[4])
if released == 1 then
  redis.call('SET', KEYS[6], ARGV[1], 'PX', ARGV[5])
  if not head then
    redis.call(ARGV[4], KEYS[5], 'released')
  end
end
expireQueue(now)
return released

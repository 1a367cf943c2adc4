-- renew: reset the lease of many locks in one call (the watchdog's batch), and keep the places of
-- waiters in the locks' wait queues alive in the same call; tell how long it ran.
-- KEYS[i]    lock key of lease i, for the call's n leases (in a cluster all keys of one call share a
--            slot); then three keys per place j, for the call's p places: the lock key, wait queue
--            and waiter leases of the lock it waits for (acquire.lua's KEYS[1], [3] and [4])
-- ARGV[1]    new lease, ms (integer > 0), of every lease of the call; or '' when each lease
--            carries its own (the third argument below); followed by ':<p>' when the call keeps
--            p > 0 places (n = #KEYS - 3p)
-- then per lease i, two arguments (three when ARGV[1] is ''), from ARGV[2] on:
--   expected the lock value the caller last knew Redis to hold for lease i: "<owner>:<token>" or
--            "<owner>:<token>:<seq>" with a sequence number below this command's (any other text,
--            '' included, when it knows none)
--   value    "<owner>:<token>:<seq>": lease i's value with this command's sequence number (integer >= 1)
--   lease    (only when ARGV[1] is '') new lease of lease i, ms (integer > 0)
-- then per place j, two arguments:
--   owner    the waiter's owner (its member in the queue)
--   lease    its waiter lease, ms (integer > 0): the place is kept until now + this
-- Returns  {codes, micros}, and {codes, micros, places} when the call keeps places
--   codes    array, one entry per key:
--           1  renewed: the TTL is the new lease, from now
--           2  superseded: this owner holds the lock, but a renewal or extend of this lease with a
--              higher sequence number already ran, so its TTL stands and this one is dropped
--           0  absent (expired or deleted)
--          -1  held by another owner
--          -2  the key holds something that is not a Leasehold lock (another type, or a string
--              without ':'), e.g. another application's key under the prefix; left untouched
--   micros   how long this script ran, in µs, by the server's clock: os.clock() (process CPU time,
--            Redis 7.4 on) or else TIME (which advances during a script up to Redis 7.0); 0 where
--            neither can tell (Redis 7.2 and 7.3 freeze TIME for the whole script): the caller then
--            measures otherwise. It misses the server's work before the first line (receiving the
--            arguments) and after the last (sending the reply).
--   places   array, one entry per place: the token of the lock's holder (a string) when the
--            waiter's place was kept (its deadline moved to now + its waiter lease, and the queue's
--            keys made to live as long as their longest waiter lease); 0 when it was not, and the
--            waiter must ask (acquire.lua): its place is gone from either queue key (lapsed, granted
--            to it, taken out, or the key lost) or
--            the lock is free (its holder's TTL ran out, a grant lapsed, a flush), or a key holds
--            what Leasehold did not write (the ask reports it). The holder's token tells the waiter,
--            as a contended acquire's reply does, that a grant with a higher token ran after this
--            call (see acquire.lua's header).
-- Sequence numbers: every TTL-setting command of one lease (renew, extend) carries the next number,
-- and the lock value records the highest one applied ("<owner>:<token>:<seq>"). Redis applies a
-- command only if its number is higher, so the TTL in force is always that of the latest command the
-- lease sent, whatever order the commands reach Redis in (several connections, a retry after a
-- timeout, a command delayed by a pause): the engine can then never count on a TTL that a command
-- it sent later has replaced.
-- Two ways to check a lease, one result. When the key holds exactly `expected`, the value holds this
-- owner and a number below this command's (the caller vouches for that: `expected` is what one of
-- its own earlier-numbered commands left), so `value` is written as it is: one string comparison and
-- no parsing, which is most of the work per lease once the SET is paid for. Otherwise (a command
-- whose reply was lost may have run, or the lock is gone or someone else's) the full check runs: the
-- owner is the part of `value` before its first ':', its number the part after its last, and the
-- token is kept as found.
-- One foreign key must not fail the whole batch (every healthy lease of it would be declared
-- lost), so each key gets its own code, and nothing here can raise an error for a key's content.
-- Cost: the renew of a lease is one SET; its read is a share of one MGET per 1000 keys, which never
-- fails (a key of another type reads as nil; EXISTS then tells it from an absent one). With the lease
-- time given once (ARGV[1]) and the value the caller knows, a lease costs about a quarter less server
-- time than with the full check alone (SLOWLOG on redis-server 7.0, a busy two-core machine, the
-- slope from 100 to 500 leases: 2.3-2.5 µs instead of 3.1-3.8). A key given twice is checked the second time against what the
-- first wrote (the engine sends each lease once, but the order rule must hold).
-- A place costs two ZSCOREs, a GET, a ZADD, a ZRANGE and two PEXPIREs: a waiter's place is kept by
-- the watchdog's calls, a share of one call per period for any number of waiters, instead of an
-- acquire of its own.
local call, find, sub, tonumber = redis.call, string.find, string.sub, tonumber
-- rawget: reading a global Redis does not define (os before 7.4) would raise an error
local os = rawget(_G, 'os')
local clock = os and os.clock
local startedClock = clock and clock()
local startedTime = not clock and call('TIME')
local keys, argv = KEYS, ARGV
local shared = argv[1]
local places = 0
local placesSep = find(shared, ':', 1, true)
if placesSep then
  places = tonumber(sub(shared, placesSep + 1))
  shared = sub(shared, 1, placesSep - 1)
end
local n = #keys - 3 * places
local stride = shared == '' and 3 or 2
local values
if n <= 1000 then
  values = n > 0 and call('MGET', unpack(keys, 1, n)) or {}
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
local at = 2
for i = 1, n do
  local key = keys[i]
  local current = written[key] or values[i]
  local value = argv[at + 1]
  local lease = stride == 2 and shared or argv[at + 2]
  if current and current == argv[at] then -- (a string the caller sent is never nil)
    call('SET', key, value, 'PX', lease)
    written[key] = value
    result[i] = 1
  elseif not current then
    result[i] = call('EXISTS', key) == 1 and -2 or 0
  else
    local sep = find(current, ':', 1, true)
    if not sep then
      result[i] = -2
    elseif sub(current, 1, sep) ~= sub(value, 1, sep) then
      -- the part before the first ':' is not this owner
      result[i] = -1
    else
      local seqSep = find(current, ':', sep + 1, true)
      local applied = seqSep and tonumber(sub(current, seqSep + 1)) or 0
      local seq = sub(value, find(value, ':[^:]*$') + 1)
      if tonumber(seq) <= applied then
        result[i] = 2
      else
        -- "<owner>:<token>" as found, with this command's number
        local renewed = (seqSep and sub(current, 1, seqSep - 1) or current) .. ':' .. seq
        call('SET', key, renewed, 'PX', lease)
        written[key] = renewed
        result[i] = 1
      end
    end
  end
  at = at + stride
end
-- the places: each kept while it is in the queue, not lapsed, and the lock is held (by another)
local kept
if places > 0 then
  kept = {}
  local time = call('TIME')
  local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  local k = n
  for j = 1, places do
    local lockKey, queueKey, waitersKey = keys[k + 1], keys[k + 2], keys[k + 3]
    local owner, lease = argv[at], tonumber(argv[at + 1])
    kept[j] = 0
    local deadline = redis.pcall('ZSCORE', waitersKey, owner)
    local ticket = type(deadline) == 'string' and tonumber(deadline) > now and redis.pcall('ZSCORE', queueKey, owner)
    local current = type(ticket) == 'string' and redis.pcall('GET', lockKey)
    local sep = type(current) == 'string' and find(current, ':', 1, true)
    if sep then
      local rest = sub(current, sep + 1)
      local seqSep = find(rest, ':', 1, true)
      call('ZADD', waitersKey, 'XX', now + lease, owner)
      -- the keys live as long as the longest place, or this one's where a foreign member's score
      -- (inf, say) is no TTL; pcall: nothing in a key may fail the call and its leases
      local last = call('ZRANGE', waitersKey, -1, -1, 'WITHSCORES')
      local ttl = math.max(tonumber(last[2]) - now, 1)
      if ttl ~= ttl or ttl == math.huge then
        ttl = lease
      end
      redis.pcall('PEXPIRE', queueKey, ttl)
      redis.pcall('PEXPIRE', waitersKey, ttl)
      kept[j] = seqSep and sub(rest, 1, seqSep - 1) or rest
    end
    k = k + 3
    at = at + 2
  end
end
local micros
if clock then
  micros = (clock() - startedClock) * 1000000
else
  local now = call('TIME')
  micros = (now[1] - startedTime[1]) * 1000000 + (now[2] - startedTime[2])
end
if kept then
  return {result, micros, kept}
end
return {result, micros}

-- force-release: delete the lock whoever holds it (an operator's tool), and tell waiters.
-- The holder's lease is not told directly: its next renewal finds the lock gone (STOLEN).
-- KEYS[1]  lock key
-- KEYS[2]  release channel
-- ARGV[1]  publish command     'SPUBLISH' or 'PUBLISH'
-- Returns  1                   a lock was deleted
--          0                   nothing was held
if redis.call('DEL', KEYS[1]) == 0 then
  return 0
end
redis.call(ARGV[1], KEYS[2], 'released')
return 1

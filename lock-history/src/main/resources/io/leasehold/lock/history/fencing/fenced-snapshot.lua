-- fenced-snapshot: the whole state of a fenced resource (see fenced-access.lua), read atomically.
-- KEYS[1]  the resource's hash
-- KEYS[2]  the resource's log of accepted writes
-- Returns  {value, highest, seq, time, log}
--   value    the counter (string, "0" when never written)
--   highest  the highest token seen (string), or false when none
--   seq      accesses numbered so far (string, "0" when none)
--   time     the server's clock now, microseconds since the epoch (string)
--   log      the accepted writes in order, each "seq token previous value time"
local state = redis.call('HMGET', KEYS[1], 'value', 'highest', 'seq')
local now = redis.call('TIME')
local micros = now[1] .. string.format('%06d', tonumber(now[2]))
return {state[1] or '0', state[2] or false, state[3] or '0', micros, redis.call('LRANGE', KEYS[2], 0, -1)}

-- quorum-enlist: a node's standing in a quorum of independent masters (docs/design/quorum-locks.md,
-- "A node that lost its data"): whether this server process may take part in grants, and the steps
-- that bring it back after it lost its data (a restart without persistence, FLUSHALL, a failover to
-- another server). quorum-commit.lua commits only on a node whose record says it takes part.
-- KEYS[1]  quorum record   <prefix>quorum  hash, no TTL:
--                          run     the run_id of the server process the record belongs to
--                          seeded  '1' when the node takes part; '0' while it sits out or awaits its seed
--                          out     the node's time (ms) until which it sits out after a reset
--                          floor   the largest token committed here (quorum-commit.lua), never lowered
--                          lease   the quorum's largest lease, ms, as the client that joined or reset the
--                                  node was configured: quorum-commit.lua refuses a client configured
--                                  otherwise, so that no lease outlasts the delay a reset sits out
-- ARGV[1]  step            'probe'  read only
--                          'join'   a record for a node of a new quorum, taking part at once (the
--                                   caller's probes found no record on any member); only where there is
--                                   no record and the server is the process the probe answered from
--                                   (ARGV[4]): a join sent before a restart and replayed after it, or
--                                   delayed past one, does not make a wiped node take part
--                          'reset'  a node that lost its data (no record, or one of another server
--                                   process): it sits out ARGV[2] ms from now by its own clock, its floor
--                                   the largest of one that survived and ARGV[4] (the largest floor the
--                                   caller's probes read: another node may lose its data before this one
--                                   is seeded); only where it has no record of this process
--                          'seed'   the end of a reset: the floor raised to ARGV[2] (the largest floor
--                                   of the members taking part, read after the reset) and the node taking
--                                   part; only where it awaits its seed
-- ARGV[2]  join, seed: a floor, a decimal integer below 2^53 - 1; reset: the delay, ms, an integer >= 0
-- ARGV[3]  join, reset: the client's largest lease, ms, an integer > 0 (ignored by probe and seed)
-- ARGV[4]  join: the run_id the probe read; reset: a floor, a decimal integer below 2^53 - 1
-- Returns  {standing, floor, wait, lease, run, maxmemory, policy} after the step:
--            standing  0 no record; 1 a record of another server process; 2 sitting out, wait ms left;
--                      3 awaiting its seed; 4 taking part
--            floor     the record's floor, a string ('0' when none)
--            lease     the record's largest lease, a string ('0' when none)
--            run       this server process's run_id (two members answering the same one are one server)
--            maxmemory this server's maxmemory, bytes, a string (INFO memory; '' when it does not say)
--            policy    this server's maxmemory-policy, e.g. 'noeviction' ('' when INFO does not say): a
--                      server whose maxmemory is above 0 with any other policy may evict a lease key
--                      (each has a TTL, so volatile-* policies too)
--          error       "ERR ..." for an unknown step or an argument that is no such integer, or a record
--                      that Leasehold did not write; nothing is written then
local MAX = 9007199254740991
local function decimal(text)
  return text and string.match(text, '^%d+$') and tonumber(text) < MAX
end
local step = ARGV[1]
if step ~= 'probe' and step ~= 'join' and step ~= 'reset' and step ~= 'seed' then
  return redis.error_reply("ERR step must be 'probe', 'join', 'reset' or 'seed', but was '"
      .. tostring(step) .. "'")
end
if step ~= 'probe' and not decimal(ARGV[2]) then
  return redis.error_reply('ERR ' .. (step == 'reset' and 'delay' or 'floor')
      .. " must be a decimal integer below 2^53 - 1, but was '" .. tostring(ARGV[2]) .. "'")
end
if (step == 'join' or step == 'reset') and not (decimal(ARGV[3]) and tonumber(ARGV[3]) > 0) then
  return redis.error_reply("ERR largest lease must be a positive integer of ms, but was '"
      .. tostring(ARGV[3]) .. "'")
end
if step == 'reset' and not decimal(ARGV[4]) then
  return redis.error_reply("ERR floor must be a decimal integer below 2^53 - 1, but was '"
      .. tostring(ARGV[4]) .. "'")
end
local run = string.match(redis.call('INFO', 'server'), 'run_id:(%x+)')
local memory = redis.call('INFO', 'memory')
local maxmemory = string.match(memory, 'maxmemory:(%d+)') or ''
local policy = string.match(memory, 'maxmemory_policy:([%w%-]+)') or ''
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)

local function read()
  local record = redis.pcall('HMGET', KEYS[1], 'run', 'seeded', 'out', 'floor', 'lease')
  if type(record) == 'table' and record.err then
    return nil, redis.error_reply("ERR key '" .. KEYS[1] .. "' holds a value that is not a Leasehold"
        .. ' quorum record (a ' .. redis.call('TYPE', KEYS[1])['ok'] .. ', not a hash)')
  end
  local floor = record[4] or '0'
  if not decimal(floor) then
    return nil, redis.error_reply("ERR key '" .. KEYS[1] .. "' holds a quorum record whose 'floor' is"
        .. " not a decimal integer below 2^53 - 1: '" .. floor .. "'")
  end
  local lease = record[5] or '0'
  if redis.call('EXISTS', KEYS[1]) == 0 then
    return {0, floor, 0, lease, run, maxmemory, policy}
  end
  if record[1] ~= run then
    return {1, floor, 0, lease, run, maxmemory, policy}
  end
  if record[2] == '1' then
    return {4, floor, 0, lease, run, maxmemory, policy}
  end
  local out = tonumber(record[3] or '0') or 0
  if now < out then
    return {2, floor, out - now, lease, run, maxmemory, policy}
  end
  return {3, floor, 0, lease, run, maxmemory, policy}
end

local standing, failure = read()
if not standing then
  return failure
end
if step == 'join' and standing[1] == 0 and ARGV[4] == run then
  redis.call('HSET', KEYS[1], 'run', run, 'seeded', '1', 'out', '0', 'floor', ARGV[2], 'lease', ARGV[3])
elseif step == 'reset' and standing[1] <= 1 then
  local floor = tonumber(ARGV[4]) > tonumber(standing[2]) and ARGV[4] or standing[2]
  redis.call('HSET', KEYS[1], 'run', run, 'seeded', '0', 'out', tostring(now + tonumber(ARGV[2])),
      'floor', floor, 'lease', ARGV[3])
elseif step == 'seed' and standing[1] == 3 then
  if tonumber(ARGV[2]) > tonumber(standing[2]) then
    redis.call('HSET', KEYS[1], 'floor', ARGV[2])
  end
  redis.call('HSET', KEYS[1], 'seeded', '1')
else
  return standing
end
return read()

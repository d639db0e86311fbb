-- One compare-and-set of a game: the record, its log entry, the request id, a snapshot.
-- KEYS: record, log, request ids, snapshots. ARGV: expected rev, new record, entry id
-- ('' for none: a change of the metadata alone), entry, request id ('' for none), version,
-- ttl in ms (0: none), snapshot ('' for none).
-- Returns {1} written, {0} no game, {2, version} request id already applied,
-- {3, record} another write came first.
if ARGV[5] ~= '' then
  local done = redis.call('HGET', KEYS[3], ARGV[5])
  if done then return {2, tonumber(done)} end
end
local current = redis.call('GET', KEYS[1])
if not current then return {0} end
if string.match(current, '^%d+') ~= ARGV[1] then return {3, current} end
local ttl = tonumber(ARGV[7])
if ttl > 0 then redis.call('SET', KEYS[1], ARGV[2], 'PX', ttl)
else redis.call('SET', KEYS[1], ARGV[2]) end
if ARGV[3] ~= '' then redis.call('XADD', KEYS[2], ARGV[3], 'd', ARGV[4]) end
local version = tonumber(ARGV[6])
if ARGV[5] ~= '' then
  redis.call('HSET', KEYS[3], ARGV[5], version)
  -- Request ids are kept for the last 64 moves at least: a retry comes within seconds.
  -- Pruned every 64 versions, so the hash stays small (and compactly encoded).
  if version % 64 == 0 then
    local ids = redis.call('HGETALL', KEYS[3])
    for i = 1, #ids, 2 do
      if tonumber(ids[i + 1]) <= version - 64 then redis.call('HDEL', KEYS[3], ids[i]) end
    end
  end
end
if ARGV[8] ~= '' then redis.call('HSET', KEYS[4], ARGV[6], ARGV[8]) end
for i = 2, 4 do
  if ttl > 0 then redis.call('PEXPIRE', KEYS[i], ttl) else redis.call('PERSIST', KEYS[i]) end
end
-- Wakes this game's watchers on every worker (the channel is the record's key).
redis.call('PUBLISH', KEYS[1], ARGV[6])
return {1}

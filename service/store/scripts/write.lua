-- KEYS: record, log, requests. ARGV: expected rev, new record, entry id, entry,
-- request id ('' for none), version, ttl in ms (0: none).
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
redis.call('XADD', KEYS[2], ARGV[3], 'd', ARGV[4])
if ARGV[5] ~= '' then redis.call('HSET', KEYS[3], ARGV[5], ARGV[6]) end
for i = 2, 3 do
  if ttl > 0 then redis.call('PEXPIRE', KEYS[i], ttl) else redis.call('PERSIST', KEYS[i]) end
end
return {1}

-- Counts a game an address creates against its quotas, all workers together.
-- KEYS: the address's waiting games (a sorted set: game id -> when it expires),
-- its creations this minute. ARGV: now (ms), game id, expiry (ms), cost, creations a
-- minute at most (0: no limit), waiting games at most (0: no limit).
-- Returns 'ok', 'rate' or 'waiting'.
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local waiting_cap = tonumber(ARGV[6])
if waiting_cap > 0 and redis.call('ZCARD', KEYS[1]) >= waiting_cap then return 'waiting' end
local per_minute = tonumber(ARGV[5])
local cost = tonumber(ARGV[4])
if per_minute > 0 then
  local created = tonumber(redis.call('GET', KEYS[2]) or '0')
  if created + cost > per_minute then return 'rate' end
end
redis.call('INCRBY', KEYS[2], cost)
redis.call('PEXPIRE', KEYS[2], 120000)
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[2])
redis.call('PEXPIREAT', KEYS[1], redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')[2])
return 'ok'

-- KEYS: a player's live games, finished games, their summaries.
-- ARGV: game id, when it finished, its summary, how many finished games to keep, ttl in ms.
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[3])
local old = redis.call('ZRANGE', KEYS[2], 0, -tonumber(ARGV[4]) - 1)
if #old > 0 then
  redis.call('ZREM', KEYS[2], unpack(old))
  redis.call('HDEL', KEYS[3], unpack(old))
end
for i = 2, 3 do redis.call('PEXPIRE', KEYS[i], ARGV[5]) end
return 1

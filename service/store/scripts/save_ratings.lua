-- Applies one game's rating updates once, and only over the ratings they were computed from.
-- KEYS: the kind's ratings (hash), its leaderboard (sorted set), the game's done mark.
-- ARGV: the mark's TTL (ms), then per player: id, rating read ('' none), new rating,
--       leaderboard score, '1' if listed.
if redis.call('EXISTS', KEYS[3]) == 1 then return 'done' end
for b = 2, #ARGV, 5 do
  if (redis.call('HGET', KEYS[1], ARGV[b]) or '') ~= ARGV[b + 1] then return 'conflict' end
end
for b = 2, #ARGV, 5 do
  redis.call('HSET', KEYS[1], ARGV[b], ARGV[b + 2])
  if ARGV[b + 4] == '1' then
    redis.call('ZADD', KEYS[2], ARGV[b + 3], ARGV[b])
  else
    redis.call('ZREM', KEYS[2], ARGV[b])
  end
end
redis.call('SET', KEYS[3], '1', 'PX', ARGV[1])
return 'ok'

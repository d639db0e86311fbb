-- KEYS: a player's events (id -> number), their data (id -> data), the last number.
-- ARGV: how many to keep, ttl in ms, the channel that wakes the player's watchers, then
-- pairs of event id and data. Adds each event not there yet; returns how many were new.
local added = 0
local last = 0
for i = 4, #ARGV, 2 do
  if not redis.call('ZSCORE', KEYS[1], ARGV[i]) then
    last = redis.call('INCR', KEYS[3])
    redis.call('ZADD', KEYS[1], last, ARGV[i])
    redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1])
    added = added + 1
  end
end
if added == 0 then return 0 end
local old = redis.call('ZRANGE', KEYS[1], 0, -tonumber(ARGV[1]) - 1)
if #old > 0 then
  redis.call('ZREM', KEYS[1], unpack(old))
  redis.call('HDEL', KEYS[2], unpack(old))
end
for i = 1, 3 do redis.call('PEXPIRE', KEYS[i], ARGV[2]) end
redis.call('PUBLISH', ARGV[3], last)
return added

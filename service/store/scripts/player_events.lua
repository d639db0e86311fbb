-- KEYS: a player's events (id -> number), their data. ARGV: after this number, how many.
-- Returns number, data, number, data, ... oldest first.
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. ARGV[1], '+inf', 'WITHSCORES', 'LIMIT', 0, ARGV[2])
local found = {}
for i = 1, #ids, 2 do
  found[#found + 1] = ids[i + 1]
  found[#found + 1] = redis.call('HGET', KEYS[2], ids[i])
end
return found

-- Opens a matchmaking ticket, unless the player has one waiting for the kind already.
-- KEYS: the player's index (kind -> ticket), the ticket, its pool, the set of pools.
-- ARGV: ticket id, player, kind, pool, data, most tickets a player may have waiting,
--       the ticket's TTL (ms), when it was opened.
local prefix = 'genial:{mm}:t:'
local open = redis.call('HGET', KEYS[1], ARGV[3])
if open then
  if redis.call('HGET', prefix .. open, 's') == 'waiting' then return {open, 'exists'} end
  redis.call('HDEL', KEYS[1], ARGV[3])
end
if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[6]) then return {'', 'full'} end
redis.call('HSET', KEYS[2], 'd', ARGV[5], 's', 'waiting', 'p', ARGV[2], 'k', ARGV[3], 'o', ARGV[4])
redis.call('PEXPIRE', KEYS[2], ARGV[7])
redis.call('HSET', KEYS[1], ARGV[3], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[7])
redis.call('ZADD', KEYS[3], ARGV[8], ARGV[1])
redis.call('SADD', KEYS[4], ARGV[4])
return {ARGV[1], 'ok'}

-- Withdraws a waiting ticket. KEYS: the ticket. ARGV: its id.
-- Returns the ticket's fields after: data, status, game, seat (nil: no such ticket).
local t = KEYS[1]
local found = redis.call('HMGET', t, 'd', 's', 'g', 'n', 'p', 'k')
if not found[1] then return nil end
if found[2] == 'waiting' then
  redis.call('HSET', t, 's', 'cancelled')
  local index = 'genial:{mm}:player:' .. found[5]
  if redis.call('HGET', index, found[6]) == ARGV[1] then redis.call('HDEL', index, found[6]) end
  redis.call('ZREM', 'genial:{mm}:pool:' .. redis.call('HGET', t, 'o'), ARGV[1])
  found[2] = 'cancelled'
end
return {found[1], found[2], found[3] or '', found[4] or '0'}

-- Expires tickets and commits matches, each only if all its tickets still wait: a ticket is
-- matched once, whatever how many workers propose matches at once.
-- KEYS: the pool, the set of pools, the matches due.
-- ARGV: pool, due, TTL (ms), n expired, the expired tickets..., then per match:
--       game id, spec, n seats, then n pairs (ticket, seat).
local prefix = 'genial:{mm}:'

local function leave(t, status, extra)
  local key = prefix .. 't:' .. t
  local player, kind = unpack(redis.call('HMGET', key, 'p', 'k'))
  redis.call('HSET', key, 's', status, unpack(extra))
  local index = prefix .. 'player:' .. player
  if redis.call('HGET', index, kind) == t then redis.call('HDEL', index, kind) end
  redis.call('ZREM', KEYS[1], t)
end

local i = 4
for _ = 1, tonumber(ARGV[i]) do
  i = i + 1
  if redis.call('HGET', prefix .. 't:' .. ARGV[i], 's') == 'waiting' then
    leave(ARGV[i], 'expired', {})
  else
    redis.call('ZREM', KEYS[1], ARGV[i])
  end
end
i = i + 1
local done = {}
while i <= #ARGV do
  local game, spec, n = ARGV[i], ARGV[i + 1], tonumber(ARGV[i + 2])
  i = i + 3
  local free = true
  for k = 0, n - 1 do
    if redis.call('HGET', prefix .. 't:' .. ARGV[i + 2 * k], 's') ~= 'waiting' then
      free = false
    end
  end
  if free then
    for k = 0, n - 1 do
      leave(ARGV[i + 2 * k], 'matched', {'g', game, 'n', ARGV[i + 2 * k + 1]})
      redis.call('PEXPIRE', prefix .. 't:' .. ARGV[i + 2 * k], ARGV[3])
    end
    redis.call('SET', prefix .. 'm:' .. game, spec, 'PX', ARGV[3])
    redis.call('ZADD', KEYS[3], ARGV[2], game)
    done[#done + 1] = game
  end
  i = i + 2 * n
end
if redis.call('ZCARD', KEYS[1]) == 0 then redis.call('SREM', KEYS[2], ARGV[1]) end
return done

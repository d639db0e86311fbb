-- Queue webhook notifications. Every outbox key shares the hash tag {wh} (one slot).
-- KEYS: the ready stream, the count of notifications queued, the lanes' heads (lane ->
-- when its first notification was queued). ARGV: the key prefix, now (ms), the coalescing
-- window (ms), how long ids are remembered (ms), then quadruples of id, lane, coalescing
-- key ('' for none), item. A lane's list holds "<queued ms> <item>"; a lane that was empty
-- gets its turn in the ready stream. Returns how many were queued.
local prefix, now = ARGV[1], ARGV[2]
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('XGROUP', 'CREATE', KEYS[1], 'deliver', '0', 'MKSTREAM')
end
local queued = 0
for i = 5, #ARGV, 4 do
  local id, lane, key, item = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3]
  if redis.call('SET', prefix .. 'seen:' .. id, 1, 'NX', 'PX', ARGV[4]) and (key == ''
      or redis.call('SET', prefix .. 'co:' .. key, 1, 'NX', 'PX', ARGV[3])) then
    if redis.call('RPUSH', prefix .. 'lane:' .. lane, now .. ' ' .. item) == 1 then
      redis.call('ZADD', KEYS[3], now, lane)
      redis.call('XADD', KEYS[1], '*', 'l', lane)
    end
    redis.call('INCR', KEYS[2])
    queued = queued + 1
  end
end
return queued

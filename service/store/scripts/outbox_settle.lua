-- Settle a delivery: delivered, retry later, or dead-lettered (any other outcome).
-- KEYS: the ready stream, the lanes waiting for a retry, the count queued, the lanes'
-- heads, the failed attempts by lane, the dead letters. ARGV: the key prefix, the
-- consumer, the ready entry's id, the lane, its first notification as stored, the outcome,
-- now (ms), when to retry (ms). Returns 0 (nothing done) if the entry is no longer this
-- consumer's: another took it after the visibility timeout.
local pending = redis.call('XPENDING', KEYS[1], 'deliver', ARGV[3], ARGV[3], 1)
if #pending == 0 or pending[1][2] ~= ARGV[2] then return 0 end
redis.call('XACK', KEYS[1], 'deliver', ARGV[3])
redis.call('XDEL', KEYS[1], ARGV[3])
local lane = ARGV[4]
local list = ARGV[1] .. 'lane:' .. lane
if redis.call('LINDEX', list, 0) ~= ARGV[5] then
  -- Not the notification delivered (never expected): the lane keeps a turn all the same.
  if redis.call('LLEN', list) > 0 then redis.call('XADD', KEYS[1], '*', 'l', lane) end
  return 0
end
if ARGV[6] == 'retry' then
  redis.call('HINCRBY', KEYS[5], lane, 1)
  redis.call('ZADD', KEYS[2], ARGV[8], lane)
  return 1
end
redis.call('LPOP', list)
redis.call('HDEL', KEYS[5], lane)
redis.call('DECR', KEYS[3])
if ARGV[6] ~= 'delivered' then
  redis.call('XADD', KEYS[6], '*', 'l', lane, 'd', ARGV[5], 'why', ARGV[6], 'at', ARGV[7])
end
local after = redis.call('LINDEX', list, 0)
if after then
  redis.call('ZADD', KEYS[4], string.match(after, '^%d+'), lane)
  redis.call('XADD', KEYS[1], '*', 'l', lane)
else
  redis.call('ZREM', KEYS[4], lane)
end
return 1

-- Take lanes' first notifications for delivery (consumer group "deliver").
-- KEYS: the ready stream, the lanes waiting for a retry (lane -> when). ARGV: the key
-- prefix, the consumer, how many, now (ms), the visibility timeout (ms).
-- Returns quadruples: the ready entry's id, the lane, its first notification as stored,
-- the failed attempts at it.
local prefix, consumer, count = ARGV[1], ARGV[2], tonumber(ARGV[3])
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('XGROUP', 'CREATE', KEYS[1], 'deliver', '0', 'MKSTREAM')
end
for _, lane in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[4], 'LIMIT', 0, count)) do
  redis.call('ZREM', KEYS[2], lane)
  redis.call('XADD', KEYS[1], '*', 'l', lane)
end
-- Lanes a consumer took and did not settle in time: it died, another takes them.
local found = redis.call('XAUTOCLAIM', KEYS[1], 'deliver', consumer, ARGV[5], '0-0',
  'COUNT', count)[2]
if #found < count then
  local read = redis.call('XREADGROUP', 'GROUP', 'deliver', consumer, 'COUNT',
    count - #found, 'STREAMS', KEYS[1], '>')
  if read then
    for _, entry in ipairs(read[1][2]) do table.insert(found, entry) end
  end
end
local taken = {}
for _, entry in ipairs(found) do
  local lane = entry[2] and entry[2][2]
  local head = lane and redis.call('LINDEX', prefix .. 'lane:' .. lane, 0)
  if head then
    local tries = redis.call('HGET', prefix .. 'tries', lane) or '0'
    for _, v in ipairs({entry[1], lane, head, tries}) do table.insert(taken, v) end
  else
    redis.call('XACK', KEYS[1], 'deliver', entry[1])
    redis.call('XDEL', KEYS[1], entry[1])
  end
end
return taken

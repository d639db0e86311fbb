-- Queue dead letters again, at the end of their lanes, as if queued now.
-- KEYS: the ready stream, the count queued, the lanes' heads, the dead letters.
-- ARGV: the key prefix, now (ms), then the dead letters' ids. Returns how many were found.
local prefix, now = ARGV[1], ARGV[2]
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('XGROUP', 'CREATE', KEYS[1], 'deliver', '0', 'MKSTREAM')
end
local found = 0
for i = 3, #ARGV do
  local rows = redis.call('XRANGE', KEYS[4], ARGV[i], ARGV[i])
  if #rows == 1 then
    local fields = {}
    for j = 1, #rows[1][2], 2 do fields[rows[1][2][j]] = rows[1][2][j + 1] end
    local item = string.match(fields['d'], '^%d+ (.*)$')
    local lane = fields['l']
    if redis.call('RPUSH', prefix .. 'lane:' .. lane, now .. ' ' .. item) == 1 then
      redis.call('ZADD', KEYS[3], now, lane)
      redis.call('XADD', KEYS[1], '*', 'l', lane)
    end
    redis.call('INCR', KEYS[2])
    redis.call('XDEL', KEYS[4], ARGV[i])
    found = found + 1
  end
end
return found

-- KEYS: record, log. ARGV: record, ttl in ms, then an id and data per log entry.
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
if tonumber(ARGV[2]) > 0 then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
else redis.call('SET', KEYS[1], ARGV[1]) end
for i = 3, #ARGV, 2 do redis.call('XADD', KEYS[2], ARGV[i], 'd', ARGV[i + 1]) end
if #ARGV > 2 and tonumber(ARGV[2]) > 0 then redis.call('PEXPIRE', KEYS[2], ARGV[2]) end
return 1

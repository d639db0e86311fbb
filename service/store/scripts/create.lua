-- KEYS: record, log. ARGV: record, ttl in ms, entry id ('' for none), entry.
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
if tonumber(ARGV[2]) > 0 then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
else redis.call('SET', KEYS[1], ARGV[1]) end
if ARGV[3] ~= '' then
  redis.call('XADD', KEYS[2], ARGV[3], 'd', ARGV[4])
  if tonumber(ARGV[2]) > 0 then redis.call('PEXPIRE', KEYS[2], ARGV[2]) end
end
return 1

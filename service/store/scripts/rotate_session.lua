-- KEYS: the session. ARGV: generation, digest of its refresh token, the next one's digest,
-- ttl in ms. Returns ok, reused (an earlier generation: the session is revoked), revoked
-- or unknown.
local session = redis.call('HMGET', KEYS[1], 'g', 'h', 'r')
if not session[1] then return 'unknown' end
if session[3] then return 'revoked' end
if session[1] ~= ARGV[1] or session[2] ~= ARGV[2] then
  redis.call('HSET', KEYS[1], 'r', '1')
  return 'reused'
end
redis.call('HSET', KEYS[1], 'g', tonumber(ARGV[1]) + 1, 'h', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 'ok'

-- KEYS: a game's follow-up mark. ARGV: its rev, the mark, ttl in ms.
-- Sets the mark unless one of a later rev is there.
local current = redis.call('GET', KEYS[1])
if current and tonumber(string.match(current, '^%d+')) >= tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1

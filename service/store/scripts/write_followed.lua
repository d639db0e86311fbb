-- A write with its whole follow-up, made together (`InlineFollowUp`): write.lua as
-- `write_game`, followed.lua as `set_mark` and add_player_events.lua as `add_events` are
-- defined above this text, each taking its own KEYS and ARGV.
-- KEYS: write.lua's 4, the game's follow-up mark, then 3 a player (add_player_events.lua's).
-- ARGV: write.lua's 8, the rev the mark must be at, the new mark's rev, the mark, its ttl
-- in ms, how many events are kept, their ttl in ms, then a player at a time: the channel
-- that wakes its watchers, its number of events, then their id and data pairs.
-- Returns write.lua's reply, or {4} (nothing written) if the mark is not at its rev.
local mark = redis.call('GET', KEYS[5])
if not mark or string.match(mark, '^%d+') ~= ARGV[9] then return {4} end
local reply = write_game({KEYS[1], KEYS[2], KEYS[3], KEYS[4]},
  {ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8]})
if reply[1] ~= 1 then return reply end
set_mark({KEYS[5]}, {ARGV[10], ARGV[11], ARGV[12]})
local at = 15
local key = 6
while at <= #ARGV do
  local n = tonumber(ARGV[at + 1])
  local args = {ARGV[13], ARGV[14], ARGV[at]}
  for i = at + 2, at + 1 + 2 * n do args[#args + 1] = ARGV[i] end
  add_events({KEYS[key], KEYS[key + 1], KEYS[key + 2]}, args)
  at = at + 2 + 2 * n
  key = key + 3
end
return reply

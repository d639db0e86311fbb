"""Players: sessions and the tokens that prove them, profiles, the games of a player, the
player's event feed, and leaving or replaying a game."""

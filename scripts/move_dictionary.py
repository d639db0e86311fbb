"""Writes a vocabulary for the compact move log (service/log_entries.py): for each game, the
moves random games play most often, as canonical JSON (sorted keys, no spaces). The log
stores a move that is in the vocabulary as its index, any other as its JSON.

A vocabulary is frozen once written: stored moves can only be read back with the one they
were written with. A better one is a new version (a new file and a new version byte in
`log_entries`), never an edit.

    python scripts/move_dictionary.py service/data/moves-v1.json
"""

from __future__ import annotations

import json
import random
import sys
from collections import Counter

from genial import engine

GAMES_PER_SEATS = 40
MOVES_KEPT = 250
"""Distinct moves a vocabulary keeps per game: two bytes of index reach them all."""


def common_moves(kind: str) -> list[str]:
    counts: Counter[str] = Counter()
    for seats in (2, 3, 4):
        for n in range(GAMES_PER_SEATS):
            rnd = random.Random(f"{kind}-{seats}-{n}")
            game = engine.new_game(kind, seats, rnd.randbytes(16))
            while not game.is_over():
                move = rnd.choice(game.legal_moves())
                counts[json.dumps(move, separators=(",", ":"), sort_keys=True)] += 1
                assert game.to_move is not None
                game, _ = game.apply(game.to_move, move)
    # The most common first: they get the one-byte indexes.
    return [move for move, _ in counts.most_common(MOVES_KEPT)]


def main(path: str) -> int:
    dictionary = {kind: common_moves(kind) for kind in sorted(engine.GAMES)}
    with open(path, "w") as out:
        json.dump(dictionary, out, indent=1)
        out.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))

"""Trains the zstd dictionary that game records are compressed with in Redis
(service/store/record_codec.py): on records as the service writes them (the metadata, then
the engine's state) taken along random games of every kind and seat count, with the
metadata of seats taken by named players, bots and bot accounts, turn timers and rated
games in their usual proportions.

A dictionary is frozen once written: stored records can only be read back with the one
they were written with. A better one is a new file and a new codec in `record_codec`,
never an edit.

    python scripts/record_dictionary.py service/data/records-v1.zdict
"""

from __future__ import annotations

import base64
import random
import sys

import zstandard

from genial import engine
from genial.service import records
from genial.service.credentials import token_digest

DICTIONARY_BYTES = 16 * 1024
GAMES_PER_SEATS = 40
SAMPLES_PER_GAME = 4
NAMES = ["Ada", "Grace", "Jürgen", "Lena M.", "Player 7", "greedy bot", "strong bot", "Zoë"]


def token(rnd: random.Random, length: int) -> str:
    return base64.urlsafe_b64encode(rnd.randbytes(length)).rstrip(b"=").decode()


def meta_of(rnd: random.Random, kind: str, seats: int) -> records.GameMeta:
    bots = [
        rnd.choice(["greedy", "strong", "random"]) if rnd.random() < 0.2 else None
        for _ in range(seats)
    ]
    players = [token(rnd, 12) for _ in range(seats)] if rnd.random() < 0.5 else []
    timed = rnd.random() < 0.3
    return records.GameMeta(
        kind=kind,
        seats=seats,
        created=round(1.8e9 + rnd.random() * 1e7, 3),
        names=[f"{b} bot" if b else rnd.choice(NAMES) for b in bots],
        tokens=[None if b else token_digest(token(rnd, 32)) for b in bots],
        bots=bots,
        away=[False] * seats,
        turn_seconds=rnd.choice([30, 60, 300]) if timed else None,
        turn_started=round(1.8e9 + rnd.random() * 1e7, 3) if timed else 0.0,
        players=players,
        bot_accounts=[rnd.random() < 0.1 for _ in range(seats)] if players else [],
        rated=bool(players) and rnd.random() < 0.5,
    )


def samples() -> list[bytes]:
    """Records along random games, as `pack` gets them: the metadata, then the state."""
    found = []
    for kind in sorted(engine.GAMES):
        for seats in (2, 3, 4):
            for n in range(GAMES_PER_SEATS):
                rnd = random.Random(f"{kind}-{seats}-{n}")
                meta = records.encode_meta(meta_of(rnd, kind, seats))
                game = engine.new_game(kind, seats, rnd.randbytes(16))
                states = [game]
                while not game.is_over():
                    assert game.to_move is not None
                    game, _ = game.apply(game.to_move, rnd.choice(game.legal_moves()))
                    states.append(game)
                for state in rnd.sample(states, min(SAMPLES_PER_GAME, len(states))):
                    found.append(meta + records.encode_state(state))
    return found


def main(path: str) -> int:
    # k and d given (not searched for), and one thread: the same samples give the same bytes.
    trained = zstandard.train_dictionary(DICTIONARY_BYTES, samples(), k=256, d=8, threads=1)
    with open(path, "wb") as out:
        out.write(trained.as_bytes())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))

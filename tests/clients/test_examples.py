"""The Python SDK's first-game example (what clients/README.md runs) against a real server."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "clients/python/examples/first_move.py"


def test_the_first_game_example_runs(target: str) -> None:
    done = subprocess.run(
        [sys.executable, str(EXAMPLE)],
        env={**os.environ, "GENIAL_TARGET": target},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert "you are seat 0" in done.stdout
    assert "seat 1: rank " in done.stdout


BOT = EXAMPLE.parent / "bot.py"


def test_the_external_bot_example_plays_a_full_game(target: str) -> None:
    for kind in ("cards", "dice", "tiles"):
        done = subprocess.run(
            [sys.executable, str(BOT), "--target", target, "--create", kind, "--seats", "3"],
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        assert "joined " in done.stdout
        assert done.stdout.strip().endswith("game over")
        assert done.stdout.count(": rank ") == 3

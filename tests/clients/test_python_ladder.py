"""`genial ladder` against a real worker: the built-in bots play rated games over the SDK,
and the command prints each kind's ratings and whether the strengths are told apart."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from genial.client.ladder import verdicts
from genial.v1 import match_service_pb2 as mm


def rating(mu: float, sigma: float) -> mm.Rating:
    return mm.Rating(mu=mu, sigma=sigma)


def test_the_verdicts_compare_each_strength_with_the_next() -> None:
    ratings = {
        "strong": rating(36.0, 3.0),
        "greedy": rating(29.0, 3.0),
        "random": rating(27.0, 6.0),
    }
    assert verdicts(["strong", "greedy", "random"], ratings) == [
        "strong - greedy: mu +7.00, uncertainty 6.00 (sigma + sigma): apart",
        "greedy - random: mu +2.00, uncertainty 9.00 (sigma + sigma): in order, not apart yet",
    ]
    assert verdicts(["random", "strong"], ratings)[0].endswith("out of order")
    # A strength without a rated game of the kind has nothing to compare.
    assert verdicts(["strong", "absent", "greedy"], ratings) == []


def test_the_ladder_command_rates_the_built_in_bots(target: str) -> None:
    done = subprocess.run(
        [
            *(sys.executable, "-m", "genial.service.cli", "ladder", "--target", target),
            *("--bots", "greedy,random", "--kinds", "dice", "--games-per-bot", "2"),
        ],
        env=os.environ,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    lines = done.stdout.splitlines()
    assert re.fullmatch(r"ladder \w+: 2 bots, \d+ s", lines[0])
    assert lines[1] == "dice"
    rows = [
        re.fullmatch(
            r"  \d\. (\w+) bot +mu +[\d.-]+ ± [\d.]+ +shown +[\d.-]+ +\((\d+) games\)", line
        )
        for line in lines[2:4]
    ]
    assert all(rows), lines
    assert {row.group(1) for row in rows if row} == {"greedy", "random"}
    assert all(int(row.group(2)) >= 1 for row in rows if row)
    assert lines[4].startswith("  greedy - random: mu ")

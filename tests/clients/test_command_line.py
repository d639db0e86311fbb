"""The `genial` command line: `genial --help`, and every subcommand's --help."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from genial.service.cli import build_parser, main

GENIAL = Path(sys.executable).with_name("genial")
"""The installed entry point."""


def subcommands() -> list[str]:
    """Every subcommand the parser has, so that a new one is covered too."""
    (commands,) = (
        action
        for action in build_parser()._actions  # argparse lists subcommands nowhere public
        if isinstance(action, argparse._SubParsersAction)
    )
    return sorted(commands.choices)


def test_the_subcommands_are_found() -> None:
    assert {"demo", "arena", "serve", "play"} <= set(subcommands())


def test_genial_help_runs() -> None:
    done = subprocess.run(
        [GENIAL, "--help"], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: genial")
    for command in subcommands():
        assert command in done.stdout


@pytest.mark.parametrize("command", subcommands())
def test_every_subcommand_has_its_help(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main([command, "--help"])
    assert exited.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: genial {command}")
    assert "options:" in out

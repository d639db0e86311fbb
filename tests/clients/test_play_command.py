"""`genial play`'s command line: without Textual, with arguments that do not fit together,
and coming back to a kept seat."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from genial.client.play.command import Game, game_of
from genial.client.play.seats import KeptSeat, SeatBook
from genial.service.cli import build_parser

WITHOUT_TEXTUAL = """
import sys
# As if the play extra were not installed: importing either raises ModuleNotFoundError.
sys.modules["textual"] = sys.modules["rich"] = None
from genial.service.cli import main
sys.exit(main(sys.argv[1:]))
"""


def genial_without_textual(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", WITHOUT_TEXTUAL, *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_genial_works_without_textual() -> None:
    for args in (["--help"], ["play", "--help"], ["demo", "--seed", "1"]):
        done = genial_without_textual(*args)
        assert done.returncode == 0, done.stderr


def test_play_without_textual_says_which_extra_to_install() -> None:
    done = genial_without_textual("play", "cards", "--bots", "1")
    assert done.returncode == 1
    assert "genial play needs Textual" in done.stderr
    assert "pip install 'genial[play]'" in done.stderr
    assert "'genial-client[play]'" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("args", "error"),
    [
        ([], "name a game to create (cards, dice, tiles), or --join one, or --resume"),
        (["cards", "--join", "g"], "name a game to create"),
        (["--join", "g", "--resume", "h"], "name a game to create"),
        (["cards", "--token", "t"], "--token needs --resume GAME_ID"),
        (["--resume", "--token", "t"], "--token needs --resume GAME_ID"),
        (["cards", "--seat", "1"], "--seat goes with --join"),
        (["--resume", "g", "--no-guest"], "no seat of game g is kept in"),
        (["--resume", "--no-guest"], "no seat of any game is kept in"),
    ],
)
def test_play_arguments_that_do_not_fit_are_refused(
    tmp_path: Path, args: list[str], error: str
) -> None:
    book = SeatBook(tmp_path / "seats.json")
    with pytest.raises(SystemExit, match=r"^genial play: ") as exited:
        game_of(build_parser().parse_args(["play", *args]), book)
    assert error in str(exited.value.code)


def test_resume_finds_the_kept_seat_of_a_game_or_the_newest(tmp_path: Path) -> None:
    book = SeatBook(tmp_path / "state" / "seats.json")
    first = KeptSeat("localhost:50051", "game1", 0, "token1", "Ada")
    second = KeptSeat("example:1234", "game2", 2, "token2", "Ada")
    book.keep(first)
    book.keep(second)
    assert book.path.stat().st_mode & 0o777 == 0o600, "tokens must be the user's alone"

    def resumed(*args: str) -> tuple[str, str | None, str | None]:
        target, game = game_of(build_parser().parse_args(["play", "--resume", *args]), book)
        return target, game.resume, game.token

    assert resumed() == ("example:1234", "game2", "token2")
    assert resumed("game1") == ("localhost:50051", "game1", "token1")
    assert resumed("--target", "localhost:50051") == ("localhost:50051", "game1", "token1")
    assert resumed("game9", "--token", "t") == ("localhost:50051", "game9", "t")
    book.keep(first)  # kept again: now the newest, and still only once
    assert [s.game_id for s in book.seats()] == ["game2", "game1"]
    book.forget("example:1234", "game2")
    assert book.seats() == [first]


def test_a_guest_resumes_by_its_device_id_kept_for_the_user_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    book = SeatBook(tmp_path / "seats.json")
    _, game = game_of(build_parser().parse_args(["play", "--resume"]), book)
    path = tmp_path / "config" / "genial" / "device-id"
    assert game == Game(resume="", device_id=path.read_text())
    assert path.stat().st_mode & 0o777 == 0o600, "the guest's credential is the user's alone"
    _, again = game_of(build_parser().parse_args(["play", "dice", "--bots", "1"]), book)
    assert again.device_id == game.device_id, "the same device id on every run"
    _, seat_tokens = game_of(build_parser().parse_args(["play", "dice", "--no-guest"]), book)
    assert seat_tokens.device_id is None

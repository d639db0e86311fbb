"""`genial play` driven through its keys and its screen (Textual's pilot), against a real
server and the service's bots."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from rich.text import Text
from textual.geometry import Region
from textual.pilot import Pilot
from textual.widgets import RichLog, Static

from genial.client import Kind
from genial.client.play.app import PlayApp
from genial.client.play.command import Game, game_of
from genial.client.play.mine import my_games
from genial.client.play.seats import KeptSeat, SeatBook, default_path
from genial.service.cli import build_parser


@pytest.fixture
def book(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SeatBook:
    """The kept seats, in a state folder of the test's own."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    return SeatBook(default_path())


def said(app: PlayApp, selector: str) -> str:
    """The text a Static was last given (the status, the moves), as plain text: read before
    the screen is laid out anew, which is what its drawing waits for."""
    content = app.query_one(selector, Static).content
    return content.plain if isinstance(content, Text) else str(content)


def screen(app: PlayApp, selector: str) -> str:
    """What a widget shows, as plain text."""
    widget = app.query_one(selector)
    width, height = widget.size
    lines = widget.render_lines(Region(0, 0, width, height))
    return "\n".join(line.text.rstrip() for line in lines).strip()


def words(text: str) -> str:
    """Text as one line, every run of spaces one space: what the screen says, however it
    wrapped."""
    return " ".join(text.split())


def log_text(app: PlayApp) -> str:
    """Everything the log holds, scrolled out of sight or not, as one line."""
    return words(" ".join(strip.text for strip in app.query_one("#log", RichLog).lines))


async def wait_for_change(pilot: Pilot[None], app: PlayApp, before: str, seconds: float) -> str:
    deadline = time.monotonic() + seconds
    while (now := said(app, "#status")) == before:
        assert time.monotonic() < deadline, f"the screen stayed at {before!r}"
        await pilot.pause(0.01)
    return now


async def play_turns(pilot: Pilot[None], app: PlayApp, turns: int | None, key: int = 0) -> str:
    """Press the key of the move at `key` in the list (0: the first, -1: the last) on each of
    our turns, `turns` times or until the game is over; the status at the end."""
    status = said(app, "#status")
    deadline = time.monotonic() + 90
    pressed = 0
    while not status.startswith("Game over") and pressed != turns:
        assert time.monotonic() < deadline, "the game did not end"
        if "your turn" in status:
            listed = re.findall(r"^\[(\w)\] ", said(app, "#moves"), re.MULTILINE)
            await pilot.press(listed[key])
            pressed += 1
        status = await wait_for_change(pilot, app, status, 20)
    return status


async def first_turn(pilot: Pilot[None], app: PlayApp, book: SeatBook | None) -> str:
    """Wait for our first turn; check the moves on offer and the way back to the seat."""
    status = await wait_for_change(pilot, app, "", 20)
    while "your turn" not in status:
        status = await wait_for_change(pilot, app, status, 20)
    kind = app.view.WhichOneof("table")
    assert kind is not None
    assert re.match(MOVES[kind], said(app, "#moves"))
    assert app.seat is not None
    if book is not None:
        assert book.find(app.seat.game_id) is not None, "the seat was not kept"
        assert f"genial play --resume {app.seat.game_id}" in words(status)
    return status


EVENTS: dict[Kind, list[str]] = {
    "cards": [
        r"Round 1 dealt; Ada plays first\. Open cards: Ada [RGBOYP ]+, random bot",
        r"Ada plays \w+/\w+, \w+ first: \+\d+ \w+ \(to \d+(, lost \d+ [\w ]+)?\), \+\d+ \w+",
        r"Ada draws 1 card",
    ],
    "dice": [
        r"Ada rolls( again:)? [RGBOYP ]+ \(\d rerolls? left\)",
        r"Ada scores (nothing|\+\d+ \w+)",
    ],
    "tiles": [
        r"Round 1: Ada moves first\. Centre: [RGBOYP ]+",
        r"Ada reveals [RGBOYP] (red|green|blue|orange|yellow|purple): ",
        r"Ada's turn ends",
    ],
}
"""What the log says of the game's own events, in words."""
MOVES: dict[Kind, str] = {
    "cards": r"\[1\] (play \w+/\w+, \w+ first|swap the hand|keep the hand)",
    "dice": r"\[1\] (roll the dice|score|roll all your dice again)",
    "tiles": r"\[1\] (reveal a tile|take the zone|take one \w+ from the centre)",
}


@pytest.mark.parametrize("kind", ["cards", "tiles"])
async def test_a_person_plays_a_whole_game_against_a_bot(
    target: str, book: SeatBook, kind: Kind
) -> None:
    app = PlayApp(target, Game(kind, bots=1, strength="random", name="Ada"), book)
    async with app.run_test(size=(160, 50)) as pilot:
        await first_turn(pilot, app, book)
        status = await play_turns(pilot, app, None)
        await pilot.pause()
        table, log = screen(app, "#table"), log_text(app)
        assert "Ada (you)" in table
        assert "random bot" in table
        for pattern in EVENTS[kind]:
            assert re.search(pattern, log), f"no {pattern!r} in the log:\n{log}"
        assert re.search(r"Game over: 1\. (Ada|random bot) \(\d+ VP\)", log)
        assert "--resume" not in words(status), "a game that is over has no seat to come back to"
        assert app.seat is not None
        assert book.find(app.seat.game_id) is None, "a seat of a game that is over was kept"
        await pilot.press("q")
    assert app.return_code == 0


async def test_a_person_plays_dice_against_a_bot(target: str, book: SeatBook) -> None:
    # A dice game takes dozens of turns: a few show its words. The last move listed is a
    # reroll while one is left, then a score with a joker if the dice make a group.
    app = PlayApp(target, Game("dice", bots=1, strength="random", name="Ada"), book)
    async with app.run_test(size=(160, 50)) as pilot:
        await first_turn(pilot, app, book)
        await play_turns(pilot, app, 16, key=-1)
        await pilot.pause()
        table, log = screen(app, "#table"), log_text(app)
        assert re.search(r"dice +([RGBOYP] +){2,}", table)
        assert re.search(r"red +[✕□]{3}│[✕□]{3}│[✕□]{3} \d", table)
        for pattern in [*EVENTS["dice"], r"Ada rolls again: "]:
            assert re.search(pattern, log), f"no {pattern!r} in the log:\n{log}"
        await pilot.press("q")


async def test_the_card_board_shows_its_areas_and_the_ceilings(target: str) -> None:
    app = PlayApp(target, Game("cards", bots=1, name="Ada"))
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_for_change(pilot, app, "", 20)
        await pilot.pause()  # the table is drawn at the next refresh
        table = screen(app, "#table")
        assert table.count("0 │ 1  2  3 │ 4  5  6 │ 7  8  9 10") == 2
        # At the start every marker is in column 0, so each one's ceiling is 3.
        rows = re.findall(r"(red|green|blue|orange|yellow|purple) +([RGBOYP]) │.*max (\d+)", table)
        assert len(rows) == 12
        assert {(name[0].upper() == letter, limit) for name, letter, limit in rows} == {(True, "3")}
        assert "past the marker's ceiling" in table


async def test_a_player_who_quits_comes_back_to_the_seat(target: str, book: SeatBook) -> None:
    app = PlayApp(target, Game("cards", bots=1, strength="random", name="Ada"), book)
    async with app.run_test(size=(160, 50)) as pilot:
        await first_turn(pilot, app, book)
        await play_turns(pilot, app, 2)
        assert app.seat is not None
        game_id, token, version = app.seat.game_id, app.seat.token, app.view.version
        await pilot.press("q")
    assert app.return_code == 0
    kept = book.find(game_id)
    assert kept is not None
    assert (kept.target, kept.seat, kept.token, kept.name) == (target, 0, token, "Ada")

    # `genial play --resume`, without a game id: the seat sat down at last.
    args = build_parser().parse_args(["play", "--resume"])
    resumed_target, game = game_of(args, book)
    assert (resumed_target, game) == (target, Game(resume=game_id, token=token))
    back = PlayApp(resumed_target, game, book)
    async with back.run_test(size=(160, 50)) as pilot:
        await first_turn(pilot, back, book)
        assert back.seat is not None
        assert (back.seat.game_id, back.seat.seat) == (game_id, 0)
        assert back.view.version >= version
        await pilot.pause()
        assert "Ada (you)" in screen(back, "#table")
        await play_turns(pilot, back, 1)
        assert back.view.version > version, "the move after coming back did not land"
        await pilot.press("q")


async def test_without_keeping_the_token_the_screen_shows_it(target: str, book: SeatBook) -> None:
    app = PlayApp(target, Game("dice", bots=1, name="Ada"), None)
    async with app.run_test(size=(160, 50)) as pilot:
        status = await wait_for_change(pilot, app, "", 20)
        assert app.seat is not None
        command = f"genial play --resume {app.seat.game_id} --token {app.seat.token}"
        assert command in words(status)
        await pilot.press("q")
    assert book.seats() == []


async def test_a_token_that_holds_no_seat_is_refused_in_words(target: str, book: SeatBook) -> None:
    app = PlayApp(target, Game("cards", bots=1, name="Ada"))
    async with app.run_test() as pilot:
        await wait_for_change(pilot, app, "", 20)
        assert app.seat is not None
        game_id = app.seat.game_id
    book.keep(KeptSeat(target, game_id, 0, "not-a-token", "Ada"))
    wrong = PlayApp(target, Game(resume=game_id, token="not-a-token"), book)
    async with wrong.run_test() as pilot:
        deadline = time.monotonic() + 20
        while not wrong.failure:
            assert time.monotonic() < deadline, "the app did not stop"
            await pilot.pause(0.01)
    assert wrong.return_code == 1
    assert "TOKEN_INVALID" in wrong.failure
    assert f"does not hold a seat of game {game_id}" in wrong.failure
    assert book.seats() == [], "a token that holds no seat was kept"


async def test_a_guest_who_quits_finds_its_game_again_and_lists_it(
    target: str, tmp_path: Path
) -> None:
    """`genial play` as a guest (the default): the seat is the player's, so starting again
    with `--resume` finds it through the server, and `--mine` lists it."""
    device = "guest-device-id-of-this-test-" + tmp_path.name[-8:]
    app = PlayApp(target, Game("cards", bots=1, strength="random", name="Ada", device_id=device))
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_for_change(pilot, app, "", 20)
        await play_turns(pilot, app, 1)
        assert app.seat is not None
        game_id, version = app.seat.game_id, app.view.version
        assert f"genial play --resume {game_id}" in words(said(app, "#status"))
        await pilot.press("q")
    back = PlayApp(target, Game(resume="", device_id=device))
    async with back.run_test(size=(160, 50)) as pilot:
        await wait_for_change(pilot, back, "", 20)
        assert back.seat is not None
        assert (back.seat.game_id, back.seat.seat) == (game_id, 0)
        assert back.view.version >= version
        await pilot.press("q")
    listed = await my_games(target, device, "genial play")
    assert listed.startswith(f"{game_id}  cards  seat 0  ")
    assert "genial play --resume GAME_ID" in listed

"""`genial play` driven through its keys and its screen (textual's pilot), against a real
server and the service's bots."""

from __future__ import annotations

import re
import time

from textual.geometry import Region
from textual.pilot import Pilot

from genial.service.play import Game, PlayApp


def screen(app: PlayApp, selector: str) -> str:
    """What a widget shows, as plain text."""
    widget = app.query_one(selector)
    width, height = widget.size
    lines = widget.render_lines(Region(0, 0, width, height))
    return "\n".join(line.text.strip() for line in lines).strip()


async def wait_for_change(pilot: Pilot[None], app: PlayApp, before: str, seconds: float) -> str:
    deadline = time.monotonic() + seconds
    while (now := screen(app, "#status")) == before:
        assert time.monotonic() < deadline, f"the screen stayed at {before!r}"
        await pilot.pause(0.01)
    return now


async def test_a_person_plays_a_whole_game_against_a_bot(target: str) -> None:
    app = PlayApp(target, Game("cards", bots=1, strength="random", name="Ada"))
    async with app.run_test(size=(150, 50)) as pilot:
        status = await wait_for_change(pilot, app, "", 20)
        deadline = time.monotonic() + 60
        pressed = 0
        while not status.startswith("Game over"):
            assert time.monotonic() < deadline, "the game did not end"
            if "your turn" in status:
                assert re.match(r"\[1\] (play card|swap|decline swap)", screen(app, "#moves"))
                await pilot.press("1")
                pressed += 1
            status = await wait_for_change(pilot, app, status, 20)
        table, log = screen(app, "#table"), screen(app, "#log")
        assert "Ada (you)" in table
        assert "random bot" in table
        assert "game over standings" in log
        assert pressed > 10
        await pilot.press("q")
    assert app.return_code == 0

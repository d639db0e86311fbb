"""Whole games in the browser, clicked through the UI against the service's bots."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.service.conftest import Worker
from tests.web.conftest import api, history_of, screenshot, url
from tests.web.ui import (
    create_game,
    expected_log,
    held,
    log_keys,
    next_thing_to_do,
    play_to_the_end,
    play_turn,
    shown_standings,
)

# Small options keep each game short: one round, a short score sheet, short lines.
GAMES = {
    "cards": {},
    "dice": {"sections": "1, 1"},
    "tiles": {"line_length": 3},
}


@pytest.mark.parametrize("kind", sorted(GAMES))
def test_a_whole_game_against_a_bot_ends_with_the_services_standings(
    page: Page, web_worker: Worker, errors: list[str], kind: str
) -> None:
    page.goto(url(web_worker))
    create_game(page, kind, **GAMES[kind])  # type: ignore[arg-type]
    seat = held(page)
    for _ in range(3):  # a few turns in, for the docs' picture of the table
        next_thing_to_do(page)
        play_turn(page, kind)
    screenshot(page, f"table-{kind}")
    play_to_the_end(page, kind)
    final = api(web_worker, f"/v1/games/{seat.game_id}", seat.token)["view"]
    assert final["status"] == "GAME_STATUS_FINISHED"
    assert sorted(shown_standings(page), key=lambda s: s["seat"]) == final["standings"]
    history = history_of(web_worker, seat.game_id)
    joins = ["0.0.playerJoined", "0.1.gameStarted"]
    assert log_keys(page) == expected_log(history, joins)


def test_the_page_follows_with_xhr_where_fetch_cannot_stream(
    page: Page, web_worker: Worker, errors: list[str]
) -> None:
    """As in a browser or app without streaming fetch: the SDK detects it and reads the
    watch's stream with XMLHttpRequest."""
    page.add_init_script("delete window.ReadableStream")
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.resource_type) if "/events" in r.url else None)
    page.goto(url(web_worker))
    create_game(page, "dice", sections="1")
    play_to_the_end(page, "dice")
    assert requests, "the page watched the game"
    assert set(requests) == {"xhr"}
    seat = held(page)
    history = history_of(web_worker, seat.game_id)
    assert log_keys(page) == expected_log(history, ["0.0.playerJoined", "0.1.gameStarted"])


def test_the_page_speaks_german(page: Page, web_worker: Worker, errors: list[str]) -> None:
    page.goto(url(web_worker))
    page.get_by_role("button", name="Auf Deutsch umschalten").click()
    expect(page.locator("html")).to_have_attribute("lang", "de")
    expect(page.get_by_role("heading", name="Neues Spiel")).to_be_visible()
    create_game(page, "tiles", line_length=3)
    next_thing_to_do(page)
    expect(page.get_by_text("Du bist dran")).to_be_visible()
    play_turn(page, "tiles")
    expect(page.locator(".log li", has_text=re.compile(r"Ada deckt \S+ auf"))).to_have_count(1)
    screenshot(page, "table-tiles-de")
    page.reload()  # the choice is kept
    expect(page.get_by_role("heading", name="Spielverlauf")).to_be_visible()

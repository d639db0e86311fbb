"""The history of a finished game: step by step, and the seed checked in the browser."""

from __future__ import annotations

import json

from playwright.sync_api import Page, Route, expect

from tests.service.conftest import Worker
from tests.web.conftest import history_of, screenshot, url
from tests.web.ui import create_game, held, play_to_the_end, serious_violations, with_axe


def test_the_history_verifies_the_seed_and_shows_a_tampered_one(
    page: Page, web_worker: Worker, errors: list[str]
) -> None:
    with_axe(page)  # the end of a game and its history pass axe-core too
    page.goto(url(web_worker))
    create_game(page, "dice", sections="1")
    play_to_the_end(page, "dice")
    assert serious_violations(page) == [], "standings"
    seat = held(page)
    history = history_of(web_worker, seat.game_id)
    page.get_by_role("link", name="Step through the game").click()

    verdict = page.locator(".verdict")
    expect(verdict).to_have_attribute("data-verified", "yes")
    expect(verdict).to_contain_text("Verified")
    expect(page.locator(".fairness")).to_contain_text(history["seed"])
    moves = len(history["entries"])
    expect(page.locator("#step")).to_contain_text(f"Move {moves} of {moves}")
    page.get_by_role("button", name="Start").click()
    expect(page.locator("#step")).to_contain_text(f"of {moves}")
    page.get_by_role("button", name="Next move").click()
    expect(page.locator(".step-events li").first).to_be_visible()
    assert serious_violations(page) == [], "history"
    screenshot(page, "history")

    # A server that changed the seed after the game (or a man in the middle): the revealed
    # seed no longer hashes to the commitment this browser saw at creation.
    def tampered(route: Route) -> None:
        body = route.fetch().json()
        body["seed"] = "00" * (len(body["seed"]) // 2)
        route.fulfill(json=body)

    page.route("**/v1/games/*/history", tampered)
    page.reload()
    expect(verdict).to_have_attribute("data-verified", "no")
    expect(verdict).to_contain_text("Mismatch")
    assert (
        json.loads(page.evaluate("localStorage.getItem('genial.commitments')"))[seat.game_id][
            "seedSha256"
        ]
        == history["seedSha256"]
    )

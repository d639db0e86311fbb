"""Two players in two browser contexts play one card game against each other, and neither
page ever shows the other seat's hand."""

from __future__ import annotations

from playwright.sync_api import Browser, Page

from tests.service.conftest import Worker
from tests.web.conftest import api, screenshot, url
from tests.web.ui import MOVE_TIMEOUT, create_game, held, next_thing_to_do, play_turn, version

TURNS = 4
"""Moves each player makes: enough for hands to be played, drawn and compared."""

RECORD_HANDS = """
window.handsShown = [];
new MutationObserver(() => {
  const hands = [...document.querySelectorAll(".hand")].map(
    (hand) => [...hand.querySelectorAll("[data-card]")]
      .map((c) => Number(c.dataset.card))
      .sort((a, b) => a - b));
  window.handsShown.push(hands);
}).observe(document, { subtree: true, childList: true, attributes: true });
"""
"""Records, at every change of the page, the hands it shows (there must never be two)."""


def hand(worker: Worker, game_id: str, token: str) -> list[int]:
    view = api(worker, f"/v1/games/{game_id}", token)["view"]
    return sorted(CARDS.index(c) + 1 for c in view["cards"]["hand"])


CARDS = [
    f"CARD_{a}_{b}"
    for i, a in enumerate(["RED", "GREEN", "BLUE", "ORANGE", "YELLOW", "PURPLE"])
    for b in ["RED", "GREEN", "BLUE", "ORANGE", "YELLOW", "PURPLE"][i + 1 :]
]


def test_two_players_see_only_their_own_hands(browser: Browser, web_worker: Worker) -> None:
    pages: list[Page] = []
    for _ in range(2):
        page = browser.new_context(viewport={"width": 1100, "height": 900}).new_page()
        page.add_init_script(RECORD_HANDS)
        page.goto(url(web_worker))
        pages.append(page)
    ada, grace = pages
    create_game(ada, "cards", sitters=("you", "open"))
    game_id = held(ada).game_id
    grace.fill("#player-name", "Grace")
    grace.get_by_role("button", name="Refresh").click()
    open_game = grace.locator(".games li", has_text="1 of 2 seats open")
    open_game.get_by_role("button", name="Join").click()
    grace.wait_for_selector(".game[data-version]")
    seats = {page: held(page) for page in pages}
    assert {s.seat for s in seats.values()} == {0, 1}
    hands: dict[int, list[list[int]]] = {0: [], 1: []}  # the hand of each seat at each version

    def sample() -> None:
        for seat in seats.values():
            hands[seat.seat].append(hand(web_worker, game_id, seat.token))

    for _ in range(2 * TURNS):
        sample()
        to_move = api(web_worker, f"/v1/games/{game_id}")["view"]["toMove"]
        mover = next(p for p, s in seats.items() if s.seat == to_move)
        other = next(p for p in pages if p is not mover)
        next_thing_to_do(mover)
        play_turn(mover, "cards")
        other.wait_for_function(
            "v => document.querySelector('.game')?.dataset.version === v",
            arg=version(mover),
            timeout=MOVE_TIMEOUT,
        )
    sample()
    screenshot(grace, "two-players-grace")

    for page, seat in seats.items():
        shown = page.evaluate("window.handsShown")
        assert shown, "the observer saw the page"
        assert all(len(on_page) <= 1 for on_page in shown), "one hand at a time"
        for on_page in shown:
            for cards in on_page:
                assert cards in hands[seat.seat], f"seat {seat.seat} shows a hand not its own"
        page.context.close()

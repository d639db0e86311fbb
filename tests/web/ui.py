"""What the tests do on the page, as a player would: fill in the lobby, click the things
the moves act on, read what the page shows."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, expect

AXE = Path(__file__).resolve().parents[2] / "clients/web/node_modules/axe-core/axe.min.js"
MOVE_TIMEOUT = 20_000
"""Milliseconds a test waits for the page to show the next thing to do."""


@dataclass
class Held:
    """A seat the page holds, read from its local storage."""

    game_id: str
    seat: int
    token: str


def create_game(
    page: Page,
    kind: str,
    *,
    name: str = "Ada",
    sitters: tuple[str, ...] = ("you", "greedy"),
    sections: str | None = None,
    line_length: int | None = None,
) -> None:
    """Fills in and sends the lobby's form; the page opens the new game's table."""
    page.fill("#player-name", name)
    page.check(f"input[name=kind][value={kind}]")
    page.select_option("#seat-count", str(len(sitters)))
    for seat, sitter in enumerate(sitters):
        page.select_option(f"#sitter-{seat}", sitter)
    if sections is not None:
        page.fill("#sections", sections)
    if line_length is not None:
        page.fill("#line-length", str(line_length))
    page.click("form.create button[type=submit]")
    page.wait_for_selector(".game[data-version]")


def held(page: Page) -> Held:
    """The seat of the game the page shows."""
    game_id = page.evaluate("decodeURIComponent(location.hash.split('/')[2])")
    seat = page.evaluate(f"JSON.parse(localStorage.getItem('genial.seats'))[{game_id!r}]")
    return Held(game_id, seat["seat"], seat["token"])


def version(page: Page) -> str:
    return page.get_attribute(".game", "data-version") or ""


def next_thing_to_do(page: Page) -> bool:
    """Waits until the page offers a move or shows the final standings; False once over."""
    page.wait_for_selector("[data-action]:not([disabled]), .standings", timeout=MOVE_TIMEOUT)
    return page.locator(".standings").count() == 0


def play_turn(page: Page, kind: str) -> None:
    """Makes one move by clicking what it acts on, and waits for the game to take it."""
    before = version(page)
    action = page.locator("[data-action]:not([disabled])")
    actions = {a.get_attribute("data-action") for a in action.all()}
    if kind == "cards":
        if "card" in actions:
            page.locator("[data-action=card]:not([disabled])").first.click()
            page.locator("[data-action=first]").first.click()
        else:
            page.click("[data-action=keep]")
    elif kind == "dice":
        if "roll" in actions:
            page.click("[data-action=roll]")
        else:
            if "joker" in actions:  # a group of equal dice: one cross in the first colour
                page.locator("[data-action=joker]").first.click()
                page.locator(".joker-colour input").first.check()
            page.click("[data-action=score]")
    elif "take" in actions:
        page.click("[data-action=take]")
    elif "reveal" in actions:
        page.click("[data-action=reveal]")
    else:
        page.locator("[data-action=alternative]").first.click()
    changed = "v => document.querySelector('.game')?.dataset.version !== v"
    page.wait_for_function(changed, arg=before, timeout=MOVE_TIMEOUT)


def play_to_the_end(page: Page, kind: str, turns: int = 1000) -> None:
    for _ in range(turns):
        if not next_thing_to_do(page):
            return
        play_turn(page, kind)
    raise AssertionError(f"the game of {kind} did not end in {turns} turns")


def shown_standings(page: Page) -> list[dict[str, int]]:
    rows = page.locator(".standings tbody tr")
    expect(rows.first).to_be_visible()
    return [
        {
            "seat": int(row.get_attribute("data-seat") or -1),
            "rank": int(row.locator("td").nth(0).inner_text()),
            "points": int(row.locator("td").nth(1).inner_text()),
        }
        for row in rows.all()
    ]


def log_keys(page: Page) -> list[str]:
    """The log's entries, each as version.index.type: what the page told, in order."""
    return page.eval_on_selector_all(".log li", "items => items.map(i => i.dataset.key)")  # type: ignore[no-any-return]


def expected_log(history: dict[str, Any], joins: list[str]) -> list[str]:
    """The log a page must show: the seats taken (at version 0), then every event of every
    move once, in order."""
    keys = list(joins)
    for entry in history.get("entries", []):
        for i, event in enumerate(entry["events"]):
            (kind,) = event.keys()
            keys.append(f"{entry['version']}.{i}.{kind}")
    return keys


def with_axe(page: Page) -> Page:
    page.add_init_script(path=str(AXE))
    return page


def serious_violations(page: Page) -> list[str]:
    """axe-core's violations of impact serious or critical, one line each. The page must have
    axe-core as an init script (`with_axe`): a script tag would break the page's CSP."""
    found = page.evaluate("async () => (await axe.run(document)).violations")
    return [
        f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes']][:3]}"
        for v in found
        if v["impact"] in ("serious", "critical")
    ]

"""A phone-sized window, the keyboard alone, and axe-core's accessibility rules."""

from __future__ import annotations

import time
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, ViewportSize, expect

from tests.service.conftest import Worker
from tests.web.conftest import screenshot, url
from tests.web.ui import (
    create_game,
    next_thing_to_do,
    play_turn,
    serious_violations,
    version,
    with_axe,
)

PHONE: ViewportSize = {"width": 412, "height": 915}


def no_horizontal_scrolling(page: Page) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def tab_to(page: Page, focused: str) -> None:
    """Presses Tab until the expression `focused` holds."""
    for _ in range(60):
        page.keyboard.press("Tab")
        if page.evaluate(focused):
            return
    raise AssertionError(f"Tab never reached {focused}")


@pytest.fixture
def phone(browser: Browser) -> Page:
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, locale="en-GB")
    return context.new_page()


def test_a_card_turn_with_the_keyboard_alone_on_a_phone(phone: Page, web_worker: Worker) -> None:
    page = phone
    page.goto(url(web_worker))
    no_horizontal_scrolling(page)
    # The lobby by keyboard: the name, then on to "Create game" (a card game is the default).
    tab_to(page, "document.activeElement.id === 'player-name'")
    page.keyboard.type("Ada")
    tab_to(page, "document.activeElement.type === 'submit'")
    page.keyboard.press("Enter")
    page.wait_for_selector(".game[data-version]")
    next_thing_to_do(page)
    no_horizontal_scrolling(page)
    screenshot(page, "phone-cards")
    before = version(page)
    # Tab to the first playable card of the hand, choose it, then its first colour.
    tab_to(page, "document.activeElement.dataset.action === 'card'")
    page.keyboard.press("Enter")
    # The colours render, then take the focus (an effect after the render): waited for, as
    # a keyboard user would wait (polled from here: the page's CSP forbids wait_for_function's
    # string evaluation).
    focus = "document.activeElement.dataset.action"
    deadline = time.monotonic() + 10
    while page.evaluate(focus) != "first":
        assert time.monotonic() < deadline, f"focus moves on, not to {page.evaluate(focus)!r}"
        time.sleep(0.05)
    page.keyboard.press("Enter")
    page.wait_for_function("v => document.querySelector('.game').dataset.version !== v", arg=before)
    expect(page.locator(".log li", has_text="Ada plays")).to_have_count(1)
    no_horizontal_scrolling(page)


@pytest.mark.parametrize("kind", ["dice", "tiles"])
def test_the_other_tables_fit_a_phone(phone: Page, web_worker: Worker, kind: str) -> None:
    phone.goto(url(web_worker))
    create_game(phone, kind, sitters=("you", "greedy", "greedy", "greedy"))
    next_thing_to_do(phone)
    play_turn(phone, kind)
    no_horizontal_scrolling(phone)
    screenshot(phone, f"phone-{kind}")


def test_no_serious_accessibility_violations(page: Page, web_worker: Worker) -> None:
    with_axe(page)
    page.goto(url(web_worker))
    assert serious_violations(page) == [], "lobby"
    games: list[tuple[str, dict[str, Any]]] = [
        ("cards", {}),
        ("dice", {"sections": "1"}),
        ("tiles", {"line_length": 3}),
    ]
    for kind, options in games:
        page.goto(url(web_worker))
        create_game(page, kind, **options)
        next_thing_to_do(page)
        play_turn(page, kind)
        assert serious_violations(page) == [], kind

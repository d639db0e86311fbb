"""The page carries on after a reload and after the server restarts (Redis store), with no
event of the game missed or told twice."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from tests.service.conftest import Worker, start_worker, stop_worker
from tests.web.conftest import history_of, url
from tests.web.ui import (
    create_game,
    expected_log,
    held,
    log_keys,
    next_thing_to_do,
    play_to_the_end,
    play_turn,
)

JOINS = ["0.0.playerJoined", "0.1.gameStarted"]


def test_a_reload_in_the_middle_of_a_game_keeps_the_seat_and_the_log(
    page: Page, web_worker: Worker, errors: list[str]
) -> None:
    page.goto(url(web_worker))
    create_game(page, "dice", sections="1, 1")
    for _ in range(3):
        next_thing_to_do(page)
        play_turn(page, "dice")
    seat = held(page)
    page.reload()
    next_thing_to_do(page)  # the seat is still the page's: it offers the next move
    assert held(page) == seat
    history = history_of(web_worker, seat.game_id)
    assert log_keys(page) == expected_log(history, JOINS)
    play_to_the_end(page, "dice")
    history = history_of(web_worker, seat.game_id)
    assert log_keys(page) == expected_log(history, JOINS)


@pytest.fixture
def redis_web_worker(redis_url: str) -> Iterator[list[Worker]]:
    """A worker with the Redis store; the test may replace it (the list's last)."""
    workers = [start_worker(redis_url)]
    yield workers
    stop_worker(workers[-1])


def test_a_server_restart_in_the_middle_of_a_game_is_followed_through(
    page: Page, redis_web_worker: list[Worker], redis_url: str, errors: list[str]
) -> None:
    worker = redis_web_worker[0]
    page.goto(url(worker))
    create_game(page, "tiles", line_length=3)
    for _ in range(2):
        next_thing_to_do(page)
        play_turn(page, "tiles")
    next_thing_to_do(page)
    seat = held(page)
    before = log_keys(page)

    stop_worker(worker)
    status = page.locator(".connection")
    expect(status).to_have_attribute("data-state", "reconnecting", timeout=15_000)
    restarted = start_worker(redis_url, ports=worker.ports)
    redis_web_worker.append(restarted)
    expect(status).to_have_attribute("data-state", "live", timeout=15_000)

    assert log_keys(page) == before, "nothing missed or doubled while the server was away"
    play_to_the_end(page, "tiles")
    history = history_of(restarted, seat.game_id)
    assert log_keys(page) == expected_log(history, JOINS)

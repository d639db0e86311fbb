"""The web client's tests: Debian's chromium driven by Playwright (pytest-playwright), one
browser for the session, against real `genial serve` workers; they click through the UI
only. Screenshots go to GENIAL_SCREENSHOTS (default build/screenshots; `make
web-screenshots` writes docs/web/)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from playwright.sync_api import Page

from tests.service.conftest import Worker, start_worker, stop_worker

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / os.environ.get("GENIAL_SCREENSHOTS", "build/screenshots")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    """Debian's chromium: Playwright cannot download its own browsers here."""
    chromium = shutil.which("chromium")
    if chromium is None:
        pytest.fail("chromium is not installed; `make test` installs it")
    return {**browser_type_launch_args, "executable_path": chromium, "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args: dict[str, Any]) -> dict[str, Any]:
    return {**browser_context_args, "viewport": {"width": 1280, "height": 900}, "locale": "en-GB"}


@pytest.fixture(scope="session")
def web_worker() -> Iterator[Worker]:
    """A worker with the in-process store, for the tests that restart nothing."""
    worker = start_worker()
    yield worker
    stop_worker(worker)


def url(worker: Worker, path: str = "/") -> str:
    return f"http://127.0.0.1:{worker.http_port}{path}"


def api(worker: Worker, path: str, token: str | None = None) -> dict[str, Any]:
    """A GET of the REST API, as JSON."""
    headers = {"authorization": f"Bearer {token}"} if token else {}
    reply = httpx.get(url(worker, path), headers=headers, timeout=10)
    reply.raise_for_status()
    return reply.json()  # type: ignore[no-any-return]


def history_of(worker: Worker, game_id: str) -> dict[str, Any]:
    """A game's whole history, every page of it (a page holds 100 moves by default)."""
    whole = api(worker, f"/v1/games/{game_id}/history")
    token = whole.pop("nextPageToken", "")
    while token:
        page = api(worker, f"/v1/games/{game_id}/history?page_token={quote(token)}")
        whole["entries"] += page["entries"]
        token = page.get("nextPageToken", "")
    return whole


def screenshot(page: Page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=SCREENSHOTS / f"{name}.png", full_page=True)


@pytest.fixture
def errors(page: Page) -> Iterator[list[str]]:
    """The page's uncaught errors: each test ends with none."""
    found: list[str] = []
    page.on("pageerror", lambda error: found.append(str(error)))
    yield found
    assert not found

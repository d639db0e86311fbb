"""A page on another origin (the web client served from a second local port) plays through
the SDK when the server's cors_origins allows it, and says what is wrong when not."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.conftest import free_port
from tests.service.conftest import Worker, start_worker, stop_worker
from tests.web.conftest import ROOT, api, url
from tests.web.ui import create_game, held, play_to_the_end, shown_standings

BUNDLE = ROOT / "clients/web/bundle"


class Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def other_origin(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """A static server on a port of its own: its origin, and the folder it serves."""
    root = tmp_path_factory.mktemp("other-origin")
    server = ThreadingHTTPServer(("127.0.0.1", free_port()), partial(Quiet, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", root
    server.shutdown()


def publish(root: Path, name: str, worker: Worker) -> str:
    """The web client under /<name>/, told to call `worker`'s API (as a host other than
    the service would configure it)."""
    shutil.copytree(BUNDLE, root / name)
    page = root / name / "index.html"
    page.write_text(page.read_text().replace('content=""', f'content="{url(worker)[:-1]}"', 1))
    return f"/{name}/"


@pytest.fixture(scope="module")
def cors_worker(other_origin: tuple[str, Path]) -> Iterator[Worker]:
    worker = start_worker("", "--cors-origins", other_origin[0])
    yield worker
    stop_worker(worker)


def test_a_page_on_an_allowed_origin_plays(
    page: Page, cors_worker: Worker, other_origin: tuple[str, Path], errors: list[str]
) -> None:
    origin, root = other_origin
    page.goto(origin + publish(root, "allowed", cors_worker))
    create_game(page, "dice", sections="1")
    play_to_the_end(page, "dice")
    seat = held(page)
    final = api(cors_worker, f"/v1/games/{seat.game_id}", seat.token)["view"]
    assert sorted(shown_standings(page), key=lambda s: s["seat"]) == final["standings"]


def test_a_page_on_another_origin_is_told_it_needs_cors_origins(
    page: Page, web_worker: Worker, other_origin: tuple[str, Path]
) -> None:
    origin, root = other_origin
    page.goto(origin + publish(root, "refused", web_worker))
    page.fill("#player-name", "Ada")
    page.click("form.create button[type=submit]")
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text(f"does not allow this page ({origin})")
    expect(alert).to_contain_text("cors_origins")


def test_the_preflight_allows_the_origin_and_exposes_retry_after(
    cors_worker: Worker, web_worker: Worker, other_origin: tuple[str, Path]
) -> None:
    origin = other_origin[0]
    preflight = {
        "origin": origin,
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type",
    }
    allowed = httpx.options(url(cors_worker, "/v1/games/x/moves"), headers=preflight)
    assert allowed.status_code in (200, 204)
    assert allowed.headers["access-control-allow-origin"] == origin
    assert "authorization" in allowed.headers["access-control-allow-headers"].lower()
    answer = httpx.get(url(cors_worker, "/v1/games"), headers={"origin": origin})
    assert "retry-after" in answer.headers["access-control-expose-headers"].lower()
    refused = httpx.get(url(web_worker, "/v1/games"), headers={"origin": origin})
    assert "access-control-allow-origin" not in refused.headers

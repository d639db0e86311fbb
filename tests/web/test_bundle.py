"""What the service ships for browsers: the committed web client is what its sources build
to, the OpenAPI document passes Redocly's lint, and /docs needs no internet."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from playwright.sync_api import Page, Route, expect

from tests.clients.test_generated import files
from tests.service.conftest import Worker
from tests.web.conftest import ROOT, url

WEB = ROOT / "clients/web"


def test_the_committed_bundle_is_what_the_sources_build(tmp_path: Path) -> None:
    subprocess.run(["node", "build.mjs", str(tmp_path)], cwd=WEB, check=True, capture_output=True)
    fresh, committed = files(tmp_path), files(WEB / "bundle")
    stale = sorted(f for f in fresh.keys() | committed.keys() if fresh.get(f) != committed.get(f))
    assert not stale, f"run `make web` and commit clients/web/bundle: stale {stale}"


def test_the_openapi_document_passes_redocly_lint() -> None:
    """Redocly's recommended rules: no error, and no warning either."""
    lint = subprocess.run(
        ["node_modules/.bin/redocly", "lint", "clients/openapi.json", "--format=json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,  # the report says what is wrong
    )
    report = json.loads(lint.stdout)
    problems = [f"{p['ruleId']}: {p['message']}" for p in report["problems"]]
    assert lint.returncode == 0, problems
    assert report["totals"] == {"errors": 0, "warnings": 0, "ignored": 0}, problems


def test_the_docs_page_works_without_internet(page: Page, web_worker: Worker) -> None:
    outside: list[str] = []

    def only_local(route: Route) -> None:
        if route.request.url.startswith(url(web_worker)):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    page.route("**/*", only_local)
    page.goto(url(web_worker, "/docs"))
    expect(page.locator(".swagger-ui .info .title")).to_contain_text("genial.v1 API")
    expect(page.get_by_text("/v1/games/{game_id}/moves").first).to_be_visible()
    assert outside == []

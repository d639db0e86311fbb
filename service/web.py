"""What the HTTP port serves besides the API: the web client at / (built into
clients/web/bundle, installed as `genial/web`), the API's documentation at /docs with its
Swagger UI assets from the pinned `swagger-ui-bundle-v2` package (no CDN: /docs works
offline), and the CORS policy of the `cors_origins` setting.

`service/http.py` mounts `handlers()` and passes `cors_config(settings)` to Litestar.
"""

from __future__ import annotations

import logging
import mimetypes
from pathlib import Path

import swagger_ui_bundle  # type: ignore[import-untyped]
from litestar import Response, get
from litestar.config.cors import CORSConfig
from litestar.exceptions import NotFoundException
from litestar.handlers import HTTPRouteHandler

from .settings import Settings

log = logging.getLogger("genial.web")

HERE = Path(__file__).parent
BUNDLES = (HERE.parent / "web", HERE.resolve().parent / "clients" / "web" / "bundle")
"""Where the built web client is: installed beside the service, or in a source tree."""

SWAGGER_FILES = ("swagger-ui.css", "swagger-ui-bundle.js", "favicon-32x32.png")
DOCS_INIT = b"""\
const root = document.getElementById("swagger-ui");
SwaggerUIBundle({ url: root.dataset.url, domNode: root });
"""
DOCS_PAGE = b"""\
<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>genial API</title>
  <link rel="icon" href="/docs/assets/favicon-32x32.png">
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui" data-url="/openapi.json"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/assets/init.js"></script>
</body>
</html>
"""

IMMUTABLE = {"cache-control": "public, max-age=31536000, immutable"}
"""For the web client's assets, whose names carry their content's hash."""
AN_HOUR = {"cache-control": "public, max-age=3600"}
"""For Swagger UI's, whose names stay the same when the package is upgraded."""
PAGE_HEADERS = {
    "cache-control": "no-cache",
    # The client calls the API of its own origin and loads nothing from elsewhere.
    "content-security-policy": (
        "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none';"
        " frame-ancestors 'none'; form-action 'self'"
    ),
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
}


def cors_config(settings: Settings) -> CORSConfig | None:
    """Which other origins' pages may call the API; None (same origin only) by default."""
    if not settings.cors_origins:
        return None
    return CORSConfig(
        allow_origins=[o.strip() for o in settings.cors_origins.split(",") if o.strip()],
        allow_methods=["GET", "POST"],
        allow_headers=["authorization", "content-type", "last-event-id"],
        # A rate-limited call says when to come back; errors are in the body (`Error`).
        expose_headers=["retry-after"],
        allow_credentials=False,  # tokens travel in the authorization header, not cookies
        max_age=600,
    )


def handlers(serve_web: bool = True, serve_docs: bool = True) -> list[HTTPRouteHandler]:
    """The web client's page and assets, and the documentation's, each unless turned off."""
    served = _docs_handlers() if serve_docs else []
    return served + _web_handlers() if serve_web else served


def _docs_handlers() -> list[HTTPRouteHandler]:
    swagger = swagger_ui_bundle.swagger_ui_path
    docs_assets = {name: (swagger / name).read_bytes() for name in SWAGGER_FILES}
    docs_assets["init.js"] = DOCS_INIT

    @get("/docs")
    async def docs() -> Response[bytes]:
        return Response(DOCS_PAGE, media_type="text/html; charset=utf-8")

    @get("/docs/assets/{name:str}")
    async def docs_asset(name: str) -> Response[bytes]:
        return _file(docs_assets, name, AN_HOUR)

    return [docs, docs_asset]


def _web_handlers() -> list[HTTPRouteHandler]:
    bundle = next((b for b in BUNDLES if (b / "index.html").is_file()), None)
    if bundle is None:
        log.warning("the web client is not built: / serves nothing (see docs/web.md)")
        return []
    page = (bundle / "index.html").read_bytes()
    assets = {f.name: f.read_bytes() for f in (bundle / "assets").glob("*") if f.is_file()}

    @get("/")
    async def index() -> Response[bytes]:
        return Response(page, media_type="text/html; charset=utf-8", headers=PAGE_HEADERS)

    @get("/assets/{name:str}")
    async def asset(name: str) -> Response[bytes]:
        return _file(assets, name, IMMUTABLE)

    return [index, asset]


def _file(files: dict[str, bytes], name: str, headers: dict[str, str]) -> Response[bytes]:
    if name not in files:
        raise NotFoundException()  # the API's NOT_FOUND body, from http.py's handler
    media_type = mimetypes.guess_type(name)[0] or "application/octet-stream"
    if media_type.startswith("text/") or media_type.endswith("javascript"):
        media_type += "; charset=utf-8"
    return Response(files[name], media_type=media_type, headers=headers)

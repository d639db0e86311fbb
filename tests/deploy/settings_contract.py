"""The settings the chart sets, as the service reads them (`genial serve`'s GENIAL_* variables)."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from genial.service.settings import Settings

AWAITED_SETTINGS: dict[str, tuple[type, Any]] = {
    "admin_port": (int, 9090),
    "serve_web": (bool, True),
    "serve_docs": (bool, True),
    "cors_origins": (str, ""),
    "trusted_proxies": (str, ""),
    "otlp_endpoint": (str, ""),
    "tls_cert_file": (str, ""),
    "tls_key_file": (str, ""),
}
"""Settings of issue 20 (operating it) that the chart sets and the service is to read:
name, type, default, as agreed with the service's side. Until `Settings` has one, the
tests read it from the environment by this contract; once it has it,
test_awaited_settings_agree_with_the_service holds the two to each other (and the entry
can go)."""
SETTINGS = {f.name: f for f in dataclasses.fields(Settings)}


def setting_default(name: str) -> Any:
    return SETTINGS[name].default if name in SETTINGS else AWAITED_SETTINGS[name][1]


def read_settings(environ: dict[str, str]) -> dict[str, Any]:
    """The settings a worker reads from `environ`: the service's own parsing, and the
    awaited settings it does not know yet parsed as the contract says."""
    values = dataclasses.asdict(Settings.load(environ=environ))
    for name, (kind, default) in AWAITED_SETTINGS.items():
        if name not in values:
            raw = environ.get(f"GENIAL_{name.upper()}")
            values[name] = default if raw is None else parse_setting(kind, raw)
    return values


def parse_setting(kind: type, raw: str) -> Any:
    if kind is bool:
        assert raw in ("true", "false"), raw
        return raw == "true"
    return kind(raw)


def field_name(setting: str) -> str:
    """The Settings field of a key of the chart's `settings` (logLevel -> log_level)."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", setting).lower()


def as_env(value: Any) -> Any:
    """A value of the chart's `settings` as the service reads it (a list comma-separated)."""
    return ",".join(value) if isinstance(value, list) else value

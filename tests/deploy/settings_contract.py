"""The settings the chart sets, as the service reads them (`genial serve`'s GENIAL_* variables)."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from genial.service.settings import Settings

SETTINGS = {f.name: f for f in dataclasses.fields(Settings)}


def setting_default(name: str) -> Any:
    return SETTINGS[name].default


def read_settings(environ: dict[str, str]) -> dict[str, Any]:
    """The settings a worker reads from `environ`, by the service's own parsing."""
    return dataclasses.asdict(Settings.load(environ=environ))


def field_name(setting: str) -> str:
    """The Settings field of a key of the chart's `settings` (logLevel -> log_level)."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", setting).lower()


def as_env(value: Any) -> Any:
    """A value of the chart's `settings` as the service reads it (a list comma-separated)."""
    return ",".join(value) if isinstance(value, list) else value

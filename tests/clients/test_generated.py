"""The generated code under clients/ is what `make generate` makes from proto/ now."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GENERATED = [
    "clients/python/genial/v1",
    "clients/typescript/src/gen",
    "clients/openapi.json",
]


def files(path: Path) -> dict[str, bytes]:
    """Every file under `path` (or `path` itself) by relative name, caches left out."""
    if path.is_file():
        return {"": path.read_bytes()}
    return {
        str(f.relative_to(path)): f.read_bytes()
        for f in sorted(path.rglob("*"))
        if f.is_file() and "__pycache__" not in f.parts
    }


def test_the_committed_generated_code_is_fresh(tmp_path: Path) -> None:
    subprocess.run(
        ["scripts/generate.sh", str(tmp_path)],
        cwd=ROOT,
        env={**os.environ, "PYTHON": sys.executable},
        check=True,
        capture_output=True,
    )
    stale = []
    for name in GENERATED:
        fresh, committed = files(tmp_path / name), files(ROOT / name)
        stale += [
            f"{name}/{f}"
            for f in sorted(fresh.keys() | committed.keys())
            if fresh.get(f) != committed.get(f)
        ]
    assert not stale, f"run `make generate` and commit: stale {stale}"

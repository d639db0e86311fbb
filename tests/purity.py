"""What "pure" means for the engine and the bots: which modules their files may not import."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

FORBIDDEN = {
    "asyncio", "random", "socket", "time", "datetime", "threading", "subprocess",
    "multiprocessing", "os", "io", "pathlib", "shutil", "tempfile", "logging", "sys",
    "urllib", "http",
}  # fmt: skip
"""Clocks, I/O, processes and threads, and the global random generator."""


def top_level_imports(folder: str, skip: frozenset[str] = frozenset()) -> dict[str, set[str]]:
    """For each module of `folder` (but `skip`), the top-level packages it imports."""
    imported: dict[str, set[str]] = {}
    for path in sorted((ROOT / folder).glob("*.py")):
        if path.name in skip:
            continue
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names.add(node.module.split(".")[0])
        imported[path.name] = names
    return imported


def impure_imports(imported: dict[str, set[str]]) -> dict[str, set[str]]:
    """The forbidden imports of each module (empty sets when pure)."""
    return {name: names & FORBIDDEN for name, names in imported.items()}

"""The bots are pure like the engine: their decisions import no clock, I/O or global
random. Only the arena (a command) may measure time and start processes."""

from __future__ import annotations

import ast
from pathlib import Path

BOTS = Path(__file__).resolve().parents[2] / "bots"
COMMAND = {"arena.py"}
FORBIDDEN = {
    "asyncio",
    "random",
    "socket",
    "time",
    "datetime",
    "threading",
    "subprocess",
    "multiprocessing",
    "os",
    "io",
    "pathlib",
    "shutil",
    "tempfile",
    "logging",
    "sys",
    "urllib",
    "http",
}


def test_bot_modules_import_no_clock_io_or_global_random() -> None:
    imported: dict[str, set[str]] = {}
    for path in sorted(BOTS.glob("*.py")):
        if path.name in COMMAND:
            continue
        names = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names.add(node.module.split(".")[0])
        imported[path.name] = names
    assert {"search.py", "cards.py", "dice.py", "tiles.py"} <= set(imported)
    assert {name: names & FORBIDDEN for name, names in imported.items()} == {
        name: set() for name in imported
    }

"""The bots are pure like the engine: their decisions import no clock, I/O or global
random. Only the arena (a command) may measure time and start processes."""

from __future__ import annotations

from tests.purity import impure_imports, top_level_imports


def test_bot_modules_import_no_clock_io_or_global_random() -> None:
    # Only the arena (a command) may measure time and start processes.
    imported = top_level_imports("bots", skip=frozenset({"arena.py"}))
    assert {"search.py", "cards.py", "dice.py", "tiles.py"} <= set(imported)
    assert impure_imports(imported) == {name: set() for name in imported}

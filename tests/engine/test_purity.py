"""The engine is pure: standard library only, and none of its modules does I/O, reads a
clock, uses the global random generator or asyncio."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.purity import impure_imports, top_level_imports

CHECK = """
import sys
before = set(sys.modules)
import genial.engine
loaded = {name.split(".")[0] for name in set(sys.modules) - before}
print(__import__("json").dumps(sorted(loaded)))
"""


def test_importing_the_engine_loads_only_the_standard_library() -> None:
    out = subprocess.run(
        [sys.executable, "-c", CHECK], check=True, capture_output=True, text=True
    ).stdout
    loaded = set(json.loads(out)) - {"genial"}
    assert loaded, "the check saw the modules the import loaded"
    third_party = {m for m in loaded if m not in sys.stdlib_module_names and not m.startswith("_")}
    assert third_party == set()


def test_engine_modules_import_no_clock_io_or_global_random() -> None:
    """`secrets` (for new seeds) loads `random` itself; the engine never imports it."""
    imported = top_level_imports("engine")
    assert "core.py" in imported
    assert impure_imports(imported) == {name: set() for name in imported}

"""The two distributions that ship the terminal client: `genial` (the service) and
`genial-client` (clients/python), built as wheels. Both carry `genial.client.play`, and
Textual only behind their `play` extra, so the server never installs it."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]
PLAY = "genial/client/play/"


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> dict[str, zipfile.ZipFile]:
    dist = tmp_path_factory.mktemp("dist")
    pip_wheel = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation"]
    subprocess.run(
        [*pip_wheel, "-w", str(dist), str(ROOT), str(ROOT / "clients/python")],
        check=True,
        capture_output=True,
    )
    return {
        name: zipfile.ZipFile(next(dist.glob(f"{name.replace('-', '_')}-*.whl")))
        for name in ("genial", "genial-client")
    }


def metadata(wheel: zipfile.ZipFile, name: str) -> str:
    (path,) = (n for n in wheel.namelist() if n.endswith(f".dist-info/{name}"))
    return wheel.read(path).decode()


@pytest.mark.parametrize("name", ["genial", "genial-client"])
def test_textual_comes_only_with_the_play_extra(
    wheels: dict[str, zipfile.ZipFile], name: str
) -> None:
    fields = Parser().parsestr(metadata(wheels[name], "METADATA"))
    assert "play" in fields.get_all("Provides-Extra", [])

    def installed(extra: str) -> set[str]:
        """The distributions pip installs with `extra` ("": none)."""
        needs = map(Requirement, fields.get_all("Requires-Dist", []))
        return {r.name for r in needs if r.marker is None or r.marker.evaluate({"extra": extra})}

    assert "grpcio" in installed("")
    assert not {"textual", "rich"} & installed("")
    assert "textual" in installed("play")


def test_both_wheels_ship_the_same_terminal_client(wheels: dict[str, zipfile.ZipFile]) -> None:
    def files(wheel: zipfile.ZipFile) -> dict[str, bytes]:
        return {n: wheel.read(n) for n in wheel.namelist() if n.startswith(PLAY)}

    shipped = files(wheels["genial"])
    assert f"{PLAY}app.py" in shipped
    assert f"{PLAY}command.py" in shipped
    assert shipped == files(wheels["genial-client"])


def test_each_wheel_has_its_command(wheels: dict[str, zipfile.ZipFile]) -> None:
    assert "genial = genial.service.cli:main" in metadata(wheels["genial"], "entry_points.txt")
    client = metadata(wheels["genial-client"], "entry_points.txt")
    assert "genial-play = genial.client.play.command:main" in client

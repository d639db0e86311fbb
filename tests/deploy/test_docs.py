"""docs/deploy.md does what it says: its install command renders, its game is played."""

from __future__ import annotations

import re
import shlex
import subprocess
import textwrap

import helm_python as helm

from tests.deploy.conftest import LocalPod, render
from tests.deploy.paths import ROOT

DOC = (ROOT / "docs" / "deploy.md").read_text()
BLOCKS = re.findall(r"```sh\n(.*?)```", DOC, flags=re.DOTALL)


def test_trial_install_command_renders(chart: helm.Chart) -> None:
    (command,) = [b for b in BLOCKS if "--set redis.enabled=true" in b]
    words = shlex.split(command.replace("\\\n", " ").replace("$REGISTRY", "registry.example.com"))
    assert words[:5] == ["helm", "upgrade", "--install", "genial", "helm/genial"]
    assignments = ",".join(words[i + 1] for i, word in enumerate(words) if word == "--set")
    r = render(chart, helm.parse_set_string(assignments))
    assert r.one("StatefulSet")
    (rule,) = r.one("Ingress")["spec"]["rules"]
    assert rule["host"] == "genial.example.com"
    assert r.one("Deployment")["spec"]["template"]["spec"]["containers"][0]["image"] == (
        "registry.example.com/genial:0.1.0"
    )


def test_the_game_in_the_docs_is_played_to_the_end(pod: LocalPod) -> None:
    marker = "<!-- tests/deploy/test_docs.py runs the next block against a worker -->\n```sh\n"
    script = DOC.split(marker, 1)[1].split("```", 1)[0]
    # The Ingress's part is played by the worker's own HTTP port.
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        env={"BASE": f"http://127.0.0.1:{pod.port('http')}", "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    standings = done.stdout.splitlines()
    assert len(standings) == 2
    assert '"rank":1' in "".join(standings)


VALUES_BLOCKS = [
    block
    for block in re.findall(r"```yaml\n(.*?)```", DOC, flags=re.DOTALL)
    if "apiVersion:" not in block  # a Kubernetes object of the reader's, not chart values
]


def test_every_values_example_installs(chart: helm.Chart) -> None:
    # Each example of values on the page, given alone with -f, passes the schema and renders.
    shown = set()
    for block in VALUES_BLOCKS:
        values = helm.values_from_yaml(textwrap.dedent(block))
        assert values, block
        render(chart, values)
        shown |= set(values)
    assert {"redis", "tls", "grpcRoute", "networkPolicy", "metrics", "extraVolumes"} <= shown

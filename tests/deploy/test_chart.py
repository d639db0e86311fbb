"""The Helm chart: lint, schema, Kubernetes validity, and that its parts fit together.

Helm itself (its Go library, through helm-python-sdk) lints and renders the chart; every
rendered object is validated against the Kubernetes OpenAPI schemas of the oldest version
the chart supports and of the newest one kubernetes-validate bundles. What a schema cannot
see (a selector that matches no pod, a probe on the wrong port, a grace period shorter than
the drain) is checked below, object against object.
"""

from __future__ import annotations

import json
import re
import tomllib
from typing import Any

import helm_python as helm
import kubernetes_validate
import pytest

from tests.deploy.conftest import Rendered, load_manifests, render
from tests.deploy.crds import check_custom_resource
from tests.deploy.paths import CHART, CHART_META, DEFAULTS, NAMESPACE, ROOT
from tests.deploy.profiles import profiles
from tests.deploy.settings_contract import (
    SETTINGS,
    as_env,
    field_name,
    setting_default,
)

# The oldest Kubernetes the chart supports, from its kubeVersion constraint (">=1.27.0-0").
MIN_KUBE = ".".join(CHART_META["kubeVersion"].lstrip(">= ").split(".")[:2])
KUBE_VERSIONS = (MIN_KUBE, kubernetes_validate.latest_version())
GAME_SERVICE = "genial.v1.GameService"


# ---- helpers -----------------------------------------------------------------------


# ---- Helm --------------------------------------------------------------------------


@pytest.mark.parametrize("profile", ["default", "production", "sentinel"])
def test_chart_lints_clean(profile: str) -> None:
    values = profiles()[profile]
    report = helm.lint(
        CHART, values, strict=True, namespace=NAMESPACE, kube_version=f"v{MIN_KUBE}.0"
    )
    findings = [m for m in report["messages"] if m["severity"] >= 2]  # warnings and errors
    assert not findings, findings
    assert not report["errors"]


def test_every_template_renders_in_some_profile(rendered: dict[str, Rendered]) -> None:
    # Each profile rendered without error (the fixture); together they leave no template
    # untried: each one gives at least one object (or text) somewhere.
    on_disk = {
        f"genial/templates/{p.relative_to(CHART / 'templates')}"
        for p in (CHART / "templates").rglob("*")
        if p.is_file() and not p.name.startswith("_")
    }
    produced = {
        path for r in rendered.values() for path, text in r.templates.items() if text.strip()
    }
    assert on_disk == produced


@pytest.mark.parametrize("version", KUBE_VERSIONS)
def test_manifests_validate_against_kubernetes(each: Rendered, version: str) -> None:
    for obj in each.objects:
        if check_custom_resource(each, obj):
            continue
        try:
            kubernetes_validate.validate(obj, version, strict=True)
        except kubernetes_validate.ValidationError as err:
            path = ".".join(str(p) for p in err.path)
            pytest.fail(f"{each.profile}: {obj['kind']} {path}: {err.message} (k8s {version})")


def check_names_and_labels(r: Rendered) -> None:
    # The API server checks these formats; the OpenAPI schemas do not.
    dns_label = re.compile(r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")
    dns_subdomain = re.compile(r"[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?")
    label_value = re.compile(r"([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?")
    for obj in r.objects:
        meta = obj["metadata"]
        # Pods may have longer names; a StatefulSet's revision label adds 11 characters.
        if obj["kind"] == "Pod":
            assert dns_subdomain.fullmatch(meta["name"]), meta["name"]
        else:
            assert dns_label.fullmatch(meta["name"]), meta["name"]
        if obj["kind"] == "StatefulSet":
            assert len(meta["name"]) <= 52, meta["name"]
        assert "namespace" not in meta  # helm install -n decides
        for value in meta["labels"].values():
            assert label_value.fullmatch(value), value


def test_names_and_labels_are_valid(each: Rendered) -> None:
    check_names_and_labels(each)


@pytest.mark.parametrize("profile", ["development", "sentinel"])
def test_names_fit_for_the_longest_release_name(chart: helm.Chart, profile: str) -> None:
    # Helm allows release names of up to 53 characters.
    values = profiles()[profile]
    templates = chart.render(values, name="r" * 53, namespace=NAMESPACE, is_install=True)
    check_names_and_labels(Rendered("long name", values, templates, load_manifests(templates)))


# ---- values and schema -------------------------------------------------------------


def test_app_version_is_the_package_version() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert CHART_META["appVersion"] == pyproject["project"]["version"]


def test_chart_defaults_are_the_service_defaults() -> None:
    # Listed for operators to see; an install without overrides runs as `genial serve` would.
    for name, value in DEFAULTS["settings"].items():
        assert as_env(value) == setting_default(field_name(name)), name
    assert DEFAULTS["ports"] == {
        name: setting_default(f"{name}_port") for name in ("grpc", "http", "admin")
    }
    assert DEFAULTS["redis"]["sentinel"]["masterName"] == setting_default("redis_sentinel_master")


def test_schema_knows_only_real_settings() -> None:
    schema = json.loads((CHART / "values.schema.json").read_text())
    for name in schema["properties"]["settings"]["properties"]:
        assert field_name(name) in SETTINGS, name


@pytest.mark.parametrize(
    ("values", "error"),
    [
        ({"replicaCount": "two"}, "replicaCount"),
        ({"replicas": 2}, "replicas"),
        ({"settings": {"logLevel": "LOUD"}}, "logLevel"),
        ({"settings": {"drainSecs": 5}}, "drainSecs"),
        ({"settings": {"drainSeconds": -1}}, "drainSeconds"),
        ({"ports": {"grpc": 70000}}, "grpc"),
        ({"redis": {"mode": "memcached"}}, "mode"),
        ({"redis": {"existingSecret": ""}}, "existingSecret"),
        ({"image": {"digest": "latest"}}, "digest"),
        ({"probes": {"readiness": {"check": "tcp"}}}, "check"),
        ({"ingress": {"enabled": True, "paths": ["v1"]}}, "paths"),
        ({"topologySpread": [{"topologyKey": "zone"}]}, "maxSkew"),
        ({"resources": {"requests": {"memory": "lots"}}}, "memory"),
        ({"ports": {"admin": 0}}, "admin"),
        ({"redis": {"mode": "sentinel"}}, "addresses"),
        ({"redis": {"mode": "sentinel", "sentinel": {"addresses": ["s0"]}}}, "addresses"),
        (
            {"redis": {"mode": "sentinel", "sentinel": {"addresses": ["s:1"], "masterName": ""}}},
            "masterName",
        ),
        ({"redis": {"mode": "sentinel", "enabled": True}}, "enabled"),
        (
            {"redis": {"auth": {"existingSecret": "s", "existingSecretKey": ""}}},
            "existingSecretKey",
        ),
        ({"tls": {"enabled": True}}, "existingSecret"),
        (
            {
                "tls": {"enabled": True, "existingSecret": "t"},
                "probes": {"readiness": {"check": "grpc"}},
            },
            "check",
        ),
        ({"grpcRoute": {"enabled": True}}, "parentRefs"),
        ({"metrics": {"prometheusRule": {"enabled": True}}}, "runbookUrl"),
        ({"metrics": {"prometheusRule": {"runbookUrl": "docs/deploy.md"}}}, "runbookUrl"),
        ({"metrics": {"prometheusRule": {"errorRatio": 5}}}, "errorRatio"),
        ({"settings": {"corsOrigins": "https://a.example"}}, "corsOrigins"),
        ({"settings": {"corsOrigins": ["a.example"]}}, "corsOrigins"),
        ({"settings": {"trustedProxies": ["10.0.0.1"]}}, "trustedProxies"),
        ({"settings": {"redisWaitReplicas": -1}}, "redisWaitReplicas"),
        ({"settings": {"grpcServers": 0}}, "grpcServers"),
        ({"settings": {"tlsCertFile": "/x"}}, "tlsCertFile"),
        ({"networkPolicy": {"admin": {"from": [{"namespace": "monitoring"}]}}}, "namespace"),
        ({"extraVolumeMounts": [{"name": "ca"}]}, "mountPath"),
        ({"extraContainers": [{"name": "sidecar"}]}, "image"),
    ],
)
def test_bad_values_fail_at_install(chart: helm.Chart, values: dict[str, Any], error: str) -> None:
    with pytest.raises(helm.HelmValuesError, match=error):
        render(chart, values)


@pytest.mark.parametrize(
    ("values", "error"),
    [
        ({"redis": {"enabled": True, "mode": "cluster"}}, "redis.mode=standalone"),
        ({"ports": {"admin": 8080}}, "three different ports"),
    ],
)
def test_unsupported_redis_setups_fail_at_install(
    chart: helm.Chart, values: dict[str, Any], error: str
) -> None:
    with pytest.raises(helm.HelmRenderError, match=error):
        render(chart, values)

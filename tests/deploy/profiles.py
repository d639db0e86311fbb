"""The sets of values the chart is rendered with: what an operator would pass to `helm install`.

No values (the defaults), the production file as `-f helm/values-production.yaml`, a
development install with the chart's own Redis, a Redis Cluster install with the other
branches, and a Sentinel install with every option of the chart on.
"""

from __future__ import annotations

import copy
from typing import Any

import helm_python as helm

from tests.deploy.paths import PRODUCTION_VALUES


def production_values() -> dict[str, Any]:
    # Helm's own YAML reader, as `-f` uses it.
    return helm.values_from_yaml(PRODUCTION_VALUES.read_text())


def merged(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    """`base` with `override` merged in, the way Helm coalesces two values files."""
    result = copy.deepcopy(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(result.get(key), dict):
            result[key] = merged(result[key], value)
        else:
            result[key] = value
    return result


RUNBOOKS = "https://git.example.com/games/genial/blob/main/docs/deploy.md"


def profiles() -> dict[str, dict[str, Any]]:
    production = production_values()
    return {
        "default": {},
        "production": production,
        "development": {
            "redis": {"enabled": True, "auth": {"existingSecret": "genial-redis-auth"}},
            "replicaCount": 1,
            "ingress": {"enabled": True, "className": "traefik"},
            "metrics": {"serviceMonitor": {"enabled": True}},
            "settings": {"logLevel": "DEBUG", "logJson": False},
        },
        "cluster": merged(
            production,
            {
                "redis": {"mode": "cluster", "existingSecret": "redis-cluster"},
                "networkPolicy": {"externalRedisPodLabels": {"app": "redis-cluster"}},
                "probes": {"readiness": {"check": "grpc"}},
                "shutdown": {"preStopSeconds": 0},
                "image": {"digest": "sha256:" + "ab" * 32},
                "imagePullSecrets": [{"name": "registry"}],
                "extraEnv": [{"name": "TZ", "value": "UTC"}],
                "settings": {"maxRequestBytes": 1000000, "redisTimeout": 0.5, "grpcServers": 4},
                "serviceAccount": {"create": False, "name": "genial-runner"},
                "service": {"type": "LoadBalancer"},
            },
        ),
        # Every option the chart has beyond the profiles above, on.
        "sentinel": merged(
            production,
            {
                "players": {"sessionKeys": {"existingSecret": "genial-session-keys"}},
                "webhooks": {"endpoints": {"existingSecret": "genial-webhooks"}},
                "redis": {
                    "mode": "sentinel",
                    "existingSecret": "",
                    "auth": {"existingSecret": "redis-auth", "existingSecretKey": "password"},
                    "sentinel": {
                        "addresses": ["redis-node-0.redis:26379", "[fd00::7]:26379"],
                        "masterName": "games",
                        "auth": {"existingSecret": "redis-auth", "existingSecretKey": "sentinel"},
                    },
                },
                "ports": {"admin": 9100},
                "tls": {"enabled": True, "existingSecret": "genial-tls"},
                "grpcRoute": {
                    "enabled": True,
                    "annotations": {"example.com/team": "games"},
                    "parentRefs": [
                        {"name": "public", "namespace": "gateway", "sectionName": "https"}
                    ],
                    "hostnames": ["grpc.genial.example.com"],
                },
                "settings": {
                    "serveWeb": False,
                    "serveDocs": False,
                    "corsOrigins": ["https://play.example.com", "https://beta.example.com"],
                    "trustedProxies": ["10.42.0.0/16", "fd00:42::/64"],
                    "otlpEndpoint": "http://otel-collector.observability:4317",
                    "redisWaitReplicas": 1,
                    "redisWaitTimeoutMs": 250,
                },
                "metrics": {
                    "prometheusRule": {
                        "enabled": True,
                        "labels": {"release": "prometheus"},
                        "runbookUrl": RUNBOOKS,
                    },
                    "dashboard": {"enabled": True, "labels": {"team": "games"}},
                },
                "networkPolicy": {
                    "api": {
                        "from": [
                            {
                                "namespaceSelector": {
                                    "matchLabels": {"kubernetes.io/metadata.name": "traefik"}
                                }
                            }
                        ]
                    },
                    "admin": {
                        "from": [
                            {
                                "namespaceSelector": {
                                    "matchLabels": {"kubernetes.io/metadata.name": "observability"}
                                },
                                "podSelector": {
                                    "matchLabels": {"app.kubernetes.io/name": "prometheus"}
                                },
                            }
                        ]
                    },
                },
                "extraVolumes": [{"name": "redis-ca", "configMap": {"name": "redis-ca"}}],
                "extraVolumeMounts": [
                    {"name": "redis-ca", "mountPath": "/etc/redis-ca", "readOnly": True}
                ],
                "initContainers": [WAIT_FOR_SENTINEL],
                "extraContainers": [LOG_SHIPPER],
            },
        ),
    }


LOCKED_DOWN = {
    "allowPrivilegeEscalation": False,
    "readOnlyRootFilesystem": True,
    "privileged": False,
    "capabilities": {"drop": ["ALL"]},
}
WAIT_FOR_SENTINEL = {
    "name": "wait-for-sentinel",
    "image": "busybox:1.37",
    "command": ["sh", "-c", "until nc -z redis-node-0.redis 26379; do sleep 1; done"],
    "securityContext": LOCKED_DOWN,
}
LOG_SHIPPER = {
    "name": "log-shipper",
    "image": "fluent/fluent-bit:3.2",
    "resources": {"requests": {"cpu": "10m", "memory": "16Mi"}, "limits": {"memory": "32Mi"}},
    "securityContext": LOCKED_DOWN,
}

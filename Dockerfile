# syntax=docker/dockerfile:1
# The genial worker image: `genial serve`, gRPC on 50051 and HTTP on 8080; health, readiness
# and metrics on 9090 (the admin port, never to be published outside the cluster).
#
#   docker build -t genial:0.1.0 .
#   docker run --rm -p 50051:50051 -p 8080:8080 -e GENIAL_REDIS_URL=redis://HOST:6379/0 genial:0.1.0
#
# Both stages use the same pinned base, so the virtualenv built in the first one finds its
# interpreter at the same path in the second. Bump the tag (and pin its digest in your
# registry) on each Python patch release.

FROM python:3.11.15-slim-bookworm AS build

ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1

# Every dependency ships a manylinux wheel (grpcio, hiredis, uvloop), so no compiler is
# needed; hatchling, the build backend, is fetched by pip in its isolated build env.
RUN python -m venv /opt/genial

WORKDIR /src
# The context is only what the wheel is built from (.dockerignore lists it): pyproject,
# the README it names, and the package folders, among them the generated protobuf code
# committed in clients/python/genial/v1, so no code generation runs here.
COPY . .
# pip compiles every module to bytecode at install, so the read-only image never has to.
RUN /opt/genial/bin/pip install . \
    && /opt/genial/bin/genial --help >/dev/null


FROM python:3.11.15-slim-bookworm

LABEL org.opencontainers.image.title="genial" \
      org.opencontainers.image.description="Einfach Genial game service: gRPC and HTTP/JSON, state in Redis" \
      org.opencontainers.image.licenses="MIT"

# A numeric user, so that Kubernetes can check runAsNonRoot without looking it up.
RUN groupadd --system --gid 10001 genial \
    && useradd --system --uid 10001 --gid genial --no-create-home \
       --home-dir /nonexistent --shell /usr/sbin/nologin genial

COPY --from=build /opt/genial /opt/genial

# Nothing is written at run time (bytecode was compiled at build), so the root filesystem
# can be mounted read-only. Logs go to stdout unbuffered.
ENV PATH=/opt/genial/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    GENIAL_HOST=0.0.0.0 \
    GENIAL_GRPC_PORT=50051 \
    GENIAL_HTTP_PORT=8080 \
    GENIAL_ADMIN_PORT=9090

USER 10001:10001
EXPOSE 50051 8080 9090

# The slim image has no curl: the interpreter asks the admin port for /healthz itself.
# (Kubernetes ignores HEALTHCHECK and uses the chart's probes.)
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/healthz' % os.environ.get('GENIAL_ADMIN_PORT', '9090'), timeout=2)"]

# genial is PID 1: it handles SIGTERM itself (stops taking requests, drains for
# GENIAL_DRAIN_SECONDS, exits) and starts no child processes to reap.
ENTRYPOINT ["genial", "serve"]

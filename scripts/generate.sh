#!/usr/bin/env bash
# Regenerates the committed client code from proto/ into clients/: the Python messages and
# gRPC stubs with type stubs (python/genial/v1), the TypeScript messages and service
# descriptors (typescript/src/gen) and the OpenAPI document (openapi.json). The code for
# mobile apps (Java, Kotlin, Objective-C) is not committed: `npx buf generate` makes it on
# demand (buf.gen.yaml, clients/README.md).
#
# Usage: scripts/generate.sh [ROOT]   writes ROOT/clients/... (default: this repository);
# tests/clients/test_generated.py generates into a temporary ROOT and compares.
#
# The output is committed: the service imports it as genial.v1.*, and a clean clone must
# not need protoc to run. grpc_tools' protoc brings google/protobuf; third_party/ brings the
# vendored google/api imports (their Python modules come from googleapis-common-protos).
# PYTHON picks the interpreter that has grpcio-tools (default: the project's .venv);
# protoc-gen-es comes from clients/typescript/node_modules. `make generate` installs both.
set -euo pipefail
cd "$(dirname "$0")/.."

python=${PYTHON:-.venv/bin/python}
clients=${1:-.}/clients
out=$clients/python
protos=(proto/genial/v1/*.proto)
google_api=(third_party/google/api/*.proto)
es_plugin=clients/typescript/node_modules/.bin/protoc-gen-es

command -v "$es_plugin" >/dev/null \
  || { echo "$es_plugin is missing: run make generate" >&2; exit 1; }

# Files the protos no longer produce must not linger, so every output folder starts empty.
generated=("$out/genial/v1" "$clients/typescript/src/gen")
rm -rf "${generated[@]}"
mkdir -p "${generated[@]}"
"$python" -m grpc_tools.protoc -I proto -I third_party \
  --python_out="$out" --pyi_out="$out" "${protos[@]}"
# Only files with a service get gRPC stubs; the plugin would write empty ones for the rest.
"$python" -m grpc_tools.protoc -I proto -I third_party \
  --grpc_python_out="$out" $(grep -l '^service ' "${protos[@]}")
# The generated modules drop the comments: the descriptors with their source info are kept
# beside them, for the OpenAPI document the service builds (and serves) from them.
"$python" -m grpc_tools.protoc -I proto -I third_party --include_source_info \
  --descriptor_set_out="$out/genial/v1/descriptors.binpb" "${protos[@]}"
echo "generated $(ls "$out/genial/v1" | wc -l) files in $out/genial/v1"

# TypeScript: google/api is generated too, as no npm package ships it for protobuf-es; the
# REST transport reads each method's route from its google.api.http option.
"$python" -m grpc_tools.protoc -I proto -I third_party \
  --plugin=protoc-gen-es="$es_plugin" --es_out="$clients/typescript/src/gen" \
  --es_opt=target=ts,import_extension=js "${protos[@]}" "${google_api[@]}"
echo "generated $(find "$clients/typescript/src/gen" -type f | wc -l) files in" \
  "$clients/typescript/src/gen"

# build/dev (make install) maps the working tree to `genial`; the fresh genial.v1 comes
# first, so the document describes the protos just compiled.
PYTHONPATH="$out:build/dev" "$python" -m genial.service.openapi "$clients/openapi.json"
echo "generated $clients/openapi.json"

#!/usr/bin/env bash
# Regenerates the API's Python code (clients/python/genial/v1) and the OpenAPI document
# (clients/openapi.json) from proto/.
#
# The output is committed: the service imports it as genial.v1.*, and a clean clone must
# not need protoc to run. grpc_tools' protoc brings google/protobuf; third_party/ brings the
# vendored google/api imports (their Python modules come from googleapis-common-protos).
# PYTHON picks the interpreter that has grpcio-tools (default: the project's .venv).
set -euo pipefail
cd "$(dirname "$0")/.."

python=${PYTHON:-.venv/bin/python}
clients=clients
out=$clients/python
protos=(proto/genial/v1/*.proto)

# Files the protos no longer produce must not linger, so start from an empty folder.
rm -rf "$out/genial/v1"
mkdir -p "$out/genial/v1"
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

# build/dev (make install) maps the working tree to `genial`; the fresh genial.v1 comes
# first, so the document describes the protos just compiled.
PYTHONPATH="$out:build/dev" "$python" -m genial.service.openapi "$clients/openapi.json"
echo "generated $clients/openapi.json"

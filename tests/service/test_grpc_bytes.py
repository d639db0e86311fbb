"""Bytes that are no request at all get INVALID_ARGUMENT over gRPC, never UNKNOWN."""

from __future__ import annotations

import grpc
import pytest

from tests.service.conftest import Worker

GARBAGE = [b"\xff\xff\xff\x0f\x01", b"\x0a\xff\xff\xff\xff\x0f", b"\x08" * 3]


@pytest.mark.parametrize("method", ["CreateGame", "GetGame", "MakeMove", "WatchGame"])
def test_undecodable_requests_are_invalid_arguments(memory_worker: Worker, method: str) -> None:
    with grpc.insecure_channel(f"127.0.0.1:{memory_worker.grpc_port}") as channel:
        path = f"/genial.v1.GameService/{method}"
        if method == "WatchGame":
            stream = channel.unary_stream(path)

            def call(raw: bytes) -> object:
                return list(stream(raw, timeout=10))
        else:
            unary = channel.unary_unary(path)

            def call(raw: bytes) -> object:
                return unary(raw, timeout=10)

        for raw in GARBAGE:
            with pytest.raises(grpc.RpcError) as err:
                call(raw)
            assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT, raw

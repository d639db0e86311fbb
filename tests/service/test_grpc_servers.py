"""The gRPC port served by several grpc.aio servers of one worker (`grpc_servers`): each
takes up one call at a time, so that one alone left the loop idle between calls
(docs/performance.md, "Round eight"). The port stays the worker's own."""

from __future__ import annotations

import errno
import socket

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from genial.service.app import GameApp
from genial.service.grpc_server import start_grpc
from genial.service.settings import Settings
from genial.service.store import MemoryStore
from tests.service.conftest import start_worker, stop_worker
from tests.service.sockets import LISTEN, sockets


def bind_error(port: int, *, reuse_port: bool) -> int | None:
    """The errno of binding 127.0.0.1:`port` from this process, None if it could."""
    with socket.socket() as sock:
        if reuse_port:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError as err:
            return err.errno
        return None


def healthy_on_own_connections(port: int, connections: int) -> list[int]:
    """The health status over `connections` connections of their own: the kernel deals them
    out among the port's listening sockets."""
    statuses = []
    for _ in range(connections):
        options = [("grpc.use_local_subchannel_pool", 1)]  # a connection per channel
        with grpc.insecure_channel(f"127.0.0.1:{port}", options=options) as channel:
            stub = health_pb2_grpc.HealthStub(channel)
            reply = stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=5)
            statuses.append(reply.status)
    return statuses


def test_several_servers_share_the_port_and_no_other_process_takes_it() -> None:
    worker = start_worker("", "--grpc-servers", "4")
    try:
        assert sockets(worker.grpc_port, LISTEN) == 4
        serving = health_pb2.HealthCheckResponse.SERVING
        assert healthy_on_own_connections(worker.grpc_port, 16) == [serving] * 16
        # Another process's socket without SO_REUSEPORT is refused, as with one server.
        assert bind_error(worker.grpc_port, reuse_port=False) == errno.EADDRINUSE
    finally:
        stop_worker(worker)
    assert sockets(worker.grpc_port, LISTEN) == 0


def test_one_server_opens_the_port_without_reuse() -> None:
    worker = start_worker("", "--grpc-servers", "1")
    try:
        assert sockets(worker.grpc_port, LISTEN) == 1
        # Not even a socket that asks for SO_REUSEPORT shares it: the worker's did not.
        assert bind_error(worker.grpc_port, reuse_port=True) == errno.EADDRINUSE
    finally:
        stop_worker(worker)


async def test_no_server_is_refused_at_start() -> None:
    settings = Settings(grpc_servers=0)
    with pytest.raises(ValueError, match="grpc_servers is at least 1"):
        await start_grpc(GameApp(MemoryStore(), settings), "127.0.0.1", 0)

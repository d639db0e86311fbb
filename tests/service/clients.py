"""The API as the tests drive it: one interface, one implementation per transport.

Scenarios are written once against `ApiClient`; each transport answers with the
same proto messages and raises `CallError` with the gRPC code name and the reason.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Protocol

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from genial.v1 import game_service_pb2 as api
from genial.v1 import game_service_pb2_grpc as api_grpc


@dataclass
class CallError(Exception):
    code: str
    reason: str
    message: str
    metadata: dict[str, str]


class ApiClient(Protocol):
    def call(self, method: str, request: Any, token: str | None = None) -> Any: ...

    def watch(
        self, request: api.WatchGameRequest, token: str | None = None, timeout: float = 30
    ) -> Iterator[api.WatchGameResponse]: ...

    def close(self) -> None: ...


class GrpcClient:
    def __init__(self, port: int) -> None:
        self.channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        self.stub = api_grpc.GameServiceStub(self.channel)

    @staticmethod
    def _metadata(token: str | None) -> tuple[tuple[str, str], ...]:
        return (("authorization", f"Bearer {token}"),) if token else ()

    @staticmethod
    def _error(err: grpc.RpcError) -> CallError:
        status = rpc_status.from_call(err)  # type: ignore[arg-type]
        reason, metadata = "", {}
        for detail in status.details if status else ():
            info = error_details_pb2.ErrorInfo()
            if detail.Unpack(info):
                reason, metadata = info.reason, dict(info.metadata)
        return CallError(err.code().name, reason, err.details() or "", metadata)  # type: ignore[attr-defined]

    def call(self, method: str, request: Any, token: str | None = None) -> Any:
        try:
            return getattr(self.stub, method)(request, metadata=self._metadata(token), timeout=30)
        except grpc.RpcError as err:
            raise self._error(err) from None

    def watch(
        self, request: api.WatchGameRequest, token: str | None = None, timeout: float = 30
    ) -> Iterator[api.WatchGameResponse]:
        try:
            yield from self.stub.WatchGame(request, metadata=self._metadata(token), timeout=timeout)
        except grpc.RpcError as err:
            raise self._error(err) from None

    def close(self) -> None:
        self.channel.close()

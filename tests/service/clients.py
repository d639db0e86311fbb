"""The API as the tests drive it: one interface, one implementation per transport.

Scenarios are written once against `ApiClient`; each transport answers with the
same proto messages and raises `CallError` with the gRPC code name and the reason.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol
from urllib.parse import quote

import grpc
import httpx
from google.protobuf import json_format
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from genial.service.routes import ROUTES, Route
from genial.v1 import game_service_pb2 as api
from genial.v1 import game_service_pb2_grpc as api_grpc
from genial.v1 import match_service_pb2_grpc as match_grpc
from genial.v1 import player_service_pb2 as pb
from genial.v1 import player_service_pb2_grpc as pb_grpc
from genial.v1 import webhook_service_pb2_grpc as webhook_grpc


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

    def watch_player(
        self, request: pb.WatchPlayerRequest, token: str | None = None, timeout: float = 30
    ) -> Iterator[pb.WatchPlayerResponse]: ...

    def close(self) -> None: ...


def whole_history(
    client: ApiClient, game_id: str, token: str | None = None
) -> api.GetHistoryResponse:
    """Every page of a game's history, as one answer."""
    whole = client.call("GetHistory", api.GetHistoryRequest(game_id=game_id), token)
    while whole.next_page_token:
        page = client.call(
            "GetHistory",
            api.GetHistoryRequest(game_id=game_id, page_token=whole.next_page_token),
            token,
        )
        whole.entries.extend(page.entries)
        whole.seed, whole.next_page_token = page.seed, page.next_page_token
    return whole


class GrpcClient:
    def __init__(self, port: int) -> None:
        self.channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        self.stub = api_grpc.GameServiceStub(self.channel)
        self.players = pb_grpc.PlayerServiceStub(self.channel)
        self.webhooks = webhook_grpc.WebhookServiceStub(self.channel)
        self.matches = match_grpc.MatchServiceStub(self.channel)

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
        stubs = (self.stub, self.players, self.webhooks, self.matches)
        stub = next(s for s in stubs if hasattr(s, method))
        try:
            return getattr(stub, method)(request, metadata=self._metadata(token), timeout=30)
        except grpc.RpcError as err:
            raise self._error(err) from None

    def watch(
        self, request: api.WatchGameRequest, token: str | None = None, timeout: float = 30
    ) -> Iterator[api.WatchGameResponse]:
        try:
            yield from self.stub.WatchGame(request, metadata=self._metadata(token), timeout=timeout)
        except grpc.RpcError as err:
            raise self._error(err) from None

    def watch_player(
        self, request: pb.WatchPlayerRequest, token: str | None = None, timeout: float = 30
    ) -> Iterator[pb.WatchPlayerResponse]:
        call = self.players.WatchPlayer(request, metadata=self._metadata(token), timeout=timeout)
        try:
            yield from call
        except grpc.RpcError as err:
            raise self._error(err) from None
        finally:
            call.cancel()

    def close(self) -> None:
        self.channel.close()


@dataclass
class ServerSentEvent:
    event: str = "message"
    id: str | None = None
    data: list[str] = field(default_factory=list)


def read_events(lines: Iterable[str]) -> Iterator[ServerSentEvent]:
    """The events of an SSE stream (comments, such as keep-alives, are skipped)."""
    event = ServerSentEvent()
    for line in lines:
        if not line:
            if event.data:
                yield event
            event = ServerSentEvent()
        elif not line.startswith(":"):
            name, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if name == "data":
                event.data.append(value)
            elif name == "event":
                event.event = value
            elif name == "id":
                event.id = value


class RestClient:
    """The HTTP/JSON gateway, called at the routes the proto's annotations give."""

    routes = {route.method.name: route for route in ROUTES}

    def __init__(self, port: int) -> None:
        self.http = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30)

    @staticmethod
    def _headers(token: str | None) -> dict[str, str]:
        return {"authorization": f"Bearer {token}"} if token else {}

    @staticmethod
    def _error(error: dict[str, Any]) -> CallError:
        return CallError(error["code"], error["reason"], error["message"], error["details"])

    @classmethod
    def _refused(cls, reply: httpx.Response) -> CallError:
        error = reply.json()["error"]
        assert error["status"] == reply.status_code
        return cls._error(error)

    def _request(self, method: str, request: Any) -> tuple[Route, str, dict[str, Any]]:
        """The route, the path and the fields left for the query or the body."""
        route = self.routes[method]
        # Query parameters are named like the proto's fields; a body has the JSON names.
        fields = json_format.MessageToDict(request, preserving_proto_field_name=not route.body)
        values = {}
        for f in route.path_fields:
            fields.pop(f.json_name if route.body else f.name, None)
            values[f.name] = quote(getattr(request, f.name), safe="")
        return route, route.template.format(**values), fields

    def call(self, method: str, request: Any, token: str | None = None) -> Any:
        route, path, fields = self._request(method, request)
        reply = self.http.request(
            route.verb,
            path,
            params=None if route.body else fields,
            json=fields if route.body else None,
            headers=self._headers(token),
        )
        if reply.is_error:
            raise self._refused(reply)
        assert (reply.status_code, reply.headers["content-type"]) == (200, "application/json")
        return json_format.Parse(reply.content, route.response_class())

    def watch(
        self, request: api.WatchGameRequest, token: str | None = None, timeout: float = 30
    ) -> Iterator[api.WatchGameResponse]:
        """The stream's answers; keep-alives are SSE comments, so none is yielded."""
        for _, data in self.stream("WatchGame", request, token, timeout):
            yield json_format.Parse(data, api.WatchGameResponse())

    def watch_player(
        self, request: pb.WatchPlayerRequest, token: str | None = None, timeout: float = 30
    ) -> Iterator[pb.WatchPlayerResponse]:
        for event, data in self.stream("WatchPlayer", request, token, timeout):
            answer = json_format.Parse(data, pb.WatchPlayerResponse())
            assert (event.event, event.id) == (
                "games" if answer.HasField("games") else "player",
                answer.cursor,
            )
            yield answer

    def stream(
        self,
        method: str,
        request: Any,
        token: str | None,
        timeout: float,
        headers: dict[str, str] | None = None,
    ) -> Iterator[tuple[ServerSentEvent, str]]:
        """A stream's events and their data; an `error` event is raised."""
        route, path, fields = self._request(method, request)
        headers = {**self._headers(token), **(headers or {})}
        with self.http.stream(
            route.verb, path, params=fields, headers=headers, timeout=timeout
        ) as reply:
            if reply.is_error:
                reply.read()
                raise self._refused(reply)
            for event in read_events(reply.iter_lines()):
                data = "\n".join(event.data)
                if event.event == "error":
                    raise self._error(json.loads(data)["error"])
                yield event, data

    def close(self) -> None:
        self.http.close()

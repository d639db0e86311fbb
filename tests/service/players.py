"""Players as the tests drive them: signing in, watching a player's feed in a thread (with
reconnection from the last cursor, as the SDKs do), and playing a player's seat."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable

import httpx

from genial.v1 import game_service_pb2 as api
from genial.v1 import player_service_pb2 as pb
from genial.v1 import types_pb2 as types
from tests.service.clients import ApiClient, CallError


def sign_in(client: ApiClient, device_id: str, name: str = "") -> pb.Session:
    made = client.call(
        "CreateSession", pb.CreateSessionRequest(device_id=device_id, display_name=name)
    )
    return made.session  # type: ignore[no-any-return]


class Watcher:
    """A player's WatchPlayer in a thread of its own, on a client of its own. Each stream
    lasts `stretch` seconds, then the watcher reconnects with the last cursor it got: so
    every test also resumes watches, and a stopped watcher ends within `stretch`."""

    def __init__(
        self, make_client: Callable[[], ApiClient], token: str, stretch: float = 2.0
    ) -> None:
        self.client = make_client()
        self.token = token
        self.stretch = stretch
        self.answers: list[pb.WatchPlayerResponse] = []
        self.connects = 0
        self.errors: list[BaseException] = []
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        # Events come from the moment of the first answer on: wait for it.
        deadline = time.monotonic() + 10
        while not self.snapshots and not self.errors and time.monotonic() < deadline:
            time.sleep(0.01)
        assert self.snapshots, self.errors

    @property
    def events(self) -> list[pb.PlayerEvent]:
        with self._lock:
            return [a.event for a in self.answers if a.HasField("event")]

    @property
    def snapshots(self) -> list[pb.LiveGames]:
        with self._lock:
            return [a.games for a in self.answers if a.HasField("games")]

    def _run(self) -> None:
        cursor = ""
        while not self._stop.is_set():
            self.connects += 1
            request = pb.WatchPlayerRequest(cursor=cursor)
            try:
                for answer in self.client.watch_player(request, self.token, self.stretch):
                    with self._lock:
                        self.answers.append(answer)
                    cursor = answer.cursor
                    if self._stop.is_set():
                        return
            except httpx.TimeoutException:
                continue
            except CallError as err:
                if err.code != "DEADLINE_EXCEEDED":
                    self.errors.append(err)
                    return
            except Exception as err:
                self.errors.append(err)
                return

    def wait_for(
        self, wanted: Callable[[pb.PlayerEvent], bool], timeout: float = 30
    ) -> pb.PlayerEvent:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert not self.errors, self.errors
            for event in self.events:
                if wanted(event):
                    return event
            time.sleep(0.05)
        raise AssertionError(f"no such event within {timeout} s; got {self.events}")

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(self.stretch + 10)
        self.client.close()


def of_type(kind: pb.PlayerEventType, game_id: str) -> Callable[[pb.PlayerEvent], bool]:
    return lambda event: event.type == kind and event.game_id == game_id


def play_seat(
    client: ApiClient, game_id: str, token: str, rnd: random.Random, limit: float = 60
) -> types.GameView:
    """Play the caller's seat (the others are bots) until the game is over."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        legal = client.call("ListLegalMoves", api.ListLegalMovesRequest(game_id=game_id), token)
        if legal.moves:
            try:
                client.call(
                    "MakeMove",
                    api.MakeMoveRequest(
                        game_id=game_id,
                        move=rnd.choice(legal.moves),
                        expected_version=legal.version,
                        request_id=f"{game_id}-{legal.version}",
                    ),
                    token,
                )
            except CallError as err:
                if err.reason != "STALE_VERSION":
                    raise
            continue
        view = client.call("GetGame", api.GetGameRequest(game_id=game_id), token).view
        if view.status == types.GAME_STATUS_FINISHED:
            return view  # type: ignore[no-any-return]
        time.sleep(0.02)  # a bot's turn
    raise AssertionError("the game did not end")

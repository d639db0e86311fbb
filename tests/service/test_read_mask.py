"""Read masks (AIP-157) on MakeMove, GetGame and WatchGame, through both transports: what a
mask keeps is exactly the caller's answer trimmed (so never more than the caller's view),
an unknown path is refused with BAD_READ_MASK before anything is done, and the REST
gateway prints only what the mask keeps."""

from __future__ import annotations

import itertools
import json
import random
from typing import Any

import httpx
import pytest
from google.protobuf.field_mask_pb2 import FieldMask
from google.protobuf.message import Message

from genial.service import convert
from genial.v1 import game_service_pb2 as api
from tests.service.clients import ApiClient, CallError, GrpcClient, RestClient, read_events
from tests.service.conftest import Worker
from tests.service.scenarios import Table, open_table

GAME_PATHS = [
    ["view"],
    ["view.version", "view.to_move", "view.status"],
    ["view.cards"],
    ["view.cards.hand"],
    ["view.cards.players", "view.viewer"],
    ["view.players", "view.seed", "view.seed_sha256"],
    ["view.last_events", "view.turn_deadline", "view.options"],
    ["view.dice", "view.tiles"],  # another game's table: nothing
    ["*"],
]
BAD_PATHS = [
    ["vew"],
    ["view.cards.hand.color"],  # through a repeated field
    ["view.cards.players.hand_size"],  # another seat's part is reached only as a whole
    ["view."],
]


def trimmed(full: Message, paths: list[str]) -> Message:
    """`full` with only `paths` kept, by protobuf's own FieldMask (with the JSON names)."""
    if "*" in paths:
        return full
    snake = [".".join(convert_name(n) for n in p.split(".")) for p in paths]
    kept = type(full)()
    FieldMask(paths=snake).MergeMessage(full, kept)
    return kept


def convert_name(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name)


def cards_in_play(client: ApiClient) -> Table:
    table = open_table(client, "cards", 3)
    rnd = random.Random(3)
    for _ in range(2):
        move(client, table, rnd)
    return table


def move(
    client: ApiClient, table: Table, rnd: random.Random, paths: list[str] | None = None
) -> api.MakeMoveResponse:
    view = client.call("GetGame", api.GetGameRequest(game_id=table.game_id)).view
    token = table.tokens[view.to_move]
    legal = client.call("ListLegalMoves", api.ListLegalMovesRequest(game_id=table.game_id), token)
    request = api.MakeMoveRequest(game_id=table.game_id, move=rnd.choice(legal.moves))
    if paths is not None:
        request.read_mask.paths.extend(paths)
    return client.call("MakeMove", request, token)  # type: ignore[no-any-return]


@pytest.mark.parametrize("seat", [0, 1, None])
def test_a_masked_view_is_the_callers_view_trimmed(client: ApiClient, seat: int | None) -> None:
    table = cards_in_play(client)
    token = None if seat is None else table.tokens[seat]
    full = client.call("GetGame", api.GetGameRequest(game_id=table.game_id), token)
    if seat is None:  # a spectator's view has no hand to give away
        assert not full.view.cards.hand
    for paths in GAME_PATHS:
        request = api.GetGameRequest(game_id=table.game_id, read_mask=FieldMask(paths=paths))
        masked = client.call("GetGame", request, token)
        assert masked == trimmed(full, paths), paths


def test_a_move_answered_with_version_and_events_only(client: ApiClient) -> None:
    table = cards_in_play(client)
    answer = move(client, table, random.Random(4), ["version", "events"])
    assert not answer.HasField("view")
    assert answer.version == 3
    assert answer.events
    after = client.call("GetGame", api.GetGameRequest(game_id=table.game_id)).view
    assert after.version == 3
    assert list(answer.events) == list(after.last_events)


@pytest.mark.parametrize(
    "paths", [["view.cards.hand", "view.version"], ["view"], ["events"], ["version"], ["*"]]
)
def test_a_masked_move_is_the_full_answer_trimmed(client: ApiClient, paths: list[str]) -> None:
    """A move sent twice with one request id has one answer: asked for with the mask and
    without (the move made with the mask, then replayed; and the other way round)."""
    table = cards_in_play(client)
    rnd = random.Random(9)
    for request_id, masks in (("a", [paths, []]), ("b", [[], paths])):
        view = client.call("GetGame", api.GetGameRequest(game_id=table.game_id)).view
        token = table.tokens[view.to_move]
        legal = client.call(
            "ListLegalMoves", api.ListLegalMovesRequest(game_id=table.game_id), token
        )
        chosen = rnd.choice(legal.moves)
        answers = [
            client.call(
                "MakeMove",
                api.MakeMoveRequest(
                    game_id=table.game_id,
                    move=chosen,
                    request_id=request_id,
                    read_mask=FieldMask(paths=mask),
                ),
                token,
            )
            for mask in masks
        ]
        masked, full = answers if masks[0] else answers[::-1]
        assert full.HasField("view")
        assert full.events
        assert masked == trimmed(full, paths)


@pytest.mark.parametrize("paths", BAD_PATHS)
def test_unknown_paths_are_refused_before_anything_is_done(
    client: ApiClient, paths: list[str]
) -> None:
    table = open_table(client, "dice", 2)
    mask = FieldMask(paths=paths)
    roll = convert.proto_move("dice", {"type": "roll"})
    calls: list[tuple[str, Any]] = [
        ("MakeMove", api.MakeMoveRequest(game_id=table.game_id, move=roll, read_mask=mask)),
        ("GetGame", api.GetGameRequest(game_id=table.game_id, read_mask=mask)),
    ]
    for method, request in calls:
        with pytest.raises(CallError) as refused:
            client.call(method, request, table.tokens[0])
        assert (refused.value.code, refused.value.reason) == ("INVALID_ARGUMENT", "BAD_READ_MASK")
    with pytest.raises(CallError) as refused:
        next(iter(client.watch(api.WatchGameRequest(game_id=table.game_id, read_mask=mask))))
    assert (refused.value.code, refused.value.reason) == ("INVALID_ARGUMENT", "BAD_READ_MASK")
    assert client.call("GetGame", api.GetGameRequest(game_id=table.game_id)).view.version == 0


def test_a_watch_sends_what_its_mask_keeps(client: ApiClient) -> None:
    table = cards_in_play(client)
    watches = {
        "events": ["events"],
        "view": ["version", "view.cards.hand"],
        "all": [],
    }
    seen: dict[str, list[api.WatchGameResponse]] = {}
    for name, paths in watches.items():
        request = api.WatchGameRequest(
            game_id=table.game_id, from_version=0, read_mask=FieldMask(paths=paths)
        )
        answers = client.watch(request, table.tokens[1], timeout=10)
        # Three joins (the last starts the game), two moves; keep-alives are left out.
        seen[name] = list(itertools.islice((a for a in answers if not a.keep_alive), 5))
    full = seen["all"]
    assert [a.version for a in full] == [0, 0, 0, 1, 2]
    assert seen["events"] == [trimmed(a, ["events"]) for a in full]
    assert seen["view"] == [trimmed(a, watches["view"]) for a in full]
    assert all(not a.HasField("view") for a in seen["events"])
    assert [list(a.view.cards.hand) for a in seen["view"]][-1] == list(full[-1].view.cards.hand)


# ---- the gateway's JSON -----------------------------------------------------------------


def test_the_gateway_prints_only_what_the_mask_keeps(redis_worker: Worker) -> None:
    rest = RestClient(redis_worker.http_port)
    try:
        table = open_table(rest, "dice", 2)
        token = {"authorization": f"Bearer {table.tokens[0]}"}
        url = f"/v1/games/{table.game_id}"
        roll = {"move": {"dice": {"roll": {}}}, "readMask": "version,events"}
        answer = rest.http.post(f"{url}/moves", json=roll, headers=token).json()
        assert set(answer) == {"version", "events"}
        assert answer["version"] == "1"
        # The proto's snake_case is read too; nested paths print the view's fields kept.
        for mask in ("view.toMove,view.dice.rerollsLeft", "view.to_move,view.dice.rerolls_left"):
            got = rest.http.get(url, params={"read_mask": mask}, headers=token).json()
            assert got == {"view": {"toMove": 0, "dice": {"rerollsLeft": 2}}}
        bare = rest.http.get(url, params={"read_mask": "view.version"}).json()
        assert bare == {"view": {"version": "1"}}
        refused = rest.http.get(url, params={"read_mask": "view.nope"})
        assert refused.status_code == 400
        assert refused.json()["error"]["reason"] == "BAD_READ_MASK"
        body = {"move": {"dice": {"roll": {}}}, "readMask": ["version"]}
        refused = rest.http.post(f"{url}/moves", json=body, headers=token)
        assert refused.json()["error"]["reason"] == "BAD_READ_MASK"
        # A watch's events keep their names and ids whatever the mask.
        params = {"from_version": "0", "read_mask": "view.version"}
        events = watch_events(rest.http, f"{url}/events", params, count=3)
        assert [(e, i) for e, i, _ in events] == [("join", "0-1"), ("join", "0-2"), ("move", "1")]
        assert [d for _, _, d in events] == [{"view": {"version": v}} for v in ("0", "0", "1")]
    finally:
        rest.close()


def watch_events(
    http: httpx.Client, path: str, params: dict[str, str], count: int
) -> list[tuple[str, str | None, Any]]:
    found = []
    with http.stream("GET", path, params=params, timeout=10) as reply:
        assert reply.status_code == 200
        for event in read_events(reply.iter_lines()):
            found.append((event.event, event.id, json.loads("\n".join(event.data))))
            if len(found) == count:
                break
    return found


def test_masked_answers_are_smaller_on_the_wire(redis_worker: Worker) -> None:
    grpc_client = GrpcClient(redis_worker.grpc_port)
    try:
        tables = [cards_in_play(grpc_client) for _ in range(2)]
        full = move(grpc_client, tables[0], random.Random(5))
        lean = move(grpc_client, tables[1], random.Random(5), ["version", "events"])
        assert lean.ByteSize() < full.ByteSize() / 3
    finally:
        grpc_client.close()

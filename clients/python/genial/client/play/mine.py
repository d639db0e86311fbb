"""`genial play` as a guest player: the device id that signs it in, kept in the user's
configuration folder (`$XDG_CONFIG_HOME/genial/device-id`, `~/.config/genial/device-id` by
default; readable by the user alone, since it is the guest's only credential), and
`genial play --mine`, the player's games."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from genial.client import GenialClient, GenialError, kind_name
from genial.v1 import types_pb2 as types

STATUS = {
    types.GAME_STATUS_WAITING: "waiting",
    types.GAME_STATUS_PLAYING: "playing",
    types.GAME_STATUS_FINISHED: "over",
}


def device_path() -> Path:
    config = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(config) / "genial" / "device-id"


def device_id(path: Path) -> str:
    """The id this computer's guest signs in with: made once, then read back."""
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        pass
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    made = secrets.token_urlsafe(24)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as file:
        file.write(made)
    return made


async def my_games(target: str, device: str, prog: str) -> str:
    """The guest's games, one a line: where it is the player's turn first."""
    async with GenialClient.connect(target) as client:
        try:
            me = await client.sign_in_as_guest(device)
            games = [game async for game in me.my_games()]
        except GenialError as err:
            raise SystemExit(f"{prog}: {target}: {err}") from None
    if not games:
        return "no games yet: start one with  genial play dice --bots 1"
    lines = []
    for game in games:
        what = "your turn" if game.your_turn else "invited" if game.invited else STATUS[game.status]
        lines.append(
            f"{game.game_id}  {kind_name(game.kind):5}  seat {game.seat}  {what}"
            + ("  (resigned)" if game.resigned else "")
        )
    return "\n".join(lines) + f"\n\ncome back to one with  {prog} --resume GAME_ID"

"""A rated bot on the ladder in a few lines: the built-in greedy bot, online, until Ctrl-C
(or GENIAL_GAMES games). GENIAL_TARGET is the server ("localhost:50051")."""

import asyncio
import os
import signal

from genial.bots import make_bot
from genial.client.bot import run_bot


async def main() -> None:
    bots = {kind: make_bot(kind, "greedy", seed=1) for kind in ("dice", "tiles")}
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGINT, stop.set)
    stats = await run_bot(
        lambda view, moves: bots[view["kind"]].choose(view, moves),
        device_id=os.environ.get("GENIAL_DEVICE_ID", "greedy-example-bot-0001"),
        name="Greedy example",
        target=os.environ.get("GENIAL_TARGET", "localhost:50051"),
        kinds=("dice", "tiles"),
        accept_bots=True,
        games=int(os.environ.get("GENIAL_GAMES", "0")) or None,
        stop=stop,
    )
    print(f"played {stats.games} games, {stats.moves} moves")


asyncio.run(main())

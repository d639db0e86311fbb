"""Where a worker's CPU goes on the move path: py-spy samples sorted into parts.

py-spy samples the worker's stacks with their native frames (`--native`): half of a worker's
time is in C (the gRPC core, uvloop, the kernel's socket calls, protobuf's upb), which a
Python-only profile would lump under the event loop. Each sample is given to the part that
owns the innermost frame a rule recognises, read from the leaf outwards:

- engine: `genial.engine` (decode, apply, encode, view), with the JSON and hashing it calls;
- Redis client: the move path's connection (`service/store/redis_link.py`), the store's
  record codec (`service/store/record_codec.py`: zstd or zlib), redis-py and hiredis, and asyncio
  streams (only redis-py uses them here), with the socket calls beneath them;
- serialisation: protobuf (upb and json_format), `service/convert.py`,
  `service/json_codec.py`, building the view (`service/views.py`), the stored records
  (`service/records.py`: metadata, log entries), the HTTP gateway's body decoding, and the
  gRPC response serializer; JSON and msgspec count for whoever calls them;
- transport: the gRPC core and `grpc.aio`, uvicorn, httptools and Litestar, and the
  service's transport wrappers (`service/invoke.py`, the one path every call takes);
- service: the rest of `genial.service` (authentication, the move path's own logic, the
  store's key and record handling) and the Prometheus metrics it records;
- event loop & other: the loop's own machinery, the garbage collector, anything unowned.

Samples whose leaf is the event loop waiting (`epoll_wait`) are idle and left out.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import sys
from collections import Counter
from pathlib import Path
from typing import Any

PARTS = (
    "engine",
    "Redis client",
    "serialisation",
    "transport",
    "service",
    "event loop & other",
)
IDLE = "idle"
SYSTEM = "system calls"
SYSCALLS = frozenset(
    (
        "write",
        "writev",
        "send",
        "sendmsg",
        "read",
        "readv",
        "recv",
        "recvmsg",
        "recvfrom",
        "eventfd_write",
        "eventfd_read",
        "syscall",
        "epoll_ctl",
        "getpid",
        "sem_post",
        "futex",
    )
)
"""Leaves in the kernel. A worker that wakes another process (Redis, the client) can lose its
core inside the call, and py-spy still counts it as busy there: on a busy machine these
samples outweigh the kernel's CPU time, which `classify` checks against /proc."""
RATE = 200
"""Samples a second: enough for shares to a percent in a few seconds."""
FRAME = re.compile(r"^(?P<func>.*) \((?P<file>[^():]*)(?::\d+)?\)$")
ENGINE = re.compile(r"(?:^|genial/)engine/")
SERVICE = re.compile(r"(?:^|genial/)service/(?:\w+/)?(?P<module>\w+)\.py$")
"""A module of the service, or of one of its packages (`service/store/redis_link.py`)."""
REDIS = ("redis/", "hiredis/", "asyncio/streams.py")
PROTOBUF = ("google/protobuf/", "_message.abi3", "upb/")
TRANSPORT = ("grpc/", "grpc_status/", "litestar/", "uvicorn/", "httptools/", "h11/")
CODECS = ("json/", "_json.c", "msgspec/")
"""JSON codecs: their time belongs to the part that calls them (Litestar's to transport)."""
SERIALISING_MODULES = ("convert", "json_codec", "views", "records")
SERIALISING = {
    "http": ("_decode", "_read_json", "_too_deep"),
    "grpc_server": ("<lambda>",),
}
"""Functions of the service's other modules that only turn data into bytes or back."""
TRANSPORT_MODULES = ("grpc_server", "http", "invoke", "routes")


def py_spy() -> str:
    found = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    if not Path(found).exists():
        raise RuntimeError("py-spy is missing: install the `load` extra (`make bench` does)")
    return found


async def record(pid: int, delay: float, seconds: float, out: Path) -> None:
    """Sample `pid` for `seconds`, starting after `delay`, into `out` (py-spy's raw format)."""
    await asyncio.sleep(delay)
    proc = await asyncio.create_subprocess_exec(
        py_spy(),
        "record",
        "--pid",
        str(pid),
        "--duration",
        str(max(1, round(seconds))),
        "--rate",
        str(RATE),
        "--native",
        "--format",
        "raw",
        "--output",
        str(out),
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    _, errors = await proc.communicate()
    if proc.returncode != 0 or not out.exists():
        said = errors.decode(errors="replace").strip().splitlines()[-1:] or ["no message"]
        raise RuntimeError(f"py-spy could not sample process {pid}: {said[0]}")


def _service_part(module: str, func: str, under_codec: bool) -> str:
    if module in ("redis_link", "record_codec"):
        return "Redis client"
    if module in SERIALISING_MODULES or func in SERIALISING.get(module, ()):
        return "serialisation"
    if under_codec and module == "http":
        return "serialisation"
    if module == "server":  # the root of every stack: uvloop runs under `run`
        return "event loop & other"
    if module in TRANSPORT_MODULES:
        return "transport"
    return "service"


def part_of(stack: list[tuple[str, str]]) -> tuple[str, str]:
    """The part a sample belongs to, and the frame that decided it (stack: leaf first)."""
    if stack and stack[0][0] in ("epoll_wait", "epoll_pwait"):
        return IDLE, ""
    if stack and stack[0][0] in SYSCALLS:
        caller = 1
        while caller < len(stack) and stack[caller][0] in SYSCALLS:  # eventfd_write > write
            caller += 1
        owner, where = part_of(stack[caller:])
        return f"{SYSTEM}: {owner}", where
    under_codec = False
    for func, file in stack:
        where = f"{func} ({file})"
        if ENGINE.search(file):
            return "engine", where
        if file.startswith(REDIS) or "hiredis" in file:
            return "Redis client", where
        if file.startswith(PROTOBUF) or any(p in file for p in PROTOBUF):
            return "serialisation", where
        if (service := SERVICE.search(file)) is not None:
            return _service_part(service["module"], func, under_codec), where
        if file.startswith(TRANSPORT) or "cygrpc" in file or "libgrpc" in file:
            return "transport", where
        if file.startswith("prometheus_client/"):
            return "service", where
        if file.startswith(CODECS):
            under_codec = True
    return "event loop & other", stack[0][0] if stack else ""


def parse(line: str) -> tuple[list[tuple[str, str]], int]:
    """One line of py-spy's raw output: the stack (leaf first) and its sample count."""
    frames, _, count = line.rstrip().rpartition(" ")
    stack = []
    for frame in reversed(frames.split(";")):
        match = FRAME.match(frame)
        stack.append((match["func"], match["file"]) if match else (frame, ""))
    return stack, int(count)


def classify(raw: Path, kernel_share: float) -> dict[str, Any]:
    """Shares of the busy samples by part, and the same with the system calls' samples cut
    down to `kernel_share` (the worker's kernel CPU time over its CPU time, from /proc, in the
    same window) and folded into the part that made each call: the CPU-time split."""
    parts: Counter[str] = Counter()
    frames: Counter[str] = Counter()
    for line in raw.read_text().splitlines():
        if not line.strip():
            continue
        stack, count = parse(line)
        part, frame = part_of(stack)
        parts[part] += count
        if part != IDLE:
            frames[f"{part}: {frame}"] += count
    busy = sum(n for p, n in parts.items() if p != IDLE)
    if not busy:
        raise RuntimeError(f"{raw}: no busy samples")
    system = {p.split(": ", 1)[1]: n for p, n in parts.items() if p.startswith(SYSTEM)}
    in_system = sum(system.values()) / busy
    user_scale = (1 - kernel_share) / (1 - in_system) if in_system < 1 else 0.0
    system_scale = kernel_share / in_system if in_system else 0.0
    return {
        "samples": busy + parts[IDLE],
        "idle": parts[IDLE] / (busy + parts[IDLE]),
        "in_system_calls": in_system,
        "kernel_share": kernel_share,
        "sampled": {p: parts[p] / busy for p in PARTS} | {SYSTEM: in_system},
        "cpu": {
            p: parts[p] / busy * user_scale + system.get(p, 0) / busy * system_scale for p in PARTS
        },
        "top": [(frame, n / busy) for frame, n in frames.most_common(12)],
    }


def describe(profile: dict[str, Any]) -> str:
    return ", ".join(f"{part} {share:.0%}" for part, share in profile["cpu"].items())

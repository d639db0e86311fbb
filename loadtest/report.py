"""The benchmark's report: the machine it ran on, and the Markdown tables of a run's data
(as `bench.run` returns it and the run's .json file keeps it)."""

from __future__ import annotations

import contextlib
import os
import platform
import statistics
import subprocess
import time
from importlib import metadata
from typing import Any

from google.protobuf.internal import api_implementation

from .generator import ELSEWHERE, MASKED_MOVE, PLAYER_MOVE


def load_average() -> str:
    """The machine's 1-minute load average: other work competes for the same cores."""
    return f"{os.getloadavg()[0]:.1f}"


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "absent"


def machine() -> dict[str, str]:
    cpu = "unknown"
    with contextlib.suppress(OSError), open("/proc/cpuinfo", encoding="utf-8") as f:
        cpu = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), cpu)
    memory = "unknown"
    with contextlib.suppress(OSError), open("/proc/meminfo", encoding="utf-8") as f:
        memory = f"{int(f.readline().split()[1]) / 2**20:.0f} GiB"
    redis_version = (
        subprocess.run(["redis-server", "--version"], capture_output=True, text=True, check=False)
        .stdout.split()[2]
        .removeprefix("v=")
    )
    return {
        "cpu": f"{cpu}, {os.cpu_count()} cores",
        "memory": memory,
        "os": f"{platform.system()} {platform.release()}",
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "protobuf": f"{_version('protobuf')} ({api_implementation.Type()} backend)",
        "grpcio": _version("grpcio"),
        "redis": f"redis-server {redis_version}, redis-py {_version('redis')}, "
        f"hiredis {_version('hiredis')}",
        "http": f"litestar {_version('litestar')}, uvicorn {_version('uvicorn')}, "
        f"httptools {_version('httptools')}, uvloop {_version('uvloop')}",
        "date": time.strftime("%Y-%m-%d %H:%M %Z"),
    }


def _ms(p: dict[str, float] | None) -> str:
    if p is None:
        return "-"
    return f"{p['p50']:.2f} / {p['p95']:.2f} / {p['p99']:.2f}"


def _paired_ratio(row: dict[str, Any], base: dict[str, Any]) -> float:
    """`row`'s worker CPU a call over `base`'s: the median of the ratios within each round
    (the two run back to back there, so a neighbour's burst that slows one round slows
    both), rather than the ratio of two medians taken from different rounds."""
    mine, theirs = row["round_cpu_ms"], base["round_cpu_ms"]
    if len(mine) != len(theirs) or not mine:
        return float(row["worker_cpu_ms"] / base["worker_cpu_ms"])
    return float(statistics.median(m / t for m, t in zip(mine, theirs, strict=True)))


def _find(
    rows: list[dict[str, Any]],
    transport: str,
    call: str,
    workers: int,
    mode: str = "peak",
    store: str = "redis",
) -> Any:
    wanted = (transport, call, workers, mode, store)
    return next(
        r
        for r in rows
        if (r["transport"], r["call"], r["workers"], r["mode"], r["store"]) == wanted
    )


def report(data: dict[str, Any]) -> str:
    rows = data["results"]
    lines = ["### Machine", ""]
    lines += [f"- {name}: {value}" for name, value in data["machine"].items()]
    s = data["settings"]
    lines += [
        f"- load: {s['concurrency']} calls in flight at peak; {s['rounds']} rounds a line, "
        f"each {s['warmup_seconds']:g} s of warm-up and {s['window_seconds']:g} s measured; "
        f"load average {s['load_before']} before the run, {s['load_after']} after",
        "",
        "### Rates and latencies",
        "",
        "Each line is the median of its rounds (the range of the rounds' rates beside it). "
        "Peak: a closed loop with the calls in flight; half: Poisson arrivals at half the peak "
        "rate, latency counted from arrival. Client latency from the generator; server latency "
        "from the workers' `genial_request_seconds` (bucket-interpolated, so coarse). Worker CPU "
        "a call: the workers' user + kernel CPU time over the calls answered (the median of the "
        "rounds'). Cores: CPU time over the window.",
        "",
        "| call | workers | load | calls/s | client p50 / p95 / p99 ms | "
        "server p50 / p95 / p99 ms | worker CPU ms a call | cores: workers / redis / generator "
        "| answer B | errors |",
        "| --- | --- | --- | ---: | --- | --- | ---: | --- | ---: | ---: |",
    ]
    for r in rows:
        load = (
            f"{r['concurrency']} in flight"
            if r["mode"] == "peak"
            else f"{r['target_rate']:.0f}/s offered"
        )
        cpu = r["cpu"]
        cost = f"{r['worker_cpu_ms']:.3f}" if r["workers"] else "-"
        rates = r["round_rates"]
        spread = f" ({min(rates):.0f}..{max(rates):.0f})" if len(rates) > 1 else ""
        lines.append(
            f"| {r['name']} | {r['workers'] or '-'} | {load} | {r['rate']:.0f}{spread} | "
            f"{_ms(r['client'])} | {_ms(r['server'])} | {cost} | "
            f"{cpu['workers']:.2f} / {cpu['redis']:.2f} / {cpu['generator']:.2f} | "
            f"{r.get('answer_bytes', 0):.0f} | {r['errors']} |"
        )
    lines += [
        "",
        "### Ratios",
        "",
        "| transport | workers | MakeMove ÷ empty, by rate | MakeMove ÷ empty, by worker CPU "
        "a call | MakeMove p99 at half the peak, client / server |",
        "| --- | --- | ---: | ---: | --- |",
    ]
    for r in rows:
        moves = ("MakeMove", ELSEWHERE, PLAYER_MOVE, MASKED_MOVE)
        if r["call"] not in moves or r["mode"] != "peak" or r["store"] != "redis":
            continue
        empty = _find(rows, r["transport"], "Empty", r["workers"])
        latency = "-"
        if r["call"] == "MakeMove":
            half = _find(rows, r["transport"], "MakeMove", r["workers"], "half")
            server_p99 = f"{half['server']['p99']:.2f} ms" if half["server"] else "-"
            latency = f"{half['client']['p99']:.2f} ms / {server_p99}"
        notes = {
            ELSEWHERE: " (each move on another worker)",
            PLAYER_MOVE: " (a player's JWT)",
            MASKED_MOVE: " (read_mask=version,events)",
        }
        transport = r["transport"] + notes.get(r["call"], "")
        if r["call"] == PLAYER_MOVE:
            seat = _find(rows, r["transport"], "MakeMove", r["workers"])
            ratio = _paired_ratio(r, seat)
            latency = f"worker CPU a call {ratio:.2f}x a seat token's"
        if r["call"] == MASKED_MOVE:
            full = _find(rows, r["transport"], "MakeMove", r["workers"])
            ratio = _paired_ratio(r, full)
            size = r["answer_bytes"] / full["answer_bytes"]
            latency = f"worker CPU a call {ratio:.2f}x, answer bytes {size:.2f}x a whole answer's"
        lines.append(
            f"| {transport} | {r['workers']} | {r['rate'] / empty['rate']:.2f} | "
            f"{empty['worker_cpu_ms'] / r['worker_cpu_ms']:.2f} | {latency} |"
        )
    lines += [
        "",
        "### A move's worker CPU, by subtraction (1 worker)",
        "",
        "The empty call is what any call costs; the move with the in-process store adds the "
        "move's own work (engine, service, serialisation of the larger messages); the move "
        "with Redis adds the Redis client.",
        "",
        "| transport | empty call | + the move without Redis | + Redis | = MakeMove (ms) |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    one_worker = any(r["workers"] == 1 and r["store"] == "redis" for r in rows)
    for transport in ("grpc", "rest") if one_worker else ():
        empty = _find(rows, transport, "Empty", 1)["worker_cpu_ms"]
        memory = _find(rows, transport, "MakeMove", 1, store="memory")["worker_cpu_ms"]
        move = _find(rows, transport, "MakeMove", 1)["worker_cpu_ms"]
        lines.append(
            f"| {transport} | {empty:.3f} | {memory - empty:+.3f} | {move - memory:+.3f} | "
            f"{move:.3f} |"
        )
    lines += [
        "",
        "### Redis per call",
        "",
        "Read events: how often Redis read from a client socket (`total_reads_processed`), one "
        "per round trip; commands include those the scripts run.",
        "",
        "| call | workers | read events | commands |",
        "| --- | --- | ---: | --- |",
    ]
    for r in rows:
        if r["mode"] != "peak" or r["call"] == "Empty" or r["store"] != "redis":
            continue
        per = r["redis_per_call"]
        commands = ", ".join(
            f"{name.removeprefix('cmd:')} {value:.2f}"
            for name, value in sorted(per.items())
            if name.startswith("cmd:") and value >= 0.01
        )
        lines.append(
            f"| {r['name']} | {r['workers'] or '-'} | {per.get('reads', 0):.2f} | {commands} |"
        )
    if data["storage"]:
        lines += [
            "",
            "### Stored size of a live game",
            "",
            "One game of each kind played to its end with random legal moves; the game's record "
            "at its largest while in play, as `MEMORY USAGE` counts it (with Redis's own "
            "overhead), the value stored (state and metadata, compressed), what it holds, and the "
            "history beside it, which grows by a move: the log, the snapshots every 32 moves "
            "and the request ids of the last moves.",
            "",
            "| game | seats | moves | record B | value B | state B | metadata B "
            "| log B a move | snapshots B a move | history B a move | request ids B a move |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
        lines += [
            f"| {st['kind']} | {st['seats']} | {st['moves']} | {st['record_bytes']} | "
            f"{st['value_bytes']} | {st['state_bytes']} | {st['meta_bytes']} | "
            f"{st['log_bytes_per_entry']:.0f} | {st['snapshot_bytes_per_move']:.0f} | "
            f"{st['log_bytes_per_entry'] + st['snapshot_bytes_per_move']:.0f} | "
            f"{st['request_bytes_per_entry']:.0f} |"
            for st in data["storage"]
        ]
    for transport, prof in data["profiles"].items():
        lines += [
            "",
            f"### Where a {transport} move's worker CPU goes (py-spy, 1 worker at peak)",
            "",
            f"{prof['rate_under_profiler']:.0f} moves/s while sampled; {prof['samples']} samples, "
            f"{prof['idle']:.0%} idle. Busy samples in system calls: "
            f"{prof['in_system_calls']:.0%}; the worker's kernel share of its CPU time: "
            f"{prof['kernel_share']:.0%}.",
            "",
            "| part | share of busy samples | share of CPU time |",
            "| --- | ---: | ---: |",
        ]
        lines += [
            f"| {part} | {prof['sampled'][part]:.0%} | {prof['cpu'][part]:.0%} |"
            for part in prof["cpu"]
        ]
        lines.append(f"| (in system calls) | {prof['in_system_calls']:.0%} | (folded in) |")
        lines += ["", "Heaviest frames (the frame that decided the part):", ""]
        lines += [f"- {share:.1%} {frame}" for frame, share in prof["top"]]
    return "\n".join(lines) + "\n"

"""What each patch of a library's internals buys (issue 35): benchmarks/sessions.py with the
patches all on, all off, and each one off alone, interleaved.

Usage: python benchmarks/patches.py [--players 200] [--duration 30] [--rounds 1]
           [--only on off chops ...] [--workers N] [-- SESSIONS_FLAGS...]

Each configuration is one run of `benchmarks/sessions.py` (its own fresh `lovelet serve`)
with `LOVELET_RENDER_PATCHES` set: `on`, `off`, or every patch but one (`-NAME`), and the
turn timer off unless `LOVELET_TABLE_TURN_TIMER` says otherwise (its countdown would add
screen updates of its own). The
configurations run one after another in each round, in the same order, so drift of the
machine's speed spreads over all of them; with several rounds each figure is the median.
Printed per configuration: server CPU per screen update (and without whole collections),
key → every screen of the table p50/p99 (raw byte stream), RSS per idle session, and the
longest stop of the server's loop for a whole collection while playing. The raw output of
each run goes to stderr.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from server.ops.config import RENDER_PATCHES  # noqa: E402

FIGURES = {
    "cpu_ms": re.compile(r"→ ([\d.]+) ms per screen update"),
    "cpu_no_gc_ms": re.compile(r"without those collections: ([\d.]+) ms"),
    "p50_ms": re.compile(r"key → all \d+ screens \(raw.*?p50 (\d+) ms"),
    "p99_ms": re.compile(r"key → all \d+ screens \(raw.*?p99 (\d+) ms"),
    "idle_mb": re.compile(r"([\d.]+) MB per idle session"),
    "stop_ms": re.compile(r"while playing: \d+, .*?longest (\d+) ms"),
}


def configurations(only: list[str]) -> dict[str, str]:
    """Name shown → value of LOVELET_RENDER_PATCHES."""
    every = {"on": "on", "off": "off"}
    for name in RENDER_PATCHES:
        every[f"-{name}"] = ",".join(n for n in RENDER_PATCHES if n != name)
    return {k: v for k, v in every.items() if not only or k in only or k.lstrip("-") in only}


def run_once(value: str, sessions_args: list[str]) -> dict[str, float]:
    """One sessions.py run with these patches; its figures."""
    env = {"LOVELET_TABLE_TURN_TIMER": "0", **os.environ, "LOVELET_RENDER_PATCHES": value}
    command = [sys.executable, str(ROOT / "benchmarks" / "sessions.py"), *sessions_args]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    sys.stderr.write(done.stdout)
    figures = {}
    for name, pattern in FIGURES.items():
        match = pattern.search(done.stdout)
        figures[name] = float(match[1]) if match else float("nan")
    return figures


def row(name: str, runs: list[dict[str, float]]) -> str:
    """One table row: the median of each figure over the runs."""
    median = {k: statistics.median(r[k] for r in runs) for k in FIGURES}
    return (
        f"| {name} | {median['cpu_ms']:.2f} ({median['cpu_no_gc_ms']:.2f}) | "
        f"{median['p50_ms']:.0f} / {median['p99_ms']:.0f} | {median['idle_mb']:.2f} | "
        f"{median['stop_ms']:.0f} |"
    )


def main() -> None:
    """Run every configuration `--rounds` times, interleaved; print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--duration", type=float, default=30.0)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--workers", type=int, default=0)
    parser.add_argument("--only", nargs="*", default=[])
    parser.add_argument("rest", nargs="*", help="more flags for sessions.py (after --)")
    args = parser.parse_args()
    sessions_args = ["--players", str(args.players), "--duration", str(args.duration)]
    sessions_args += ["--workers", str(args.workers), *args.rest]
    chosen = configurations(args.only)
    print(f"$ python benchmarks/patches.py {' '.join(sys.argv[1:])}")
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} cores")
    results: dict[str, list[dict[str, float]]] = {name: [] for name in chosen}
    for _ in range(args.rounds):
        for name, value in chosen.items():
            results[name].append(run_once(value, sessions_args))
            print(f"  {name}: {results[name][-1]}", flush=True)
    print(
        "| patches | ms CPU / update (without whole collections) | key → screens p50 / p99 ms "
        "| MB / idle session | longest loop stop ms |"
    )
    print("|---|---|---|---|---|")
    for name, runs in results.items():
        print(row(name, runs))
    print(f"load average {os.getloadavg()}")


if __name__ == "__main__":
    main()

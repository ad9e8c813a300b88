"""Command-line options of `python -m bench`."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

DEFAULT_SIZES = (1_000, 10_000, 100_000)


@dataclass(frozen=True)
class Options:
    sizes: tuple[int, ...]
    quick: bool
    queries: int
    warmup_queries: int
    sample: int
    concurrency: int
    neighbours: int
    neighbour_share: float
    lane_budget_s: float
    open_dream_target: int
    max_fill_cycles: int
    fill_budget_s: float
    peer: bool
    seed: int
    load_clients: int
    load_seconds: float

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def sample_for(self, size: int) -> int:
        """Memories loaded one call at a time at each end of the profile."""
        return max(1, min(self.sample, size // 4))


def _sizes(text: str) -> tuple[int, ...]:
    try:
        sizes = tuple(sorted({int(part.replace("_", "")) for part in text.split(",") if part.strip()}))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--sizes takes numbers separated by commas, got {text!r}") from None
    if not sizes or min(sizes) < 100:
        raise argparse.ArgumentTypeError("--sizes: each size must be at least 100")
    return sizes


def parse(argv: Sequence[str] | None = None) -> Options:
    parser = argparse.ArgumentParser(
        prog="python -m bench",
        description="Benchmark Reverie (ingestion, recall, dreaming, memory) against a local Neo4j.",
    )
    parser.add_argument(
        "--quick", action="store_true", help="1,000 memories, fewer queries, two 30 s loads: about 4 min"
    )
    parser.add_argument(
        "--sizes", type=_sizes, default=None, help="memories in the measured profile, e.g. 1000,10000"
    )
    parser.add_argument(
        "--queries", type=int, default=None, help="recall queries per lane (default 300, quick 200)"
    )
    parser.add_argument(
        "--warmup",
        type=int,
        default=None,
        help="unmeasured queries on every lane before recall is timed (default 300, quick 30)",
    )
    parser.add_argument(
        "--sample", type=int, default=1000, help="single-call remembers at each end (default 1000)"
    )
    parser.add_argument(
        "--concurrency", type=int, default=16, help="remember calls in flight for the bulk load"
    )
    parser.add_argument("--neighbours", type=int, default=2, help="other profiles in the same database")
    parser.add_argument(
        "--neighbour-share", type=float, default=0.1, help="each neighbour's size / measured size"
    )
    parser.add_argument("--lane-budget", type=float, default=None, help="seconds per recall lane at most")
    parser.add_argument("--open-dreams", type=int, default=1000, help="open dreams to re-evaluate")
    parser.add_argument("--no-peer", action="store_true", help="skip mcp-neo4j-memory")
    parser.add_argument("--seed", type=int, default=7, help="seed of the memories and queries")
    parser.add_argument(
        "--load-clients", type=int, default=16, help="MCP clients of the mixed load over HTTP (0: none)"
    )
    parser.add_argument(
        "--load-seconds", type=float, default=None, help="length of the mixed load (default 120, quick 30)"
    )
    args = parser.parse_args(argv)
    quick = bool(args.quick)
    sizes = args.sizes or ((1_000,) if quick else DEFAULT_SIZES)
    return Options(
        sizes=sizes,
        quick=quick,
        queries=args.queries or (200 if quick else 300),
        warmup_queries=args.warmup if args.warmup is not None else (30 if quick else 300),
        sample=args.sample,
        concurrency=max(1, args.concurrency),
        neighbours=max(0, args.neighbours),
        neighbour_share=max(0.0, args.neighbour_share),
        lane_budget_s=args.lane_budget or (15.0 if quick else 120.0),
        open_dream_target=args.open_dreams,
        max_fill_cycles=80,
        fill_budget_s=20.0 if quick else 900.0,
        peer=not args.no_peer,
        seed=args.seed,
        load_clients=max(0, args.load_clients),
        load_seconds=args.load_seconds if args.load_seconds is not None else (30.0 if quick else 120.0),
    )

"""How much memory the local Neo4j is given: a named size, or a heap and page cache spelt out.

The heap holds queries and transactions; the page cache holds the store files (nodes,
relationships, properties), so a page cache as large as the store keeps every read in memory.
A desktop profile of tens of thousands of memories has a store of a few hundred MB at most
(docs/benchmarks.md, "Footprint"), which is why the default is smaller than Neo4j's own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

_SIZE: Final = re.compile(r"(\d+)([mg])", re.IGNORECASE)
# Below these Neo4j still starts, but a cycle's transactions ran out of heap, and a page cache
# smaller than the schema's own stores is read from disk on every query.
MIN_HEAP_MB: Final = 256
MIN_PAGECACHE_MB: Final = 32


def _megabytes(value: str) -> int | None:
    match = _SIZE.fullmatch(value.strip())
    if match is None:
        return None
    number, unit = int(match.group(1)), match.group(2).lower()
    return number * 1024 if unit == "g" else number


@dataclass(frozen=True)
class Neo4jMemory:
    """Heap and page cache in MB; a transaction may use at most half the heap."""

    heap_mb: int
    pagecache_mb: int

    @property
    def heap(self) -> str:
        return f"{self.heap_mb}m"

    @property
    def pagecache(self) -> str:
        return f"{self.pagecache_mb}m"

    @property
    def transaction_max(self) -> str:
        return f"{self.heap_mb // 2}m"

    def describe(self) -> str:
        return f"heap {self.heap}, page cache {self.pagecache}"


NAMED_SIZES: Final = {
    "small": Neo4jMemory(heap_mb=256, pagecache_mb=64),
    "desktop": Neo4jMemory(heap_mb=512, pagecache_mb=256),
    # What every instance ran with before: the benchmarks keep it, so figures stay comparable.
    "large": Neo4jMemory(heap_mb=1024, pagecache_mb=512),
}
DEFAULT_SIZE: Final = "desktop"
DEFAULT_MEMORY: Final = NAMED_SIZES[DEFAULT_SIZE]


def parse_memory(value: str) -> Neo4jMemory:
    """`small`, `desktop`, `large`, or `heap=SIZE,pagecache=SIZE` with sizes such as 768m or 1g.

    Raises ValueError saying what is accepted."""
    named = NAMED_SIZES.get(value.strip().lower())
    if named is not None:
        return named
    accepted = (
        f"give one of {', '.join(NAMED_SIZES)} or heap=SIZE,pagecache=SIZE (sizes such as 512m "
        f"or 1g, heap at least {MIN_HEAP_MB}m, page cache at least {MIN_PAGECACHE_MB}m)"
    )
    parts = dict(part.strip().partition("=")[::2] for part in value.split(","))
    if set(parts) != {"heap", "pagecache"}:
        raise ValueError(f"{value!r} is not a memory size; {accepted}")
    heap, pagecache = _megabytes(parts["heap"]), _megabytes(parts["pagecache"])
    if heap is None or pagecache is None or heap < MIN_HEAP_MB or pagecache < MIN_PAGECACHE_MB:
        raise ValueError(f"{value!r} is not a memory size Neo4j can run a cycle in; {accepted}")
    return Neo4jMemory(heap_mb=heap, pagecache_mb=pagecache)

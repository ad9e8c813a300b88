"""How many wrong tokens one address may try on the sign-in form.

A token is 256 random bits, so guessing one is hopeless; the throttle keeps a guesser from using
the form as a cheap way to load the server and fill its log. After `limit` wrong tokens within
`window_s`, the address is refused (429 with Retry-After) until the oldest of them is older than
the window; while refused, even a right token from it is refused, so a guess learns nothing.
Other addresses are not affected. A right token does not clear the count: otherwise one who holds
any token could reset it between guesses. The table keeps at most `capacity` addresses (the
least recently failing are forgotten first) and `limit` instants each.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field

SIGN_IN_LIMIT = 10
SIGN_IN_WINDOW_S = 60.0
MAX_ADDRESSES = 4096


@dataclass
class SignInThrottle:
    limit: int = SIGN_IN_LIMIT
    window_s: float = SIGN_IN_WINDOW_S
    capacity: int = MAX_ADDRESSES
    clock: Callable[[], float] = time.monotonic
    _failures: OrderedDict[str, deque[float]] = field(default_factory=OrderedDict)

    def wait_s(self, address: str) -> int:
        """Whole seconds before `address` may try a token again; 0 when it may now."""
        failures = self._recent(address)
        if len(failures) < self.limit:
            return 0
        return max(1, math.ceil(failures[0] + self.window_s - self.clock()))

    def failed(self, address: str) -> None:
        failures = self._recent(address)
        failures.append(self.clock())
        self._failures[address] = failures
        self._failures.move_to_end(address)
        while len(self._failures) > self.capacity:
            self._failures.popitem(last=False)

    def _recent(self, address: str) -> deque[float]:
        """The address's failures still inside the window (an empty deque when it has none)."""
        failures = self._failures.get(address) or deque(maxlen=self.limit)
        cutoff = self.clock() - self.window_s
        while failures and failures[0] <= cutoff:
            failures.popleft()
        return failures

"""Previews waiting for approval: bounded in number and age."""

from __future__ import annotations

import os
import time
from collections import OrderedDict
from typing import Generic, TypeVar

from waymark.engine.errors import UnknownToken

T = TypeVar("T")

MAX_PENDING = 64
TTL_SECONDS = 60 * 60


class PendingStore(Generic[T]):
    """Token → proposal. The oldest entry is dropped past ``limit``; entries expire."""

    def __init__(self, limit: int = MAX_PENDING, ttl: float = TTL_SECONDS) -> None:
        self.limit = limit
        self.ttl = ttl
        self._items: OrderedDict[str, tuple[float, T]] = OrderedDict()

    def add(self, item: T) -> str:
        self._expire()
        token = os.urandom(8).hex()
        self._items[token] = (time.monotonic(), item)
        while len(self._items) > self.limit:
            self._items.popitem(last=False)
        return token

    def get(self, token: str) -> T | None:
        """The proposal for ``token``, left in place (None when there is none)."""
        self._expire()
        entry = self._items.get(token)
        return None if entry is None else entry[1]

    def take(self, token: str) -> T:
        """Remove and return the proposal for ``token``."""
        self._expire()
        try:
            return self._items.pop(token)[1]
        except KeyError:
            raise UnknownToken(
                f"No pending preview has token {token!r} (it was applied, discarded or "
                "expired); run the command again with preview: true.",
                {"token": token},
            ) from None

    def __len__(self) -> int:
        self._expire()
        return len(self._items)

    def _expire(self) -> None:
        cutoff = time.monotonic() - self.ttl
        while self._items:
            token, (created, _) = next(iter(self._items.items()))
            if created >= cutoff:
                break
            del self._items[token]

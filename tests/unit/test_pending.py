"""Pending previews are bounded in number and expire."""

from __future__ import annotations

import pytest

from waymark.commands.pending import PendingStore
from waymark.engine.errors import UnknownToken


def test_oldest_preview_is_dropped_past_the_limit() -> None:
    store: PendingStore[str] = PendingStore(limit=2)
    first, second, third = store.add("a"), store.add("b"), store.add("c")
    assert len(store) == 2
    with pytest.raises(UnknownToken):
        store.take(first)
    assert (store.take(second), store.take(third)) == ("b", "c")


def test_previews_expire() -> None:
    store: PendingStore[str] = PendingStore(ttl=0)
    token = store.add("a")
    with pytest.raises(UnknownToken) as caught:
        store.take(token)
    assert caught.value.details == {"token": token}


def test_a_token_is_used_once() -> None:
    store: PendingStore[str] = PendingStore()
    token = store.add("a")
    assert store.take(token) == "a"
    with pytest.raises(UnknownToken):
        store.take(token)

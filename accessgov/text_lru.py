"""A thread-safe least-recently-used map whose entries each hold a text (str or bytes, or any sized value: a list
of history steps), bounded by the texts' total length: the caches of stored and written JSON documents
(`storage.parsed_documents`, `jsoncodec.GrowingArrays`) and of task histories (`storage.task_history`)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable, Sequence, Sized
from typing import Generic, TypeVar

T = TypeVar("T", bound=Sized)
V = TypeVar("V")


class TextLru(Generic[T, V]):
    """(text, value) by key; texts longer than a quarter of `max_length` are not kept."""

    def __init__(self, max_length: int) -> None:
        self.max_length = max_length
        self._entries: OrderedDict[Hashable, tuple[T, V]] = OrderedDict()
        self._length = 0
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> tuple[T, V] | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
            return entry

    def get_many(self, keys: Sequence[Hashable]) -> list[tuple[T, V] | None]:
        """`get` of each key under one acquisition of the lock (a page's 25 documents: one call, not 25)."""
        entries = self._entries
        with self._lock:
            found = list(map(entries.get, keys))
            touch = entries.move_to_end
            for key, entry in zip(keys, found, strict=True):
                if entry is not None:
                    touch(key)
        return found

    def put(self, key: Hashable, text: T, value: V) -> None:
        if len(text) > self.max_length // 4:
            return
        with self._lock:
            previous = self._entries.pop(key, None)
            self._length += len(text) - (len(previous[0]) if previous else 0)
            self._entries[key] = (text, value)
            while self._length > self.max_length:
                self._length -= len(self._entries.popitem(last=False)[1][0])

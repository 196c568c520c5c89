"""The page-token key set as a document: one current key, and previous keys each verifying until its expiry.

No SQL here: `page_keys.py` stores it (sealed) in the `settings` table and `sealing.py` converts older databases.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, field
from datetime import datetime, timedelta

KEY_BYTES = 32


@dataclass(frozen=True)
class PageKeys:
    current: bytes
    previous: tuple[tuple[bytes, datetime], ...] = field(default=())

    @classmethod
    def first(cls, key: bytes | None = None) -> PageKeys:
        return cls(key or secrets.token_bytes(KEY_BYTES))

    def to_json(self) -> str:
        previous = [{"key": key.hex(), "expiresAt": expires.isoformat()} for key, expires in self.previous]
        return json.dumps({"current": self.current.hex(), "previous": previous}, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> PageKeys:
        document = json.loads(text)
        previous = tuple(
            (bytes.fromhex(item["key"]), datetime.fromisoformat(item["expiresAt"])) for item in document["previous"]
        )
        return cls(bytes.fromhex(document["current"]), previous)

    def rotated(self, now: datetime, grace: timedelta) -> PageKeys:
        kept = tuple((key, expires) for key, expires in self.previous if expires > now)
        dropped = () if grace.total_seconds() <= 0 else ((self.current, now + grace),)
        return PageKeys(secrets.token_bytes(KEY_BYTES), dropped + kept)

    def pruned(self, now: datetime) -> PageKeys:
        return PageKeys(self.current, tuple((key, expires) for key, expires in self.previous if expires > now))

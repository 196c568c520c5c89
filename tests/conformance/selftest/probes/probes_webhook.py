"""The probes of the webhook listener's attack-list mutants (tests/conformance/selftest/mutants/webhook.py, beyond the
error-table ones test_mutants.py holds): one delivery each (two for idempotency), whose answer the mutant gives
differently from the unchanged reference server. Signatures are computed here, wrong on purpose where needed."""

from __future__ import annotations

import base64
import hashlib
import hmac
import time
import uuid
from collections.abc import Callable

import httpx

from tests.conformance.selftest.probes.probing import HMAC, Probe, Target
from tests.conformance.selftest.target import (
    CIDR_LISTENER_ID,
    DISABLED_LISTENER_ID,
    LOOPBACK_LISTENER_ID,
    UNPUBLISHED_LISTENER_ID,
)

BODY = b'{"orderId":"A-1"}'
Sign = Callable[[bytes, str, str, bytes], str]  # (key, timestamp, event id, body) -> Webhook-Signature


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _mac(key: bytes, message: bytes, algorithm: str = "sha256") -> bytes:
    return hmac.new(key, message, algorithm).digest()


def _right(key: bytes, ts: str, eid: str, body: bytes) -> bytes:
    return _mac(key, f"{ts}.{eid}.".encode() + body)


def send(
    t: Target,
    *,
    listener: str = HMAC,
    body: bytes = BODY,
    timestamp: str | bytes | None = None,
    event_id: str | None = None,
    content_type: str | None = "application/json",
    sign: Sign | None = None,
    headers: dict[str, str] | None = None,
    drop: tuple[str, ...] = (),
    chunked: bool = False,
    path_listener: str | None = None,
) -> httpx.Response:
    """A delivery signed as sent (its header texts, its body) unless `sign` says how."""
    ts = timestamp if timestamp is not None else str(int(time.time()))
    ts_text = ts.decode() if isinstance(ts, bytes) else ts
    eid = event_id if event_id is not None else str(uuid.uuid4())
    key = t.fx.hmac_secrets[listener].encode()
    signature = (sign or (lambda k, a, b, c: _b64url(_right(k, a, b, c))))(key, ts_text, eid, body)
    sent: dict[str, str | bytes] = {"Webhook-Timestamp": ts, "Webhook-Event-Id": eid, "Webhook-Signature": signature}
    if content_type is not None:
        sent["Content-Type"] = content_type
    sent.update(headers or {})
    for name in drop:
        sent.pop(name)
    content = iter([body[: len(body) // 2], body[len(body) // 2 :]]) if chunked else body
    path = f"/api/v1/webhooks/incoming/{path_listener or listener}"
    return t.client.post(path, content=content, headers=sent)  # type: ignore[arg-type]


def status(**kwargs: object) -> Probe:
    return lambda t: send(t, **kwargs).status_code  # type: ignore[arg-type]


def signed(sign: Sign, body: bytes = BODY) -> Probe:
    return lambda t: send(t, sign=sign, body=body).status_code


def encoded(encode: Callable[[bytes], str]) -> Probe:
    """The right digest encoded otherwise, for an event id whose signature `encode` really changes (one with `-`
    or `_` for the standard alphabet, with letters for a change of case)."""

    def probe(t: Target) -> int:
        ts, key = str(_now()), t.fx.hmac_secrets[HMAC].encode()
        event_id = next(e for e in (str(uuid.uuid4()) for _ in range(1000)) if _changes(encode, key, ts, e))
        return send(t, timestamp=ts, event_id=event_id, sign=lambda k, a, b, c: encode(_right(k, a, b, c))).status_code

    return probe


def _changes(encode: Callable[[bytes], str], key: bytes, ts: str, event_id: str) -> bool:
    digest = _right(key, ts, event_id, BODY)
    return encode(digest) != _b64url(digest) and "-" in _b64url(digest) and "_" in _b64url(digest)


def over(message: Callable[[str, str, bytes], bytes], algorithm: str = "sha256") -> Probe:
    return signed(lambda k, ts, eid, body: _b64url(_mac(k, message(ts, eid, body), algorithm)))


def replay(first: dict[str, object], second: Callable[[str], dict[str, object]]) -> Probe:
    """The status of a second delivery (`second(event id)`) after an accepted first one."""

    def probe(t: Target) -> int:
        event_id = str(uuid.uuid4())
        assert send(t, event_id=event_id, **first).status_code == 200  # type: ignore[arg-type]
        return send(t, **second(event_id)).status_code  # type: ignore[arg-type]

    return probe


def refused_then(spoil: dict[str, object]) -> Probe:
    """The status of a correct delivery after a refused one with the same event id."""

    def probe(t: Target) -> int:
        event_id = str(uuid.uuid4())
        assert send(t, event_id=event_id, **spoil).status_code >= 400  # type: ignore[arg-type]
        return send(t, event_id=event_id).status_code

    return probe


def _upper_then_lower(t: Target) -> int:
    event_id = str(uuid.uuid4())
    assert send(t, event_id=event_id.upper()).status_code == 200
    return send(t, event_id=event_id).status_code


def _mixed(event_id: str) -> str:
    """`event_id` with every other hex letter in upper case (at least one of each case)."""
    letters = [i for i, ch in enumerate(event_id) if ch.isalpha()]
    if len(letters) < 2:
        return _mixed(str(uuid.uuid4()))
    chars = list(event_id)
    for n, i in enumerate(letters):
        chars[i] = chars[i].upper() if n % 2 else chars[i]
    return "".join(chars)


def _now() -> int:
    return int(time.time())


def _edge_now() -> int:
    """The current second with at least half of it left (sleeping into the next one otherwise), so that an edge
    probe's skew is still the one it names when the server reads its clock (a second boundary crossed on the way
    turned 301 into 300 on a loaded machine)."""
    now = time.time()
    if now % 1 > 0.5:
        time.sleep(1.001 - now % 1)
    return int(time.time())


def _bad(k: bytes, ts: str, eid: str, body: bytes) -> str:
    return _b64url(_mac(b"wrong", body))


def _forwarded(header: str, address: str) -> dict[str, str]:
    return {header: f"for={address}" if header == "forwarded" else address}


FORWARDING = ("x-forwarded-for", "forwarded", "x-real-ip", "true-client-ip", "cf-connecting-ip")
PADDED = b'{"pad":"' + b"x" * (64 * 1024 - 10) + b'"}'

PROBES: dict[str, Probe] = {
    # HMAC
    "webhook-hmac-key-decoded-also": signed(
        lambda k, ts, eid, body: _b64url(_right(base64.urlsafe_b64decode(k + b"=" * (-len(k) % 4)), ts, eid, body))
    ),
    "webhook-hmac-empty-signature-accepted": status(headers={"Webhook-Signature": ""}),
    "webhook-hmac-body-byte-tolerated": signed(
        lambda k, ts, eid, body: _b64url(_right(k, ts, eid, b'{"n":43}')), b'{"n":42}'
    ),
    "webhook-hmac-timestamp-off-by-one": signed(
        lambda k, ts, eid, body: _b64url(_right(k, str(int(ts) - 1), eid, body))
    ),
    "webhook-hmac-body-not-covered": over(lambda ts, eid, body: f"{ts}.{eid}.".encode()),
    "webhook-hmac-timestamp-not-covered": over(lambda ts, eid, body: f".{eid}.".encode() + body),
    "webhook-hmac-event-id-not-covered": over(lambda ts, eid, body: f"{ts}..".encode() + body),
    "webhook-hmac-body-only": over(lambda ts, eid, body: body),
    "webhook-hmac-timestamp-and-body": over(lambda ts, eid, body: f"{ts}.".encode() + body),
    "webhook-hmac-standard-webhooks-order": over(lambda ts, eid, body: f"{eid}.{ts}.".encode() + body),
    "webhook-hmac-colon-separators": over(lambda ts, eid, body: f"{ts}:{eid}:".encode() + body),
    "webhook-hmac-no-separators": over(lambda ts, eid, body: f"{ts}{eid}".encode() + body),
    "webhook-hmac-newline-separators": over(lambda ts, eid, body: f"{ts}\n{eid}\n".encode() + body),
    "webhook-hmac-reserialized-body": over(lambda ts, eid, body: f'{ts}.{eid}.{{"orderId": "A-1"}}'.encode()),
    "webhook-hmac-sha1-accepted": over(lambda ts, eid, body: f"{ts}.{eid}.".encode() + body, "sha1"),
    "webhook-hmac-sha512-accepted": over(lambda ts, eid, body: f"{ts}.{eid}.".encode() + body, "sha512"),
    "webhook-hmac-unkeyed-sha256": signed(
        lambda k, ts, eid, body: _b64url(hashlib.sha256(f"{ts}.{eid}.".encode() + body).digest())
    ),
    "webhook-hmac-padding-accepted": encoded(lambda d: base64.urlsafe_b64encode(d).decode()),
    "webhook-hmac-standard-base64": encoded(lambda d: base64.b64encode(d).decode().rstrip("=")),
    "webhook-hmac-standard-base64-padded": encoded(lambda d: base64.b64encode(d).decode()),
    "webhook-hmac-hex": encoded(bytes.hex),
    "webhook-hmac-hex-upper": encoded(lambda d: d.hex().upper()),
    "webhook-hmac-upper-cased": encoded(lambda d: _b64url(d).upper()),
    "webhook-hmac-lower-cased": encoded(lambda d: _b64url(d).lower()),
    "webhook-hmac-prefix-32": encoded(lambda d: _b64url(d)[:32]),
    "webhook-hmac-last-char-dropped": encoded(lambda d: _b64url(d)[:-1]),
    "webhook-hmac-v1-prefix": encoded(lambda d: "v1," + _b64url(d)),
    "webhook-hmac-v2-prefix": encoded(lambda d: "v2," + _b64url(d)),
    "webhook-hmac-v1-equals": encoded(lambda d: "v1=" + _b64url(d)),
    "webhook-hmac-list-right-last": encoded(lambda d: "A" * 43 + " " + _b64url(d)),
    "webhook-hmac-list-right-first": encoded(lambda d: _b64url(d) + " " + "A" * 43),
    "webhook-hmac-v1-list": encoded(lambda d: "v1," + "A" * 43 + " v1," + _b64url(d)),
    "webhook-hmac-comma-list": encoded(lambda d: "A" * 43 + "," + _b64url(d)),
    "webhook-hmac-space-inside": encoded(lambda d: _b64url(d)[:20] + " " + _b64url(d)[20:]),
    "webhook-hmac-non-ascii-body-refused": status(body='{"name":"Zoë"}'.encode()),
    "webhook-hmac-stripped-body": status(body=b'{"n":1}\n'),
    "webhook-hmac-timestamp-rebuilt": lambda t: send(t, timestamp=f"0{_now()}").status_code,
    "webhook-hmac-event-id-lowered": lambda t: send(t, event_id=str(uuid.uuid4()).upper()).status_code,
    # the 200 body
    "webhook-accepted-other-event": lambda t: (r := send(t)).json()["eventId"] == r.request.headers["webhook-event-id"],
    "webhook-accepted-run-skipped": lambda t: send(t).json()["automationRun"]["status"],
    "webhook-accepted-undocumented-body": lambda t: "automationRun" in send(t).json(),
    # Content-Type
    "webhook-ct-text-json": status(content_type="text/json"),
    "webhook-ct-jsonx": status(content_type="application/jsonx"),
    "webhook-ct-json-patch": status(content_type="application/json-patch+json"),
    "webhook-ct-multipart": status(content_type="multipart/form-data; boundary=x"),
    "webhook-ct-form": status(content_type="application/x-www-form-urlencoded"),
    "webhook-ct-missing-accepted": status(content_type=None),
    "webhook-ct-charset-refused": status(content_type="application/json; charset=utf-8"),
    "webhook-ct-quoted-charset-refused": status(content_type='application/json; charset="utf-8"'),
    "webhook-ct-compact-charset-refused": status(content_type="application/json;charset=UTF-8"),
    "webhook-ct-case-refused": status(content_type="Application/JSON"),
    # Webhook-Timestamp
    "webhook-ts-fraction": lambda t: send(t, timestamp=f"{_now()}.5").status_code,
    "webhook-ts-fraction-zero": lambda t: send(t, timestamp=f"{_now()}.0").status_code,
    "webhook-ts-iso": status(timestamp="2026-01-01T00:00:00Z"),
    "webhook-ts-milliseconds": lambda t: send(t, timestamp=f"{_now()}000").status_code,
    "webhook-ts-plus": lambda t: send(t, timestamp=f"+{_now()}").status_code,
    "webhook-ts-minus": lambda t: send(t, timestamp=f"-{_now()}").status_code,
    "webhook-ts-exponent": lambda t: send(t, timestamp=f"{_now() / 1e9}e9").status_code,
    "webhook-ts-inner-space": lambda t: send(t, timestamp=f"{str(_now())[:5]} {str(_now())[5:]}").status_code,
    "webhook-ts-hex": lambda t: send(t, timestamp=hex(_now())).status_code,
    "webhook-ts-empty": status(timestamp=""),
    "webhook-ts-unicode-digits": lambda t: (
        send(t, timestamp=str(_now()).translate(str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")).encode()).status_code
    ),
    "webhook-ts-leading-zero-refused": lambda t: send(t, timestamp=f"0{_now()}").status_code,
    "webhook-ts-edge-past-300-refused": lambda t: send(t, timestamp=str(_edge_now() - 300)).status_code,
    "webhook-ts-edge-future-300-refused": lambda t: send(t, timestamp=str(_edge_now() + 300)).status_code,
    "webhook-ts-edge-past-301-accepted": lambda t: send(t, timestamp=str(_edge_now() - 301)).status_code,
    "webhook-ts-edge-future-301-accepted": lambda t: send(t, timestamp=str(_edge_now() + 301)).status_code,
    # Webhook-Event-Id
    "webhook-eid-braces": lambda t: send(t, event_id="{" + str(uuid.uuid4()) + "}").status_code,
    "webhook-eid-urn": lambda t: send(t, event_id=f"urn:uuid:{uuid.uuid4()}").status_code,
    "webhook-eid-no-hyphens": lambda t: send(t, event_id=uuid.uuid4().hex).status_code,
    "webhook-eid-nil": status(event_id="00000000-0000-0000-0000-000000000000"),
    "webhook-eid-max": status(event_id="ffffffff-ffff-ffff-ffff-ffffffffffff"),
    "webhook-eid-variant": lambda t: send(t, event_id=(e := str(uuid.uuid4()))[:19] + "c" + e[20:]).status_code,
    "webhook-eid-trailing": lambda t: send(t, event_id=f"{uuid.uuid4()}0").status_code,
    "webhook-eid-not-uuid": status(event_id="not-a-uuid"),
    "webhook-eid-empty": status(event_id=""),
    "webhook-eid-v3": lambda t: send(t, event_id=str(uuid.uuid3(uuid.NAMESPACE_URL, str(uuid.uuid4())))).status_code,
    "webhook-eid-v5": lambda t: send(t, event_id=str(uuid.uuid5(uuid.NAMESPACE_URL, str(uuid.uuid4())))).status_code,
    "webhook-eid-v7": lambda t: send(t, event_id=(e := str(uuid.uuid4()))[:14] + "7" + e[15:]).status_code,
    "webhook-eid-upper-refused": lambda t: send(t, event_id=str(uuid.uuid4()).upper()).status_code,
    "webhook-eid-mixed-refused": lambda t: send(t, event_id=_mixed(str(uuid.uuid4()))).status_code,
    # JSON
    "webhook-json-truncated": status(body=b'{"orderId": '),
    "webhook-json-nan": status(body=b'{"amount":NaN}'),
    "webhook-json-infinity": status(body=b'{"amount":Infinity}'),
    "webhook-json-minus-infinity": status(body=b"-Infinity"),
    "webhook-json-empty": status(body=b""),
    "webhook-json-bom": status(body=b"\xef\xbb\xbf" + BODY),
    "webhook-json-invalid-utf8": status(body=b'{"name":"\xff"}'),
    "webhook-json-trailing": status(body=b'{"a":1} x'),
    "webhook-json-two-values": status(body=b'{"a":1}{"b":2}'),
    "webhook-json-single-quotes": status(body=b"{'a':1}"),
    "webhook-json-array-refused": status(body=b"[1,2]"),
    "webhook-json-string-refused": status(body=b'"text"'),
    "webhook-json-number-refused": status(body=b"42"),
    "webhook-json-boolean-refused": status(body=b"true"),
    "webhook-json-null-refused": status(body=b"null"),
    "webhook-json-duplicate-keys-refused": status(body=b'{"a":1,"a":2}'),
    "webhook-json-whitespace-refused": status(body=b' \n{ "a" : 1 }'),
    "webhook-json-deep-500": status(body=b"[" * 20_000 + b"]" * 20_000),
    # size
    "webhook-body-limit-off-by-one": status(body=PADDED),
    "webhook-chunked-refused": status(body=PADDED, chunked=True),
    "webhook-chunked-body-unlimited": status(body=PADDED[:-2] + b'x"}', chunked=True),
    # idempotency
    "webhook-idem-keyed-on-body": replay({}, lambda e: {"event_id": e, "body": b'{"other":1}'}),
    "webhook-idem-upper-is-new": replay({}, lambda e: {"event_id": e.upper()}),
    "webhook-idem-lower-is-new": lambda t: _upper_then_lower(t),
    "webhook-idem-consumed-by-stale": refused_then({"timestamp": "1"}),
    "webhook-idem-consumed-by-json": refused_then({"body": b"{not json"}),
    "webhook-idem-consumed-by-413": refused_then({"body": PADDED + b" "}),
    "webhook-idem-consumed-by-401": refused_then({"sign": _bad}),
    # processing order
    "webhook-order-auth-before-headers": status(sign=_bad, drop=("Webhook-Timestamp",)),
    "webhook-order-auth-before-json": status(body=b"{not json", sign=_bad),
    "webhook-order-replay-before-window": replay({}, lambda e: {"event_id": e, "timestamp": str(_now() - 3600)}),
    "webhook-order-unsigned-replay-409": replay({}, lambda e: {"event_id": e, "headers": {"Webhook-Signature": ""}}),
    "webhook-order-auth-before-cidr": status(listener=CIDR_LISTENER_ID, sign=_bad),
    # source address
    "webhook-cidr-too-strict": status(listener=LOOPBACK_LISTENER_ID),
    **{
        f"webhook-cidr-{h}-lets-in": status(listener=CIDR_LISTENER_ID, headers=_forwarded(h, "192.0.2.1"))
        for h in FORWARDING
    },
    **{
        f"webhook-cidr-{h}-locks-out": status(listener=LOOPBACK_LISTENER_ID, headers=_forwarded(h, "192.0.2.1"))
        for h in FORWARDING
    },
    # automation outcomes, unknown listener
    "webhook-run-disabled-queued": lambda t: send(t, listener=DISABLED_LISTENER_ID).json()["automationRun"]["status"],
    "webhook-run-unpublished-queued": lambda t: send(t, listener=UNPUBLISHED_LISTENER_ID).json()["automationRun"][
        "status"
    ],
    "webhook-run-skipped-no-reason": lambda t: send(t, listener=DISABLED_LISTENER_ID).json()["automationRun"]["reason"],
    "webhook-unknown-listener-served": status(path_listener="wh_conformance_unknown_1"),
}

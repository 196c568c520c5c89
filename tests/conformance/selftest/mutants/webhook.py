"""Webhook mutants: each row of the webhook error table, idempotency, CIDR and processing order, and one per
variant of the listener's attack lists in the traceability file (the JWT method's are in webhook_jwt.py); and the
webhook controls (what the contract allows a server to answer)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import ipaddress
import json
import re
import uuid
from collections.abc import Callable
from typing import Any

from tests.conformance.selftest.asgi import Forward, Handler, Request, Response, path_param
from tests.conformance.selftest.mutants.base import BODY_LIMIT, WINDOW_SECONDS, Mutant, let_through, now, refuse
from tests.conformance.selftest.target import DISABLED_LISTENER_ID, UNPUBLISHED_LISTENER_ID, Fixtures

UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


def _missing(name: str) -> Callable[[Request], bool]:
    return lambda request: not request.header(name)


def _skew(request: Request) -> int | None:
    """Webhook-Timestamp minus now, when it is whole seconds."""
    value = request.header("webhook-timestamp") or ""
    return int(value) - now() if value.isdigit() else None


def _with_now(request: Request) -> Request:
    return request.with_header("webhook-timestamp", str(now()))


def _non_v4(request: Request) -> bool:
    value = request.header("webhook-event-id") or ""
    return bool(UUID.match(value)) and uuid.UUID(value).version != 4


def _as_v4(request: Request) -> Request:
    """The same id with its version and variant bits set to v4's: still one event per id sent."""
    raw = bytearray(uuid.UUID(request.header("webhook-event-id") or "").bytes)
    raw[6] = (raw[6] & 0x0F) | 0x40
    raw[8] = (raw[8] & 0x3F) | 0x80
    return request.with_header("webhook-event-id", str(uuid.UUID(bytes=bytes(raw))))


def _not_json(request: Request) -> bool:
    """Whether the body breaks JSON's grammar. A body nested past the parser's recursion limit is JSON: the
    server judges it (as it does everywhere), so this mutant changes nothing else and never answers 500."""
    try:
        json.loads(request.body)
    except RecursionError:
        return False
    except ValueError:
        return True
    return False


def _signature_matches(request: Request, key: bytes) -> bool:
    """Whether Webhook-Signature is HMAC-SHA256 under `key` over `{timestamp}.{event id}.{body}`."""
    message = f"{request.header('webhook-timestamp') or ''}.{request.header('webhook-event-id') or ''}.".encode()
    digest = hmac.new(key, message + request.body, hashlib.sha256).digest()
    expected = base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
    return hmac.compare_digest(expected, request.header("webhook-signature") or "")


def _hmac_key_decoded(fixtures: Fixtures) -> dict[str, Handler]:
    """Verifies with the secret base64url-DECODED as the key (rule: the key is the secret string, UTF-8)."""

    async def handle(request: Request, forward: Forward) -> Response:
        listener_id = path_param(request, "webhook", "listener_id")
        secret = fixtures.hmac_secrets.get(listener_id)
        if secret is None or not request.header("webhook-signature"):
            return await forward(request)
        key = base64.urlsafe_b64decode(secret + "=" * (-len(secret) % 4))
        if not _signature_matches(request, key):
            return Response.error(401, "SIGNATURE_MISMATCH", "Webhook-Signature does not match the request")
        return await forward(fixtures.resign(request))

    return {"webhook": handle}


def _auth_before_shape(fixtures: Fixtures) -> dict[str, Handler]:
    """Authenticates before the shape checks: a mis-signed request with a bad header gets 401, not 400."""

    async def handle(request: Request, forward: Forward) -> Response:
        secret = fixtures.hmac_secrets.get(path_param(request, "webhook", "listener_id"))
        if secret is not None:
            if not request.header("webhook-signature"):
                return Response.error(401, "MISSING_AUTHENTICATION", "the Webhook-Signature header is required")
            if not _signature_matches(request, secret.encode()):
                return Response.error(401, "SIGNATURE_MISMATCH", "Webhook-Signature does not match the request")
        return await forward(request)

    return {"webhook": handle}


def _event(request: Request) -> tuple[str, str]:
    return path_param(request, "webhook", "listener_id"), (request.header("webhook-event-id") or "").lower()


def _duplicate_answered_200(_: Fixtures) -> dict[str, Handler]:
    first: dict[tuple[str, str], Response] = {}

    async def handle(request: Request, forward: Forward) -> Response:
        response = await forward(request)
        if response.status == 200:
            first.setdefault(_event(request), response)
        elif response.status == 409 and _event(request) in first:
            return first[_event(request)]
        return response

    return {"webhook": handle}


def _duplicate_across_listeners(_: Fixtures) -> dict[str, Handler]:
    seen: dict[str, str] = {}

    async def handle(request: Request, forward: Forward) -> Response:
        listener_id, event_id = _event(request)
        if seen.get(event_id, listener_id) != listener_id:
            return Response.error(409, "DUPLICATE_EVENT", f"event {event_id} was already received")
        response = await forward(request)
        if response.status == 200:
            seen.setdefault(event_id, listener_id)
        return response

    return {"webhook": handle}


def _duplicate_before_auth(_: Fixtures) -> dict[str, Handler]:
    seen: set[tuple[str, str]] = set()

    async def handle(request: Request, forward: Forward) -> Response:
        if _event(request) in seen:
            return Response.error(409, "DUPLICATE_EVENT", "event already received by this listener")
        response = await forward(request)
        if response.status == 200:
            seen.add(_event(request))
        return response

    return {"webhook": handle}


def _cidr_ignored(fixtures: Fixtures) -> dict[str, Handler]:
    async def handle(request: Request, forward: Forward) -> Response:
        address = fixtures.allowed_address(path_param(request, "webhook", "listener_id"))
        if address is not None:
            client = request.scope.get("client") or ("127.0.0.1", 0)
            request = Request({**request.scope, "client": (address, client[1])}, request.body)
        return await forward(request)

    return {"webhook": handle}


# --- helpers of the attack-list mutants (issue 37) -------------------------------------------------------------

BOM = b"\xef\xbb\xbf"
SIGNATURE_MISMATCH = (401, "SIGNATURE_MISMATCH", "Webhook-Signature does not match the request")
FORWARDING = ("x-forwarded-for", "forwarded", "x-real-ip", "true-client-ip", "cf-connecting-ip")


def _listener(request: Request) -> str:
    return path_param(request, "webhook", "listener_id")


def _timestamp(request: Request) -> str:
    """Webhook-Timestamp as the client wrote it (UTF-8), or "" when absent."""
    return (request.header("webhook-timestamp") or "").encode("latin-1").decode("utf-8", "replace")


def _timestamp_is(test: Callable[[str], bool]) -> Callable[[Request], bool]:
    return lambda request: request.header("webhook-timestamp") is not None and test(_timestamp(request))


def _event_id_is(test: Callable[[str], bool]) -> Callable[[Request], bool]:
    return lambda request: (
        request.header("webhook-event-id") is not None and test(request.header("webhook-event-id") or "")
    )


def _fresh_event_id(request: Request) -> Request:
    """A valid v4 id derived from the one sent (the same id sent twice is still one event)."""
    derived = uuid.UUID(bytes=hashlib.sha256((request.header("webhook-event-id") or "").encode()).digest()[:16])
    return _as_v4(request.with_header("webhook-event-id", str(derived)))


def _body_is(test: Callable[[bytes], bool]) -> Callable[[Request], bool]:
    return lambda request: test(request.body)


def _as_json_string(request: Request) -> Request:
    return request.with_body(json.dumps(request.body.decode("utf-8", "replace")).encode())


def _parsed(body: bytes) -> object:
    """The body as JSON (Python's reading, NaN included), or `ValueError` when it is not."""
    try:
        return json.loads(body)
    except (ValueError, RecursionError):
        return ValueError


def _media(request: Request) -> str | None:
    return request.header("content-type")


def _digest(key: bytes, message: bytes, algorithm: str = "sha256") -> bytes:
    return hmac.new(key, message, algorithm).digest()


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _input(request: Request) -> tuple[str, str, bytes]:
    return request.header("webhook-timestamp") or "", request.header("webhook-event-id") or "", request.body


def _good_digest(request: Request, key: bytes) -> bytes:
    ts, eid, body = _input(request)
    return _digest(key, f"{ts}.{eid}.".encode() + body)


def hmac_also_accepts(accepts: Callable[[Request, bytes, str], bool]) -> Callable[[Fixtures], dict[str, Handler]]:
    """An HMAC verifier that also takes what `accepts(request, key, signature)` says: such a request is re-signed
    correctly and processed; every other request goes to the reference server as sent."""

    def handlers(fixtures: Fixtures) -> dict[str, Handler]:
        async def handle(request: Request, forward: Forward) -> Response:
            secret = fixtures.hmac_secrets.get(_listener(request))
            signature = request.header("webhook-signature")
            if secret is not None and signature is not None and accepts(request, secret.encode(), signature):
                request = fixtures.resign(request)
            return await forward(request)

        return {"webhook": handle}

    return handlers


def _signed_over(message: Callable[[str, str, bytes], bytes], algorithm: str = "sha256") -> Any:
    def accepts(request: Request, key: bytes, signature: str) -> bool:
        return hmac.compare_digest(_b64url(_digest(key, message(*_input(request)), algorithm)), signature)

    return hmac_also_accepts(accepts)


def _encoded_as(encode: Callable[[bytes], str]) -> Any:
    def accepts(request: Request, key: bytes, signature: str) -> bool:
        return hmac.compare_digest(encode(_good_digest(request, key)), signature)

    return hmac_also_accepts(accepts)


def _header_form(test: Callable[[str, str], bool]) -> Any:
    """Accepts a header `test(signature, good)` says holds the right signature."""
    return hmac_also_accepts(lambda request, key, signature: test(signature, _b64url(_good_digest(request, key))))


def _decoded(key: bytes) -> bytes | None:
    """The secret base64url-decoded (None: it is not base64url)."""
    try:
        return base64.urlsafe_b64decode(key + b"=" * (-len(key) % 4))
    except ValueError:
        return None


def _one_byte_changed(request: Request, key: bytes, signature: str) -> bool:
    """A signature over the body with one byte changed (short bodies only): a verifier tolerating a flipped byte."""
    ts, eid, body = _input(request)
    if len(body) > 32:
        return False
    prefix = f"{ts}.{eid}.".encode()
    for index in range(len(body)):
        for value in range(32, 127):
            changed = body[:index] + bytes([value]) + body[index + 1 :]
            if changed != body and _b64url(_digest(key, prefix + changed)) == signature:
                return True
    return False


def _timestamp_off_by_one(request: Request, key: bytes, signature: str) -> bool:
    ts, eid, body = _input(request)
    if not ts.isdigit():
        return False
    return any(_b64url(_digest(key, f"{int(ts) + d}.{eid}.".encode() + body)) == signature for d in (-1, 1))


def _verifies_over(transform: Callable[[bytes], bytes]) -> Callable[[Fixtures], dict[str, Handler]]:
    """A verifier that computes the HMAC over `transform(body)` instead of the bytes received: a correct signature
    over a body the transform changes is refused 401."""

    def handlers(fixtures: Fixtures) -> dict[str, Handler]:
        async def handle(request: Request, forward: Forward) -> Response:
            secret = fixtures.hmac_secrets.get(_listener(request))
            if secret is not None and request.header("webhook-signature") and transform(request.body) != request.body:
                ts, eid, _ = _input(request)
                expected = _b64url(_digest(secret.encode(), f"{ts}.{eid}.".encode() + transform(request.body)))
                if expected != request.header("webhook-signature"):
                    return Response.error(*SIGNATURE_MISMATCH)
            return await forward(request)

        return {"webhook": handle}

    return handlers


def _latin1_text(body: bytes) -> bytes:
    """The body read as UTF-8 text and written back as Latin-1 (valid UTF-8 only: other bodies fail earlier)."""
    try:
        return body.decode("utf-8").encode("latin-1", "replace")
    except UnicodeDecodeError:
        return body


def _hmac_refuses(condition: Callable[[Request], bool]) -> Callable[[Fixtures], dict[str, Handler]]:
    """Refuses (401) a correctly signed HMAC request meeting `condition` (its input rebuilt from parsed values)."""

    def handlers(fixtures: Fixtures) -> dict[str, Handler]:
        async def handle(request: Request, forward: Forward) -> Response:
            if (
                _listener(request) in fixtures.hmac_secrets
                and request.header("webhook-signature")
                and condition(request)
            ):
                return Response.error(*SIGNATURE_MISMATCH)
            return await forward(request)

        return {"webhook": handle}

    return handlers


def _as_other_event(
    condition: Callable[[Request, dict[tuple[str, str], bytes]], bool], remember: Callable[[Request], str]
) -> Callable[[Fixtures], dict[str, Handler]]:
    """Idempotency keyed on more than the event id: a request `condition` calls new goes to the server under a
    derived id and its 200 names the id sent. `remember(request)` is the key the mutant keeps per event."""

    def handlers(fixtures: Fixtures) -> dict[str, Handler]:
        seen: dict[tuple[str, str], bytes] = {}

        async def handle(request: Request, forward: Forward) -> Response:
            sent = request.header("webhook-event-id") or ""
            if UUID.match(sent) and condition(request, seen):
                derived = uuid.UUID(bytes=hashlib.sha256((remember(request) + sent).encode()).digest()[:16])
                response = await forward(fixtures.resign(_as_v4(request.with_header("webhook-event-id", str(derived)))))
                document = response.json()
                if response.status == 200 and isinstance(document, dict):
                    return response.with_json({**document, "eventId": sent})
                return response
            response = await forward(request)
            if response.status == 200:
                seen.setdefault(_event(request), request.body)
                seen.setdefault((_listener(request), "case:" + sent), request.body)
            return response

        return {"webhook": handle}

    return handlers


def _other_body(request: Request, seen: dict[tuple[str, str], bytes]) -> bool:
    first = seen.get(_event(request))
    return first is not None and first != request.body


def _other_case(replay_case: Callable[[str], bool]) -> Callable[[Request, dict[tuple[str, str], bytes]], bool]:
    def condition(request: Request, seen: dict[tuple[str, str], bytes]) -> bool:
        sent = request.header("webhook-event-id") or ""
        return _event(request) in seen and (_listener(request), "case:" + sent) not in seen and replay_case(sent)

    return condition


def _consumes_on(status: int, code: str | None = None) -> Callable[[Fixtures], dict[str, Handler]]:
    """A refused request (`status`, `code`) still records its event id: the next delivery of it is 409."""

    def handlers(_: Fixtures) -> dict[str, Handler]:
        consumed: set[tuple[str, str]] = set()

        async def handle(request: Request, forward: Forward) -> Response:
            if _event(request) in consumed:
                return Response.error(409, "DUPLICATE_EVENT", "event already received by this listener")
            response = await forward(request)
            if response.status == status and (code is None or response.code() == code):
                consumed.add(_event(request))
            return response

        return {"webhook": handle}

    return handlers


def _replay_409_when(condition: Callable[[Request], bool]) -> Callable[[Fixtures], dict[str, Handler]]:
    """Idempotency checked too early: a replay of an accepted id meeting `condition` is 409 before the check that
    should refuse it."""

    def handlers(_: Fixtures) -> dict[str, Handler]:
        seen: set[tuple[str, str]] = set()

        async def handle(request: Request, forward: Forward) -> Response:
            if _event(request) in seen and condition(request):
                return Response.error(409, "DUPLICATE_EVENT", "event already received by this listener")
            response = await forward(request)
            if response.status == 200:
                seen.add(_event(request))
            return response

        return {"webhook": handle}

    return handlers


def _signature_wrong(fixtures: Fixtures, request: Request) -> bool:
    secret = fixtures.hmac_secrets.get(_listener(request))
    return (
        secret is not None
        and bool(request.header("webhook-signature"))
        and not _signature_matches(request, secret.encode())
    )


def _auth_first_when(condition: Callable[[Request], bool]) -> Callable[[Fixtures], dict[str, Handler]]:
    """The credential checked before one shape check: a mis-signed request meeting `condition` gets 401."""

    def handlers(fixtures: Fixtures) -> dict[str, Handler]:
        async def handle(request: Request, forward: Forward) -> Response:
            if condition(request) and _signature_wrong(fixtures, request):
                return Response.error(*SIGNATURE_MISMATCH)
            return await forward(request)

        return {"webhook": handle}

    return handlers


def _auth_before_cidr(fixtures: Fixtures) -> dict[str, Handler]:
    async def handle(request: Request, forward: Forward) -> Response:
        if fixtures.allowed_cidrs.get(_listener(request)) and _signature_wrong(fixtures, request):
            return Response.error(*SIGNATURE_MISMATCH)
        return await forward(request)

    return {"webhook": handle}


def _cidr_too_strict(fixtures: Fixtures) -> dict[str, Handler]:
    """A restricted listener refuses every source, its allowed ranges included."""

    async def handle(request: Request, forward: Forward) -> Response:
        if fixtures.allowed_cidrs.get(_listener(request)):
            return Response.error(403, "SOURCE_NOT_ALLOWED", "source address is not in the listener's allowed ranges")
        return await forward(request)

    return {"webhook": handle}


def _forwarded_address(request: Request, header: str) -> str | None:
    value = request.header(header)
    if value is None:
        return None
    value = value.split(",")[0].strip()
    if header == "forwarded":
        value = value.partition("for=")[2].split(";")[0].strip('"[]')
    return value


def _trusts(header: str, lets_in: bool) -> Callable[[Fixtures], dict[str, Handler]]:
    """The source address read from `header` sent by any peer: `lets_in` lets a refused peer in with an allowed
    address in it; otherwise an allowed peer naming a refused address is locked out."""

    def handlers(fixtures: Fixtures) -> dict[str, Handler]:
        async def handle(request: Request, forward: Forward) -> Response:
            cidrs = fixtures.allowed_cidrs.get(_listener(request))
            claimed = _forwarded_address(request, header)
            if cidrs and claimed:
                try:
                    inside = any(ipaddress.ip_address(claimed) in ipaddress.ip_network(c) for c in cidrs)
                except ValueError:
                    return await forward(request)
                client = request.scope.get("client") or ("127.0.0.1", 0)
                if lets_in and inside:
                    request = Request({**request.scope, "client": (claimed, client[1])}, request.body)
                elif not lets_in and not inside:
                    return Response.error(403, "SOURCE_NOT_ALLOWED", f"source address {claimed} is not allowed")
            return await forward(request)

        return {"webhook": handle}

    return handlers


def _run_answer(listener_id: str, change: Callable[[dict[str, Any]], dict[str, Any]]) -> Any:
    """The 200 of `listener_id` (None: of every listener) with its `automationRun` changed."""

    def handlers(_: Fixtures) -> dict[str, Handler]:
        async def handle(request: Request, forward: Forward) -> Response:
            response = await forward(request)
            document = response.json()
            if response.status == 200 and isinstance(document, dict) and _listener(request) == listener_id:
                return response.with_json({**document, "automationRun": change(dict(document["automationRun"]))})
            return response

        return {"webhook": handle}

    return handlers


def _accepted_answer(change: Callable[[Request, dict[str, Any]], Any]) -> Callable[[Fixtures], dict[str, Handler]]:
    def handlers(_: Fixtures) -> dict[str, Handler]:
        async def handle(request: Request, forward: Forward) -> Response:
            response = await forward(request)
            document = response.json()
            if response.status == 200 and isinstance(document, dict):
                return response.with_json(change(request, document))
            return response

        return {"webhook": handle}

    return handlers


def _unknown_listener_served(fixtures: Fixtures) -> dict[str, Handler]:
    async def handle(request: Request, forward: Forward) -> Response:
        if _listener(request).startswith("wh_conformance_unknown_"):
            request = fixtures.resign(request.with_path("/api/v1/webhooks/incoming/wh_demo_hmac"))
        return await forward(request)

    return {"webhook": handle}


def _deep(body: bytes) -> bool:
    return body.startswith(b"[" * 1000)


def _ts_fraction(value: str) -> bool:
    whole, dot, fraction = value.partition(".")
    return bool(dot) and whole.isdigit() and fraction.isdigit() and fraction.strip("0") != ""


def _non_ascii_digits(value: str) -> bool:
    return not value.isascii() and value.isdigit()


def _ts_fix(request: Request) -> Request:
    return _with_now(request)


def _hex_letters(value: str, upper: bool) -> bool:
    letters = [ch for ch in value if ch.isalpha()]
    return bool(letters) and all(ch.isupper() == upper for ch in letters)


def _mixed_case(value: str) -> bool:
    letters = [ch for ch in value if ch.isalpha()]
    return any(ch.isupper() for ch in letters) and any(ch.islower() for ch in letters)


def _refuse_webhook(condition: Callable[[Request], bool], code: str, message: str, status: int = 400) -> Any:
    return refuse("webhook", condition, status, code, message)


def _skew_is(value: int) -> Callable[[Request], bool]:
    return lambda request: _skew(request) == value


def _version(value: int) -> Callable[[str], bool]:
    return lambda text: bool(UUID.match(text)) and uuid.UUID(text).version == value


def _control_answer(change: Callable[[dict[str, Any]], dict[str, Any]], skipped: bool = False) -> Any:
    """A control: the webhook's 200 bodies changed as the contract allows (runs not skipped, unless `skipped`)."""

    def handlers(_: Fixtures) -> dict[str, Handler]:
        async def handle(request: Request, forward: Forward) -> Response:
            response = await forward(request)
            document = response.json()
            if response.status == 200 and isinstance(document, dict):
                is_skipped = document.get("automationRun", {}).get("status") == "AUTOMATION_RUN_STATUS_SKIPPED"
                if is_skipped == skipped:
                    return response.with_json(change(document))
            return response

        return {"webhook": handle}

    return handlers


def _response_headers(extra: list[tuple[bytes, bytes]], content_type: bytes | None = None) -> Any:
    def handlers(_: Fixtures) -> dict[str, Handler]:
        async def handle(request: Request, forward: Forward) -> Response:
            response = await forward(request)
            headers = [(k, v) for k, v in response.headers if content_type is None or k.lower() != b"content-type"]
            if content_type is not None:
                headers.append((b"content-type", content_type))
            return Response(response.status, [*headers, *extra], response.body)

        return {"webhook": handle}

    return handlers


def _m(mutant_id: str, breaks: str, handlers: Callable[[Fixtures], dict[str, Handler]], *covers: str) -> Mutant:
    return Mutant(mutant_id, "webhook", breaks, handlers, covers=covers)


def _c(mutant_id: str, breaks: str, handlers: Callable[[Fixtures], dict[str, Handler]], *covers: str) -> Mutant:
    return Mutant(mutant_id, "control", breaks, handlers, control=True, covers=covers)


def _lets(media: str) -> Callable[[Fixtures], dict[str, Handler]]:
    return let_through(lambda r: _media(r) == media, lambda r: r.with_header("content-type", "application/json"))


def _refuses_media(media: str) -> Any:
    return _refuse_webhook(
        lambda r: _media(r) == media, "INVALID_CONTENT_TYPE", "Content-Type must be application/json"
    )


def _lets_timestamp(test: Callable[[str], bool]) -> Callable[[Fixtures], dict[str, Handler]]:
    return let_through(_timestamp_is(test), _ts_fix)


def _lets_event_id(test: Callable[[str], bool]) -> Callable[[Fixtures], dict[str, Handler]]:
    return let_through(_event_id_is(test), _fresh_event_id)


def _lets_body(test: Callable[[bytes], bool]) -> Callable[[Fixtures], dict[str, Handler]]:
    return let_through(_body_is(test), _as_json_string)


def _refuses_body(test: Callable[[bytes], bool], code: str = "INVALID_JSON") -> Any:
    return _refuse_webhook(_body_is(test), code, "the request body is not valid JSON")


ATTACK_MUTANTS = [
    # --- HMAC: inputs, MACs, encodings, header forms ---------------------------------------------------------
    _m(
        "webhook-hmac-key-decoded-also",
        "A signature keyed with the base64url-decoded secret is accepted beside the right one.",
        hmac_also_accepts(
            lambda r, key, sig: (decoded := _decoded(key)) is not None and _b64url(_good_digest(r, decoded)) == sig
        ),
        "HMAC-KEY/key-base64-decoded",
    ),
    _m(
        "webhook-hmac-empty-signature-accepted",
        "An empty Webhook-Signature is taken for no check at all: processed instead of 401.",
        let_through(lambda r: r.header("webhook-signature") == ""),
        "HMAC-MISSING/empty",
    ),
    _m(
        "webhook-hmac-body-byte-tolerated",
        "A signature over the body with one byte changed is accepted.",
        hmac_also_accepts(_one_byte_changed),
        "HMAC-INPUT/body-changed",
    ),
    _m(
        "webhook-hmac-timestamp-off-by-one",
        "A signature over the timestamp 1 s off is accepted.",
        hmac_also_accepts(_timestamp_off_by_one),
        "HMAC-INPUT/timestamp-changed",
    ),
    _m(
        "webhook-hmac-body-not-covered",
        "A signature over `{timestamp}.{event_id}.` (no body) is accepted.",
        _signed_over(lambda ts, eid, body: f"{ts}.{eid}.".encode()),
        "HMAC-INPUT/body-omitted",
    ),
    _m(
        "webhook-hmac-timestamp-not-covered",
        "A signature over `.{event_id}.{body}` (no timestamp) is accepted.",
        _signed_over(lambda ts, eid, body: f".{eid}.".encode() + body),
        "HMAC-INPUT/timestamp-omitted",
    ),
    _m(
        "webhook-hmac-event-id-not-covered",
        "A signature over `{timestamp}..{body}` (no event id) is accepted.",
        _signed_over(lambda ts, eid, body: f"{ts}..".encode() + body),
        "HMAC-INPUT/event-id-omitted",
    ),
    _m(
        "webhook-hmac-body-only",
        "A signature over the body alone is accepted.",
        _signed_over(lambda ts, eid, body: body),
        "HMAC-INPUT/body-only",
    ),
    _m(
        "webhook-hmac-timestamp-and-body",
        "A signature over `{timestamp}.{body}` is accepted.",
        _signed_over(lambda ts, eid, body: f"{ts}.".encode() + body),
        "HMAC-INPUT/timestamp-and-body",
    ),
    _m(
        "webhook-hmac-standard-webhooks-order",
        "A signature over Standard Webhooks' `{event_id}.{timestamp}.{body}` is accepted.",
        _signed_over(lambda ts, eid, body: f"{eid}.{ts}.".encode() + body),
        "HMAC-INPUT/standard-webhooks-order",
    ),
    _m(
        "webhook-hmac-colon-separators",
        "A signature over `{timestamp}:{event_id}:{body}` is accepted.",
        _signed_over(lambda ts, eid, body: f"{ts}:{eid}:".encode() + body),
        "HMAC-INPUT/colon-separators",
    ),
    _m(
        "webhook-hmac-no-separators",
        "A signature over `{timestamp}{event_id}{body}` is accepted.",
        _signed_over(lambda ts, eid, body: f"{ts}{eid}".encode() + body),
        "HMAC-INPUT/no-separators",
    ),
    _m(
        "webhook-hmac-newline-separators",
        "A signature over the three parts joined by newlines is accepted.",
        _signed_over(lambda ts, eid, body: f"{ts}\n{eid}\n".encode() + body),
        "HMAC-INPUT/newline-separators",
    ),
    _m(
        "webhook-hmac-reserialized-body",
        "A signature over the body parsed and re-serialized (json.dumps) is accepted.",
        _signed_over(
            lambda ts, eid, body: (
                f"{ts}.{eid}.".encode()
                + (json.dumps(_parsed(body)).encode() if _parsed(body) is not ValueError else body)
            )
        ),
        "HMAC-INPUT/re-serialized-body",
    ),
    _m(
        "webhook-hmac-sha1-accepted",
        "HMAC-SHA1 over the right input is accepted.",
        _signed_over(lambda ts, eid, body: f"{ts}.{eid}.".encode() + body, "sha1"),
        "HMAC-ALG/hmac-sha1",
    ),
    _m(
        "webhook-hmac-sha512-accepted",
        "HMAC-SHA512 over the right input is accepted.",
        _signed_over(lambda ts, eid, body: f"{ts}.{eid}.".encode() + body, "sha512"),
        "HMAC-ALG/hmac-sha512",
    ),
    _m(
        "webhook-hmac-unkeyed-sha256",
        "A plain SHA-256 of the right input (no key) is accepted.",
        hmac_also_accepts(
            lambda r, key, sig: (
                _b64url(hashlib.sha256(f"{_input(r)[0]}.{_input(r)[1]}.".encode() + r.body).digest()) == sig
            )
        ),
        "HMAC-ALG/unkeyed-sha256",
    ),
    _m(
        "webhook-hmac-padding-accepted",
        "The right signature with base64 padding is accepted.",
        _encoded_as(lambda d: base64.urlsafe_b64encode(d).decode()),
        "HMAC-ENCODING/padded",
    ),
    _m(
        "webhook-hmac-standard-base64",
        "The right signature in standard base64 (+/), unpadded, is accepted.",
        _encoded_as(lambda d: base64.b64encode(d).decode().rstrip("=")),
        "HMAC-ENCODING/standard-base64",
    ),
    _m(
        "webhook-hmac-standard-base64-padded",
        "The right signature in standard base64 with padding is accepted.",
        _encoded_as(lambda d: base64.b64encode(d).decode()),
        "HMAC-ENCODING/standard-base64-padded",
    ),
    _m("webhook-hmac-hex", "The right digest in hex is accepted.", _encoded_as(bytes.hex), "HMAC-ENCODING/hex"),
    _m(
        "webhook-hmac-hex-upper",
        "The right digest in upper-case hex is accepted.",
        _encoded_as(lambda d: d.hex().upper()),
        "HMAC-ENCODING/hex-upper",
    ),
    _m(
        "webhook-hmac-upper-cased",
        "The signature is compared case-insensitively: the upper-cased one is accepted.",
        _encoded_as(lambda d: _b64url(d).upper()),
        "HMAC-ENCODING/upper-cased",
    ),
    _m(
        "webhook-hmac-lower-cased",
        "The signature is compared case-insensitively: the lower-cased one is accepted.",
        _encoded_as(lambda d: _b64url(d).lower()),
        "HMAC-ENCODING/lower-cased",
    ),
    _m(
        "webhook-hmac-prefix-32",
        "A signature's first 32 characters are enough.",
        _encoded_as(lambda d: _b64url(d)[:32]),
        "HMAC-ENCODING/truncated-32",
    ),
    _m(
        "webhook-hmac-last-char-dropped",
        "A signature missing its last character is accepted (its last 2 bits are padding anyway).",
        _encoded_as(lambda d: _b64url(d)[:-1]),
        "HMAC-ENCODING/last-char-dropped",
    ),
    _m(
        "webhook-hmac-v1-prefix",
        "A Standard Webhooks `v1,` prefix is stripped: `v1,<signature>` is accepted.",
        _header_form(lambda sig, good: sig == f"v1,{good}"),
        "HMAC-HEADER/v1-prefix",
    ),
    _m(
        "webhook-hmac-v2-prefix",
        "Any `vN,` version prefix is stripped: `v2,<signature>` is accepted.",
        _header_form(lambda sig, good: sig == f"v2,{good}"),
        "HMAC-HEADER/v2-prefix",
    ),
    _m(
        "webhook-hmac-v1-equals",
        "A `v1=` prefix (Stripe-like) is stripped.",
        _header_form(lambda sig, good: sig == f"v1={good}"),
        "HMAC-HEADER/v1-equals",
    ),
    _m(
        "webhook-hmac-list-right-last",
        "A space-separated list is accepted when its last entry is right.",
        _header_form(lambda sig, good: len(sig.split(" ")) > 1 and sig.split(" ")[-1] == good),
        "HMAC-HEADER/list-right-last",
    ),
    _m(
        "webhook-hmac-list-right-first",
        "A space-separated list is accepted when its first entry is right.",
        _header_form(lambda sig, good: len(sig.split(" ")) > 1 and sig.split(" ")[0] == good),
        "HMAC-HEADER/list-right-first",
    ),
    _m(
        "webhook-hmac-v1-list",
        "A Standard Webhooks list (`v1,a v1,b`) is accepted when any entry is right.",
        _header_form(lambda sig, good: len(sig.split(" ")) > 1 and f"v1,{good}" in sig.split(" ")),
        "HMAC-HEADER/v1-list",
    ),
    _m(
        "webhook-hmac-comma-list",
        "A comma-separated list is accepted when any entry is right.",
        _header_form(lambda sig, good: "," in sig and not sig.startswith("v") and good in sig.split(",")),
        "HMAC-HEADER/comma-list",
    ),
    _m(
        "webhook-hmac-space-inside",
        "Spaces inside the signature are removed before comparing.",
        _header_form(lambda sig, good: " " in sig.strip() and sig.replace(" ", "") == good),
        "HMAC-HEADER/space-inside",
    ),
    _m(
        "webhook-hmac-non-ascii-body-refused",
        "The body is verified as Latin-1 text re-encoded: a correct signature over a non-ASCII UTF-8 body is 401.",
        _verifies_over(_latin1_text),
        "HMAC-EXACT/non-ascii-body",
    ),
    _m(
        "webhook-hmac-stripped-body",
        "The body is verified after stripping surrounding whitespace: a correct signature over such a body is 401.",
        _verifies_over(lambda body: body.strip() if _parsed(body) is not ValueError else body),
        "HMAC-EXACT/whitespace-body",
    ),
    _m(
        "webhook-hmac-timestamp-rebuilt",
        "The signature input is rebuilt from the parsed timestamp: a leading zero signed as sent is 401.",
        _hmac_refuses(lambda r: (r.header("webhook-timestamp") or "").startswith("0")),
        "HMAC-AS-SENT/leading-zero-timestamp",
    ),
    _m(
        "webhook-hmac-event-id-lowered",
        "The signature input uses the event id lower-cased: an upper-case id signed as sent is 401.",
        _hmac_refuses(lambda r: (r.header("webhook-event-id") or "") != (r.header("webhook-event-id") or "").lower()),
        "HMAC-AS-SENT/upper-case-event-id",
    ),
    # --- the 200 body --------------------------------------------------------------------------------------------
    _m(
        "webhook-accepted-other-event",
        "The 200 names another event id than the one sent.",
        _accepted_answer(lambda r, d: {**d, "eventId": str(uuid.uuid4())}),
        "WH-ACCEPTED/names-other-event",
    ),
    _m(
        "webhook-accepted-run-skipped",
        "A published, enabled listener's run is reported skipped.",
        _accepted_answer(
            lambda r, d: {**d, "automationRun": {**d["automationRun"], "status": "AUTOMATION_RUN_STATUS_SKIPPED"}}
        ),
        "WH-ACCEPTED/run-skipped",
    ),
    _m(
        "webhook-accepted-undocumented-body",
        "The 200 body is not a WebhookAcceptedResponse (no automationRun).",
        _accepted_answer(lambda r, d: {"eventId": d["eventId"], "accepted": True}),
        "WH-ACCEPTED/undocumented-body",
    ),
    # --- Content-Type ----------------------------------------------------------------------------------------------
    _m("webhook-ct-text-json", "text/json is processed.", _lets("text/json"), "CT-REFUSED/text-json"),
    _m(
        "webhook-ct-jsonx",
        "application/jsonx is processed (a prefix match).",
        _lets("application/jsonx"),
        "CT-REFUSED/application-jsonx",
    ),
    _m(
        "webhook-ct-json-patch",
        "application/json-patch+json is processed.",
        _lets("application/json-patch+json"),
        "CT-REFUSED/json-patch",
    ),
    _m(
        "webhook-ct-multipart",
        "multipart/form-data is processed.",
        _lets("multipart/form-data; boundary=x"),
        "CT-REFUSED/multipart",
    ),
    _m(
        "webhook-ct-form",
        "application/x-www-form-urlencoded is processed.",
        _lets("application/x-www-form-urlencoded"),
        "CT-REFUSED/form-urlencoded",
    ),
    _m(
        "webhook-ct-missing-accepted",
        "A body without Content-Type is processed as JSON.",
        let_through(lambda r: _media(r) is None, lambda r: r.with_header("content-type", "application/json")),
        "CT-REFUSED/missing",
    ),
    _m(
        "webhook-ct-charset-refused",
        "`application/json; charset=utf-8` is refused 400 (an exact match on the header).",
        _refuses_media("application/json; charset=utf-8"),
        "CT-ALLOWED/charset-utf8",
    ),
    _m(
        "webhook-ct-quoted-charset-refused",
        '`application/json; charset="utf-8"` is refused 400 (a quoted parameter value).',
        _refuses_media('application/json; charset="utf-8"'),
        "CT-ALLOWED/charset-quoted",
    ),
    _m(
        "webhook-ct-compact-charset-refused",
        "`application/json;charset=UTF-8` is refused 400.",
        _refuses_media("application/json;charset=UTF-8"),
        "CT-ALLOWED/charset-no-space",
    ),
    _m(
        "webhook-ct-case-refused",
        "`Application/JSON` is refused 400 (the media type compared case-sensitively).",
        _refuses_media("Application/JSON"),
        "CT-ALLOWED/upper-case-type",
    ),
    # --- Webhook-Timestamp ---------------------------------------------------------------------------------------
    _m(
        "webhook-ts-fraction", "A fractional timestamp is rounded.", _lets_timestamp(_ts_fraction), "TS-FORMAT/fraction"
    ),
    _m(
        "webhook-ts-fraction-zero",
        "A timestamp ending in .0 is taken as whole seconds.",
        _lets_timestamp(lambda v: v.endswith(".0") and v[:-2].isdigit()),
        "TS-FORMAT/fraction-zero",
    ),
    _m(
        "webhook-ts-iso",
        "An ISO 8601 timestamp is parsed.",
        _lets_timestamp(lambda v: "T" in v and v.endswith("Z")),
        "TS-FORMAT/iso-8601",
    ),
    _m(
        "webhook-ts-milliseconds",
        "A timestamp in milliseconds is divided by 1000.",
        _lets_timestamp(lambda v: v.isdigit() and v.isascii() and len(v) == 13),
        "TS-FORMAT/milliseconds",
    ),
    _m(
        "webhook-ts-plus",
        "A + sign is accepted (int() takes it).",
        _lets_timestamp(lambda v: v.startswith("+")),
        "TS-FORMAT/plus-sign",
    ),
    _m(
        "webhook-ts-minus",
        "A - sign is parsed (and then judged by the window).",
        _lets_timestamp(lambda v: v.startswith("-")),
        "TS-FORMAT/minus-sign",
    ),
    _m(
        "webhook-ts-exponent",
        "Exponent notation is parsed as a float.",
        _lets_timestamp(lambda v: "e" in v and not v.startswith("0x")),
        "TS-FORMAT/exponent",
    ),
    _m(
        "webhook-ts-inner-space",
        "Spaces inside the timestamp are removed.",
        _lets_timestamp(lambda v: " " in v and v.replace(" ", "").isdigit()),
        "TS-FORMAT/inner-space",
    ),
    _m(
        "webhook-ts-hex",
        "A 0x hex timestamp is parsed.",
        _lets_timestamp(lambda v: v.startswith("0x")),
        "TS-FORMAT/hex",
    ),
    _m(
        "webhook-ts-empty",
        "An empty Webhook-Timestamp is taken as now.",
        _lets_timestamp(lambda v: v == ""),
        "TS-FORMAT/empty",
    ),
    _m(
        "webhook-ts-unicode-digits",
        "Other scripts' digits are parsed (Python's int() takes them).",
        _lets_timestamp(_non_ascii_digits),
        "TS-FORMAT/non-ascii-digits",
    ),
    _m(
        "webhook-ts-leading-zero-refused",
        "A timestamp with a leading zero is refused 400 INVALID_TIMESTAMP.",
        _refuse_webhook(_timestamp_is(lambda v: v.startswith("0")), "INVALID_TIMESTAMP", "Webhook-Timestamp is bad"),
        "TS-LEADING-ZERO/leading-zero",
    ),
    _m(
        "webhook-ts-edge-past-300-refused",
        "The window is exclusive in the past: a timestamp exactly 300 s old is refused.",
        _refuse_webhook(_skew_is(-300), "TIMESTAMP_OUT_OF_WINDOW", "Webhook-Timestamp is outside the window"),
        "TS-WINDOW-IN/edge-300-past",
    ),
    _m(
        "webhook-ts-edge-future-300-refused",
        "The window is exclusive in the future: a timestamp exactly 300 s ahead is refused.",
        _refuse_webhook(_skew_is(300), "TIMESTAMP_OUT_OF_WINDOW", "Webhook-Timestamp is outside the window"),
        "TS-WINDOW-IN/edge-300-future",
    ),
    _m(
        "webhook-ts-edge-past-301-accepted",
        "The past edge is off by one: a timestamp 301 s old is accepted.",
        let_through(_skew_is(-301), _with_now),
        "TS-WINDOW-OUT/edge-301-past",
    ),
    _m(
        "webhook-ts-edge-future-301-accepted",
        "The future edge is off by one: a timestamp 301 s ahead is accepted.",
        let_through(_skew_is(301), _with_now),
        "TS-WINDOW-OUT/edge-301-future",
    ),
    # --- Webhook-Event-Id ----------------------------------------------------------------------------------------
    _m(
        "webhook-eid-braces",
        "An event id in braces is accepted.",
        _lets_event_id(lambda v: v.startswith("{")),
        "EID-FORMAT/braces",
    ),
    _m(
        "webhook-eid-urn",
        "A urn:uuid: event id is accepted.",
        _lets_event_id(lambda v: v.startswith("urn:uuid:")),
        "EID-FORMAT/urn",
    ),
    _m(
        "webhook-eid-no-hyphens",
        "An event id of 32 hex digits is accepted.",
        _lets_event_id(lambda v: len(v) == 32 and "-" not in v),
        "EID-FORMAT/no-hyphens",
    ),
    _m(
        "webhook-eid-nil",
        "The nil UUID is accepted.",
        _lets_event_id(lambda v: v == "00000000-0000-0000-0000-000000000000"),
        "EID-FORMAT/nil",
    ),
    _m(
        "webhook-eid-max",
        "The max UUID is accepted.",
        _lets_event_id(lambda v: v.lower() == "ffffffff-ffff-ffff-ffff-ffffffffffff"),
        "EID-FORMAT/max",
    ),
    _m(
        "webhook-eid-variant",
        "A version-4 id of another variant (not RFC 4122's) is accepted.",
        _lets_event_id(lambda v: bool(UUID.match(v)) and v[14] == "4" and v[19].lower() not in "89ab"),
        "EID-FORMAT/bad-variant",
    ),
    _m(
        "webhook-eid-trailing",
        "An event id with a trailing character is accepted (a prefix match).",
        _lets_event_id(lambda v: len(v) == 37 and bool(UUID.match(v[:36]))),
        "EID-FORMAT/trailing-character",
    ),
    _m(
        "webhook-eid-not-uuid",
        "Any text is taken as an event id.",
        _lets_event_id(lambda v: v == "not-a-uuid"),
        "EID-FORMAT/not-uuid",
    ),
    _m(
        "webhook-eid-empty",
        "An empty Webhook-Event-Id is replaced by a generated one.",
        _lets_event_id(lambda v: v == ""),
        "EID-FORMAT/empty",
    ),
    *(
        _m(
            f"webhook-eid-v{version}",
            f"A UUID of version {version} is accepted as an event id.",
            let_through(_event_id_is(_version(version)), _as_v4),
            f"EID-VERSION/v{version}",
        )
        for version in (3, 5, 7)
    ),
    _m(
        "webhook-eid-upper-refused",
        "An upper-case event id is refused 400 INVALID_EVENT_ID (a lower-case pattern).",
        _refuse_webhook(_event_id_is(lambda v: _hex_letters(v, upper=True)), "INVALID_EVENT_ID", "not a UUID v4"),
        "EID-CASE/upper-case",
    ),
    _m(
        "webhook-eid-mixed-refused",
        "A mixed-case event id is refused 400 INVALID_EVENT_ID.",
        _refuse_webhook(_event_id_is(_mixed_case), "INVALID_EVENT_ID", "not a UUID v4"),
        "EID-CASE/mixed-case",
    ),
    # --- JSON body -------------------------------------------------------------------------------------------------
    _m(
        "webhook-json-truncated",
        "A truncated JSON body is processed (as a string).",
        _lets_body(lambda b: b.rstrip().endswith(b":")),
        "JSON-INVALID/truncated",
    ),
    _m(
        "webhook-json-nan",
        "NaN is accepted (Python's json takes it).",
        _lets_body(lambda b: b"NaN" in b),
        "JSON-INVALID/nan",
    ),
    _m(
        "webhook-json-infinity",
        "Infinity is accepted.",
        _lets_body(lambda b: b"Infinity" in b and not b.startswith(b"-")),
        "JSON-INVALID/infinity",
    ),
    _m(
        "webhook-json-minus-infinity",
        "-Infinity is accepted.",
        _lets_body(lambda b: b.startswith(b"-Infinity")),
        "JSON-INVALID/minus-infinity",
    ),
    _m("webhook-json-empty", "An empty body is taken as null.", _lets_body(lambda b: b == b""), "JSON-INVALID/empty"),
    _m("webhook-json-bom", "A UTF-8 BOM is skipped.", _lets_body(lambda b: b.startswith(BOM)), "JSON-INVALID/bom"),
    _m(
        "webhook-json-invalid-utf8",
        "Invalid UTF-8 is decoded with replacement characters.",
        _lets_body(lambda b: b"\xff" in b),
        "JSON-INVALID/invalid-utf8",
    ),
    _m(
        "webhook-json-trailing",
        "Data after the JSON value is ignored (raw_decode).",
        _lets_body(lambda b: b.endswith(b"} x")),
        "JSON-INVALID/trailing-garbage",
    ),
    _m(
        "webhook-json-two-values",
        "The first of two concatenated JSON values is taken.",
        _lets_body(lambda b: b"}{" in b),
        "JSON-INVALID/two-values",
    ),
    _m(
        "webhook-json-single-quotes",
        "Single-quoted JSON-ish text is accepted.",
        _lets_body(lambda b: b.startswith(b"{'")),
        "JSON-INVALID/single-quotes",
    ),
    _m(
        "webhook-json-array-refused",
        "A top-level array is refused (only objects taken).",
        _refuses_body(lambda b: isinstance(_parsed(b), list), "INVALID_ARGUMENT"),
        "JSON-ANY/array",
    ),
    _m(
        "webhook-json-string-refused",
        "A top-level string is refused.",
        _refuses_body(lambda b: isinstance(_parsed(b), str), "INVALID_ARGUMENT"),
        "JSON-ANY/string",
    ),
    _m(
        "webhook-json-number-refused",
        "A top-level number is refused.",
        _refuses_body(lambda b: type(_parsed(b)) in (int, float), "INVALID_ARGUMENT"),
        "JSON-ANY/number",
    ),
    _m(
        "webhook-json-boolean-refused",
        "A top-level boolean is refused.",
        _refuses_body(lambda b: isinstance(_parsed(b), bool), "INVALID_ARGUMENT"),
        "JSON-ANY/boolean",
    ),
    _m(
        "webhook-json-null-refused",
        "A top-level null is refused.",
        _refuses_body(lambda b: b.strip() == b"null", "INVALID_ARGUMENT"),
        "JSON-ANY/null-value",
    ),
    _m(
        "webhook-json-duplicate-keys-refused",
        "An object with a duplicate member name is refused 400 INVALID_JSON.",
        _refuses_body(lambda b: b.startswith(b'{"a":1,"a":')),
        "JSON-ANY/duplicate-keys",
    ),
    _m(
        "webhook-json-whitespace-refused",
        "A body with insignificant whitespace is refused (only compact JSON taken).",
        _refuses_body(lambda b: b.startswith(b" \n{")),
        "JSON-ANY/whitespace",
    ),
    _m(
        "webhook-json-deep-500",
        "Deeply nested JSON crashes the parser: 500.",
        _refuse_webhook(_body_is(_deep), "INTERNAL", "maximum recursion depth exceeded", 500),
        "JSON-DEEP/server-error",
    ),
    # --- size --------------------------------------------------------------------------------------------------------
    _m(
        "webhook-body-limit-off-by-one",
        "A body of exactly 65,536 bytes is refused 413 (the limit taken as exclusive).",
        _refuse_webhook(lambda r: len(r.body) == BODY_LIMIT, "PAYLOAD_TOO_LARGE", "too large", 413),
        "SIZE-MAX/exactly-65536",
    ),
    _m(
        "webhook-chunked-body-unlimited",
        "Only Content-Length is checked: a chunked body over 64 KB is processed.",
        let_through(
            lambda r: r.header("content-length") is None and len(r.body) > BODY_LIMIT, lambda r: r.with_body(b"{}")
        ),
        "SIZE-OVER/chunked-65537",
    ),
    _m(
        "webhook-chunked-refused",
        "A body without Content-Length (chunked) is refused 411 whatever its size.",
        _refuse_webhook(
            lambda r: r.header("content-length") is None, "LENGTH_REQUIRED", "Content-Length is required", 411
        ),
        "SIZE-MAX/chunked-65536",
    ),
    # --- idempotency -------------------------------------------------------------------------------------------------
    _m(
        "webhook-idem-keyed-on-body",
        "Idempotency is keyed on the event id and the body: the same id with another body is processed.",
        _as_other_event(_other_body, lambda r: hashlib.sha256(r.body).hexdigest()),
        "IDEM-REPLAY/other-body",
    ),
    _m(
        "webhook-idem-upper-is-new",
        "Event ids are compared case-sensitively: the upper-case form of an accepted id is a new event.",
        _as_other_event(_other_case(lambda v: _hex_letters(v, upper=True)), lambda r: "upper"),
        "IDEM-REPLAY/upper-after-lower",
    ),
    _m(
        "webhook-idem-lower-is-new",
        "Event ids are compared case-sensitively: the lower-case form of an accepted upper-case id is a new event.",
        _as_other_event(_other_case(lambda v: _hex_letters(v, upper=False)), lambda r: "lower"),
        "IDEM-REPLAY/lower-after-upper",
    ),
    _m(
        "webhook-idem-consumed-by-stale",
        "A request refused for its timestamp still records its event id.",
        _consumes_on(400, "TIMESTAMP_OUT_OF_WINDOW"),
        "IDEM-NOT-CONSUMED/after-stale-timestamp",
    ),
    _m(
        "webhook-idem-consumed-by-json",
        "A request refused for its body still records its event id.",
        _consumes_on(400, "INVALID_JSON"),
        "IDEM-NOT-CONSUMED/after-invalid-json",
    ),
    _m(
        "webhook-idem-consumed-by-413",
        "A request refused for its size still records its event id.",
        _consumes_on(413),
        "IDEM-NOT-CONSUMED/after-too-large",
    ),
    _m(
        "webhook-idem-consumed-by-401",
        "A request refused for its signature still records its event id.",
        _consumes_on(401),
        "IDEM-NOT-CONSUMED/after-wrong-signature",
    ),
    # --- processing order ------------------------------------------------------------------------------------------
    _m(
        "webhook-order-auth-before-headers",
        "The signature is checked before the headers: a mis-signed request without Webhook-Timestamp gets 401.",
        _auth_first_when(lambda r: r.header("webhook-timestamp") is None),
        "ORDER-SHAPE-FIRST/missing-header-wrong-signature",
    ),
    _m(
        "webhook-order-auth-before-json",
        "The signature is checked before the body is parsed: a mis-signed non-JSON body gets 401.",
        _auth_first_when(lambda r: _parsed(r.body) is ValueError),
        "ORDER-SHAPE-FIRST/invalid-json-wrong-signature",
    ),
    _m(
        "webhook-order-replay-before-window",
        "Idempotency is checked before the timestamp window: a stale replay gets 409.",
        _replay_409_when(lambda r: (s := _skew(r)) is not None and abs(s) > WINDOW_SECONDS),
        "ORDER-SHAPE-FIRST/stale-replay",
    ),
    _m(
        "webhook-order-unsigned-replay-409",
        "Idempotency is checked before a missing signature: an unsigned replay gets 409.",
        _replay_409_when(lambda r: not r.header("webhook-signature") and not r.header("authorization")),
        "ORDER-AUTH-BEFORE-IDEM/unsigned-replay",
    ),
    _m(
        "webhook-order-auth-before-cidr",
        "The signature is checked before the source: a mis-signed request from outside the ranges gets 401.",
        _auth_before_cidr,
        "ORDER-SOURCE-BEFORE-AUTH/wrong-signature-outside",
    ),
    # --- source address --------------------------------------------------------------------------------------------
    _m(
        "webhook-cidr-too-strict",
        "A restricted listener refuses sources inside its ranges too.",
        _cidr_too_strict,
        "CIDR-ALLOWED/inside",
    ),
    *(
        _m(
            f"webhook-cidr-{header}-lets-in",
            f"{header} from any peer is the source: naming an allowed address gets a refused peer in.",
            _trusts(header, lets_in=True),
            f"CIDR-FORWARDING/{header}-in",
        )
        for header in FORWARDING
    ),
    *(
        _m(
            f"webhook-cidr-{header}-locks-out",
            f"{header} from any peer is the source: naming a refused address locks an allowed peer out.",
            _trusts(header, lets_in=False),
            f"CIDR-FORWARDING/{header}-out",
        )
        for header in FORWARDING
    ),
    # --- automation outcomes, unknown listener ---------------------------------------------------------------------
    _m(
        "webhook-run-disabled-queued",
        "A disabled trigger's event is reported queued (the automation would run).",
        _run_answer(
            DISABLED_LISTENER_ID, lambda run: {**run, "status": "AUTOMATION_RUN_STATUS_QUEUED", "reason": None}
        ),
        "RUN-SKIPPED/disabled-trigger-runs",
    ),
    _m(
        "webhook-run-unpublished-queued",
        "An unpublished automation's event is reported queued (the automation would run).",
        _run_answer(
            UNPUBLISHED_LISTENER_ID, lambda run: {**run, "status": "AUTOMATION_RUN_STATUS_QUEUED", "reason": None}
        ),
        "RUN-SKIPPED/unpublished-runs",
    ),
    _m(
        "webhook-run-skipped-no-reason",
        "A skipped run does not say why (reason null).",
        _run_answer(DISABLED_LISTENER_ID, lambda run: {**run, "reason": None}),
        "RUN-SKIPPED/skipped-without-reason",
    ),
    _m(
        "webhook-unknown-listener-served",
        "A delivery to an unknown listener id is handled by a default listener (200) instead of 404.",
        _unknown_listener_served,
        "LISTENER-UNKNOWN/unknown-id",
    ),
]

CONTROLS = [
    _c(
        "control-webhook-run-status-unknown",
        "A run that is not skipped carries an AutomationRunStatus value the spec does not list.",
        _control_answer(
            lambda d: {**d, "automationRun": {**d["automationRun"], "status": "AUTOMATION_RUN_STATUS_NEW"}}
        ),
        "WH-ACCEPTED/unknown-run-status",
    ),
    _c(
        "control-webhook-event-id-upper",
        "The 200 names the event id in upper case (the same UUID).",
        _control_answer(lambda d: {**d, "eventId": str(d["eventId"]).upper()}),
        "WH-ACCEPTED/event-id-other-case",
    ),
    _c(
        "control-webhook-skip-reason-text",
        "A skipped run's reason is worded otherwise.",
        _control_answer(lambda d: {**d, "automationRun": {**d["automationRun"], "reason": "reworded"}}, skipped=True),
        "RUN-SKIPPED/reason-text",
    ),
    _c(
        "control-webhook-response-charset",
        "Webhook responses say `application/json; charset=utf-8` and carry extra headers.",
        _response_headers(
            [(b"cache-control", b"no-store"), (b"x-selftest-extra", b"1")], b"application/json; charset=utf-8"
        ),
        "WH-ACCEPTED/response-charset",
    ),
]
MUTANTS = [
    Mutant(
        "webhook-missing-timestamp-accepted",
        "webhook",
        "A request without Webhook-Timestamp is processed (200) instead of 400 MISSING_HEADER.",
        let_through(_missing("webhook-timestamp"), _with_now),
        covers=("HDR-REQUIRED/missing-timestamp",),
    ),
    Mutant(
        "webhook-missing-event-id-accepted",
        "webhook",
        "A request without Webhook-Event-Id is processed under a generated id instead of 400 MISSING_HEADER.",
        let_through(_missing("webhook-event-id"), lambda r: r.with_header("webhook-event-id", str(uuid.uuid4()))),
        covers=("HDR-REQUIRED/missing-event-id",),
    ),
    Mutant(
        "webhook-missing-auth-accepted",
        "webhook",
        "A request with neither Webhook-Signature nor Authorization is processed instead of 401.",
        let_through(lambda r: not r.header("webhook-signature") and not r.header("authorization")),
        covers=("HMAC-MISSING/absent",),
    ),
    Mutant(
        "webhook-content-type-ignored",
        "webhook",
        "A body sent without Content-Type application/json is processed instead of 400.",
        let_through(
            lambda r: not (r.header("content-type") or "").lower().startswith("application/json"),
            lambda r: r.with_header("content-type", "application/json"),
        ),
        covers=("CT-REFUSED/text-plain",),
    ),
    Mutant(
        "webhook-stale-timestamp-accepted",
        "webhook",
        "The timestamp window reaches 15 minutes into the past: a timestamp 5-15 minutes old is processed.",
        let_through(lambda r: (s := _skew(r)) is not None and -900 <= s < -WINDOW_SECONDS, _with_now),
        covers=("TS-WINDOW-OUT/outside-302-past",),
    ),
    Mutant(
        "webhook-future-timestamp-accepted",
        "webhook",
        "Only the past edge of the window is checked: a timestamp more than 5 minutes ahead is processed.",
        let_through(lambda r: (s := _skew(r)) is not None and s > WINDOW_SECONDS, _with_now),
        covers=("TS-WINDOW-OUT/outside-302-future",),
    ),
    Mutant(
        "webhook-timestamp-window-narrow",
        "webhook",
        "The window is 2 minutes, not 5: a timestamp 2-5 minutes off is refused 400 TIMESTAMP_OUT_OF_WINDOW.",
        refuse(
            "webhook",
            lambda r: (s := _skew(r)) is not None and 120 < abs(s) <= WINDOW_SECONDS,
            400,
            "TIMESTAMP_OUT_OF_WINDOW",
            "Webhook-Timestamp is outside the window",
        ),
        covers=(
            "TS-WINDOW-IN/inside-298-past",
            "TS-WINDOW-IN/inside-298-future",
        ),
    ),
    Mutant(
        "webhook-non-v4-event-id-accepted",
        "webhook",
        "Any UUID is taken as an event id: a version 1 or 7 UUID is processed instead of 400 INVALID_EVENT_ID.",
        let_through(_non_v4, _as_v4),
        covers=("EID-VERSION/v1",),
    ),
    Mutant(
        "webhook-invalid-json-accepted",
        "webhook",
        "A body that is not JSON is processed (as a JSON string) instead of 400 INVALID_JSON.",
        let_through(_not_json, lambda r: r.with_body(json.dumps(r.body.decode("utf-8", "replace")).encode())),
        covers=("JSON-INVALID/truncated",),
    ),
    Mutant(
        "webhook-oversized-body-accepted",
        "webhook",
        "No 64 KB limit: a larger body is processed (truncated to an empty object) instead of 413.",
        let_through(lambda r: len(r.body) > BODY_LIMIT, lambda r: r.with_body(b"{}")),
        covers=("SIZE-OVER/content-length-65537",),
    ),
    Mutant(
        "webhook-body-limit-64000",
        "webhook",
        "64 KB taken as 64,000 bytes: a body of 64,001-65,536 bytes is refused 413.",
        refuse(
            "webhook",
            lambda r: 64_000 < len(r.body) <= BODY_LIMIT,
            413,
            "PAYLOAD_TOO_LARGE",
            "the body exceeds 64000 bytes",
        ),
        covers=("SIZE-MAX/exactly-65536",),
    ),
    Mutant(
        "webhook-hmac-mismatch-accepted",
        "webhook",
        "The HMAC signature is not compared: a wrong Webhook-Signature is processed instead of 401.",
        let_through(lambda r: bool(r.header("webhook-signature"))),
        covers=(
            "HMAC-KEY/other-secret",
            "HMAC-INPUT/event-id-changed",
        ),
    ),
    Mutant(
        "webhook-hmac-key-decoded",
        "webhook",
        "The HMAC key is the base64url-decoded secret, not the secret string: every correct signature is 401.",
        _hmac_key_decoded,
        covers=("HMAC-EXACT/as-specified",),
    ),
    Mutant(
        "webhook-duplicate-answered-200",
        "webhook",
        "A replayed Webhook-Event-Id is answered 200 (the first response again) instead of 409.",
        _duplicate_answered_200,
        covers=("IDEM-REPLAY/same-request",),
    ),
    Mutant(
        "webhook-duplicate-across-listeners",
        "webhook",
        "Idempotency is global, not per listener: an event id seen by another listener is refused 409.",
        _duplicate_across_listeners,
        covers=("IDEM-PER-LISTENER/other-listener",),
    ),
    Mutant(
        "webhook-duplicate-before-auth",
        "webhook",
        "Idempotency is checked before authentication: a replay with a bad signature gets 409, not 401.",
        _duplicate_before_auth,
        covers=("ORDER-AUTH-BEFORE-IDEM/forged-replay",),
    ),
    Mutant(
        "webhook-auth-before-shape",
        "webhook",
        "Authentication runs before the shape checks: a mis-signed request with a bad header gets 401, not 400.",
        _auth_before_shape,
        covers=("ORDER-SHAPE-FIRST/missing-header-wrong-signature",),
    ),
    Mutant(
        "webhook-cidr-ignored",
        "webhook",
        "The listener's allowed CIDR ranges are not enforced: a source outside them is processed, not 403.",
        _cidr_ignored,
        covers=("CIDR-REFUSED/outside",),
    ),
    *ATTACK_MUTANTS,
]

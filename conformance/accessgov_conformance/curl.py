"""A failing request as a shell snippet that runs when pasted: secrets as environment variables (with the
`export` lines to set them); a webhook's timestamp, event id and HMAC signature (or JWT: reproduce_jwt.py)
computed afresh when pasted.

A webhook snippet rebuilds what makes a delivery stale: a timestamp near the moment it was sent becomes the same
offset from `date +%s` (its leading zeros, sign, fraction or whitespace kept), a UUID v4 event id a new one (in
the same letter case), and a signature the kit can recognise is computed again over the fresh values, the same
way: it tries the keys (the secret as given, base64url- or base64-decoded), the inputs (`{timestamp}.{event_id}.
{body}` and its variations: other separators or order, a part left out, the timestamp off by a few seconds, the
event id in another case or another UUID), the hashes (SHA-256, SHA-1, SHA-512) and the encodings (base64url,
base64, padded or not, hex) and finds the one that gives the signature in the header. Earlier deliveries of the
check with the same event id come first in the snippet, so that a replay is reproduced as one.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import re
import shlex
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import product

from . import reproduce_jwt
from .config import Config, Listener, env_name
from .context import Exchange

UUID4 = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-4[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$")
# A Unix-seconds timestamp with what a check may put around it (sign, leading zeros, fraction, whitespace).
TIMESTAMP = re.compile(r"^(\s*[+-]?0*)([1-9][0-9]{8,10})((?:\.[0-9]+)?\s*)$")
NEAR = 86_400  # a literal timestamp this close to when it was sent is a moment, not a format under test
WEBHOOK_PATH = "/api/v1/webhooks/incoming/"

# The signed text before the body: (its Python source in the snippet, the same as a function of `t` the header
# timestamp and `e` the event id), and whether the body follows.
INPUTS: list[tuple[str, Callable[[str, str], str], bool]] = [
    ('f"{t}.{e}."', lambda t, e: f"{t}.{e}.", True),
    ('f"{t}:{e}:"', lambda t, e: f"{t}:{e}:", True),
    ('f"{t}{e}"', lambda t, e: f"{t}{e}", True),
    ('f"{t}\\n{e}\\n"', lambda t, e: f"{t}\n{e}\n", True),
    ('f"{e}.{t}."', lambda t, e: f"{e}.{t}.", True),
    ('f"{t}."', lambda t, e: f"{t}.", True),
    ('f"{e}."', lambda t, e: f"{e}.", True),
    ('""', lambda t, e: "", True),
    ('f"{t}.{e}"', lambda t, e: f"{t}.{e}", False),
]
HASHES = ("sha256", "sha1", "sha512")
ENCODINGS: dict[str, tuple[str, Callable[[bytes], str]]] = {
    "b64url": ('base64.urlsafe_b64encode(d).decode().rstrip("=")', lambda d: _b64(d, True).rstrip("=")),
    "b64url-padded": ("base64.urlsafe_b64encode(d).decode()", lambda d: _b64(d, True)),
    "b64": ('base64.b64encode(d).decode().rstrip("=")', lambda d: _b64(d, False).rstrip("=")),
    "b64-padded": ("base64.b64encode(d).decode()", lambda d: _b64(d, False)),
    "hex": ("d.hex()", lambda d: d.hex()),
    "HEX": ("d.hex().upper()", lambda d: d.hex().upper()),
}
KEYS = {
    "secret": "s.encode()",
    "b64url-decoded": 'base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))',
    "b64-decoded": 'base64.b64decode(s + "=" * (-len(s) % 4))',
}


def _b64(digest: bytes, url: bool) -> str:
    return (base64.urlsafe_b64encode(digest) if url else base64.b64encode(digest)).decode()


def _secret_variables(config: Config) -> list[tuple[str, str]]:
    """(variable, value), longest value first so that a secret inside another is not replaced half."""
    return sorted(config.secret_names().items(), key=lambda item: -len(item[1]))


def hide_secrets(text: str, config: Config) -> str:
    """`text` (e.g. Schemathesis' reproduce lines) with each configured secret as `${VARIABLE}`, preceded by the
    `export` lines that set them."""
    used = []
    for name, value in _secret_variables(config):
        if value and value in text:
            text = text.replace(value, f"${{{name}}}")
            used.append(f"export {name}={shlex.quote(value)}")
    if not used:
        return text
    text = re.sub(r"curl (.*)", lambda match: "curl " + _double_quoted(match.group(1)), text)
    return "\n".join(sorted(used)) + "\n" + text


def _double_quoted(arguments: str) -> str:
    """Single-quoted shell words that now hold `${VARIABLE}` turned into double-quoted ones, so they expand."""
    return re.sub(
        r"'([^']*\$\{[A-Z0-9_]+\}[^']*)'",
        lambda match: '"' + match.group(1).replace("\\", "\\\\").replace('"', '\\"').replace("`", "\\`") + '"',
        arguments,
    )


@dataclass
class _Signature:
    """How a webhook signature was made, found by trying (see the module docstring)."""

    token: str  # as it appears in the header
    key: str  # a KEYS name
    text: str  # an INPUTS source
    body: bool  # whether the body follows the text
    hash: str
    encoding: str
    timestamp: str  # Python source of the signed timestamp: "t", '""', "str(core + d)" or a literal
    event_id: str  # Python source of the signed event id: "e", '""', "e.lower()", "e.upper()" or another one


def _decoded_tokens(header: str) -> dict[bytes, str]:
    """Every piece of `header` that decodes (in some encoding) to a digest length, by its bytes."""
    found: dict[bytes, str] = {}
    for token in re.split(r"[\s,;=]+", header):
        for piece in {token, token.split(":")[-1]}:
            for decode in (
                lambda x: base64.urlsafe_b64decode(x + "=" * (-len(x) % 4)),
                lambda x: base64.b64decode(x + "=" * (-len(x) % 4), validate=True),
                bytes.fromhex,
            ):
                try:
                    digest = decode(piece)
                except (ValueError, binascii.Error):
                    continue
                if len(digest) in (20, 32, 64):
                    found.setdefault(digest, piece)
    return found


def _derived_keys(secret: str) -> dict[str, bytes]:
    keys = {"secret": secret.encode()}
    for name, decode in (("b64url-decoded", base64.urlsafe_b64decode), ("b64-decoded", base64.b64decode)):
        try:
            keys[name] = decode(secret + "=" * (-len(secret) % 4))
        except (ValueError, binascii.Error):
            continue
    return keys


def _variants(value: str, core: int | None, recipe_value: str | None) -> Iterator[tuple[str, str]]:
    yield "t", value
    yield '""', ""
    if core is not None:
        for delta in range(-5, 6):
            if delta:
                yield f"str(core + {delta})", str(core + delta)
    if recipe_value is not None and recipe_value != value:
        yield repr(recipe_value), recipe_value


def find_signature(exchange: Exchange, secret: str) -> _Signature | None:
    """How the exchange's `Webhook-Signature` was made from `secret`, when it is one of the ways tried."""
    headers = {name.lower(): value for name, value in exchange.request_headers.items()}
    header = headers.get("webhook-signature", "")
    digests = _decoded_tokens(header)
    if not digests:
        return None
    t, e = headers.get("webhook-timestamp", ""), headers.get("webhook-event-id", "")
    match = TIMESTAMP.match(t)
    core = int(match.group(2)) if match else None
    recipe = exchange.webhook
    keys = _derived_keys(secret)
    if recipe is not None and recipe.key is not None:
        keys = {name: key for name, key in keys.items() if key == recipe.key.encode()} or keys
    timestamps = list(_variants(t, core, recipe.sign_timestamp if recipe else None))
    event_ids = [("e", e), ('""', ""), ("e.lower()", e.lower()), ("e.upper()", e.upper())]
    other = recipe.sign_event_id if recipe is not None else None
    if other is not None and other != e:
        event_ids.append(("str(uuid.uuid4())" if UUID4.match(other) else repr(other), other))
    bodies = [(True, exchange.request_body), (False, b"")] if exchange.request_body else [(True, b"")]
    for (key_name, key), (text, signed, with_body), (ts_expr, ts), (eid_expr, eid), algorithm in product(
        keys.items(), INPUTS, timestamps, event_ids, HASHES
    ):
        prefix = signed(ts, eid).encode()
        for covered, body in bodies if with_body else [(False, b"")]:
            digest = hmac.new(key, prefix + body, getattr(hashlib, algorithm)).digest()
            if digest in digests:
                token = digests[digest]
                encoding = next(name for name, (_, encode) in ENCODINGS.items() if encode(digest) == token)
                return _Signature(token, key_name, text, covered, algorithm, encoding, ts_expr, eid_expr)
    return None


@dataclass
class _Snippet:
    """The lines of one snippet, the secrets it names and the variables it has set."""

    config: Config
    lines: list[str] = field(default_factory=list)
    used: dict[str, str] = field(default_factory=dict)
    event_ids: dict[str, str] = field(default_factory=dict)  # lower-case id -> its variable
    count: int = 0

    def hide(self, text: str) -> str:
        for name, value in _secret_variables(self.config):
            if value and value in text:
                text = text.replace(value, f"${{{name}}}")
                self.used[name] = value
        return text

    def event_id(self, value: str) -> str:
        """`value` as shell text: a variable holding a new UUID v4 (shared by the snippet's requests that sent
        the same id, in the letter case each sent), or the literal value."""
        if not UUID4.match(value):
            return value
        name = self.event_ids.get(value.lower())
        if name is None:
            name = "EVENT_ID" if not self.event_ids else f"EVENT_ID_{len(self.event_ids) + 1}"
            self.event_ids[value.lower()] = name
            self.lines.append(f"{name}=$(python3 -c 'import uuid; print(uuid.uuid4())')")
        if value == value.lower():
            return f"${{{name}}}"
        return f"${{{name}^^}}" if value == value.upper() else value

    def request(self, exchange: Exchange, *, last: bool) -> None:
        self.count += 1
        suffix = "" if last else f"_{self.count}"
        headers = dict(exchange.request_headers)
        lower = {name.lower(): name for name in headers}
        body_file = "body.json" if last else f"body{suffix}.json"
        if exchange.request_body:
            self.lines.append(
                f"printf '%s' {shlex.quote(exchange.request_body.decode('utf-8', 'replace'))} > {body_file}"
            )
        if WEBHOOK_PATH in exchange.url:
            self._webhook(exchange, headers, lower, suffix, body_file)
        parts = ["curl", "-sS", "-i", "-X", exchange.method, _quote(self.hide(exchange.url))]
        for name, value in headers.items():
            parts += ["-H", _quote(f"{name}: {self.hide(value)}")]
        if exchange.request_body:
            parts += ["--data-binary", f"@{body_file}"]
        self.lines.append(" ".join(parts) + ("" if last else "; echo"))

    def _webhook(
        self, exchange: Exchange, headers: dict[str, str], lower: dict[str, str], suffix: str, body_file: str
    ) -> None:
        ts_name, eid_name, sig_name = (lower.get(name) for name in ("webhook-timestamp", "webhook-event-id",
                                                                       "webhook-signature"))  # fmt: skip
        ts_value = headers.get(ts_name or "", "")
        eid_value = headers.get(eid_name or "", "")
        signature = self._signature(exchange)
        fresh_ts = TIMESTAMP.match(ts_value) if ts_name else None
        if eid_name:  # before the clock is read: the timestamp goes last, right before the request
            headers[eid_name] = self.event_id(eid_value)
        known = exchange.webhook.timestamp_offset if exchange.webhook is not None else None
        offset: int | None = None
        if fresh_ts and (known is not None or abs(int(fresh_ts.group(2)) - exchange.sent_at) <= NEAR):
            # the offset the check asked for, else the literal's distance from when it was sent
            offset = known if known is not None else int(fresh_ts.group(2)) - int(exchange.sent_at)
        if offset is not None and fresh_ts and ts_name:
            headers[ts_name] = f"{fresh_ts.group(1)}${{TS{suffix}}}{fresh_ts.group(3)}"
        if signature is not None and sig_name:
            # The clock is read by the program that signs, right before curl: a slow start of python3 on a busy
            # machine must not move a timestamp at the window's edge by a second.
            secret_env = env_name(exchange.webhook.listener_id or "") if exchange.webhook else ""
            self.used[secret_env] = dict(self.config.secret_names()).get(secret_env, "")
            around = (fresh_ts.group(1), fresh_ts.group(3)) if fresh_ts and offset is not None else ("", "")
            arguments = [*around, "" if offset is None else str(offset), ts_value, headers.get(eid_name or "", "")]
            arguments.append(body_file if exchange.request_body else "/dev/null")
            self.lines.append(
                f"read -r TS{suffix} SIG{suffix} < <(python3 - {' '.join(_quote(item) for item in arguments)} <<'PY'\n"
                + _signing_program(signature, secret_env)
                + "\nPY\n)"
            )
            headers[sig_name] = headers[sig_name].replace(signature.token, f"${{SIG{suffix}}}")
        elif offset is not None:
            self.lines.append(f"TS{suffix}=$(( $(date +%s) {'+' if offset >= 0 else '-'} {abs(offset)} ))")
        self._jwt(exchange, headers, lower, suffix, body_file, eid_value, headers.get(eid_name or "", ""))

    def _jwt(
        self,
        exchange: Exchange,
        headers: dict[str, str],
        lower: dict[str, str],
        suffix: str,
        body_file: str,
        event_id: str,
        event_id_text: str,
    ) -> None:
        """The Bearer JWT made afresh when the kit can (reproduce_jwt.py), else left as sent."""
        name = lower.get("authorization")
        listener = self._listener(exchange)
        if name is None or listener is None or listener.method != "jwt":
            return
        token = reproduce_jwt.recognise(exchange, listener, event_id)
        if token is None:
            return
        variable, value = reproduce_jwt.key_variable(listener, self.config)
        if token.signed:
            self.used[variable] = value
        arguments = [event_id_text, body_file if exchange.request_body else "/dev/null"]
        self.lines.append(
            f"TOKEN{suffix}=$(python3 - {' '.join(_quote(item) for item in arguments)} <<'PY'\n"
            + reproduce_jwt.program(token, variable, listener.private_key_file is not None)
            + "\nPY\n)"
        )
        scheme = headers[name].split(" ", 1)[0]
        headers[name] = f"{scheme} ${{TOKEN{suffix}}}"

    def _listener(self, exchange: Exchange) -> Listener | None:
        recipe = exchange.webhook
        if recipe is None or recipe.listener_id is None:
            return None
        return next((item for item in self.config.listeners if item.id == recipe.listener_id), None)

    def _signature(self, exchange: Exchange) -> _Signature | None:
        listener = self._listener(exchange)
        if listener is None or listener.secret is None:
            return None
        return find_signature(exchange, listener.secret)


def _signing_program(signature: _Signature, secret_env: str) -> str:
    """Python that prints the fresh timestamp (its number) and the signature made as `signature` says."""
    body = "open(path, 'rb').read()" if signature.body else 'b""'
    return "\n".join(
        [
            "import base64, hashlib, hmac, os, sys, time, uuid",
            "before, after, offset, literal, e, path = sys.argv[1:7]",
            "core = int(time.time()) + int(offset) if offset else 0",
            "t = f'{before}{core}{after}' if offset else literal",
            f"s = os.environ[{secret_env!r}]",
            f"key = {KEYS[signature.key]}",
            f"t, e = {signature.timestamp}, {signature.event_id}",
            f"d = hmac.new(key, ({signature.text}).encode() + {body}, hashlib.{signature.hash}).digest()",
            f"print(core, {ENCODINGS[signature.encoding][0]})",
        ]
    )


def reproduce(exchange: Exchange, config: Config, earlier: Sequence[Exchange] = ()) -> str:
    """Shell lines that send `exchange`'s request again; an earlier webhook of the check with the same event id
    (any letter case) is sent first, as it was."""
    snippet = _Snippet(config)
    event_id = _header(exchange, "webhook-event-id").lower()
    if event_id and WEBHOOK_PATH in exchange.url:
        for before in earlier:
            if WEBHOOK_PATH in before.url and _header(before, "webhook-event-id").lower() == event_id:
                snippet.request(before, last=False)
    snippet.request(exchange, last=True)
    exports = [f"export {name}={shlex.quote(value)}" for name, value in sorted(snippet.used.items()) if name]
    return "\n".join([*exports, *snippet.lines])


def _header(exchange: Exchange, name: str) -> str:
    return next((value for key, value in exchange.request_headers.items() if key.lower() == name), "")


def _quote(text: str) -> str:
    """Double quotes where the text uses a variable (so the shell expands it), single quotes otherwise."""
    if "${" in text or "$(" in text:
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("`", "\\`") + '"'
    return shlex.quote(text)

"""The kit's configuration: the target's credentials and the fixtures the checks use, read from TOML.

Every value is checked on load; a wrong one is a `ConfigError` naming the key (the CLI exits 2). Secrets may be
given literally or as `<key>_env = "VARIABLE"` to read them from the environment.
"""

from __future__ import annotations

import dataclasses
import difflib
import ipaddress
import os
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

TargetKind = Literal["implementation", "mock"]
ListenerMethod = Literal["hmac", "jwt"]


# A full run causes about 200 failed authentications on purpose (83 of them to a JWT listener); against a limit of 30 a
# minute (the reference server's default) it waits about six minutes for the window to pass, in all.
DEFAULT_MAX_RETRY_WAIT = 900.0
DEFAULT_CREDENTIAL_AGE = 6.0  # seconds: the least age at which the lifetime rules use an early credential again


class ConfigError(ValueError):
    """The configuration file is missing, unreadable or has a wrong value."""


@dataclass(frozen=True)
class Listener:
    """A webhook listener the kit may deliver to, with the credential it verifies."""

    id: str
    method: ListenerMethod
    secret: str | None = field(default=None, repr=False)
    private_key: bytes | None = field(default=None, repr=False)
    kid: str | None = None
    private_key_file: Path | None = None  # where `private_key` was read from (the reproduce lines name it)
    source_allowed: bool = True
    cidr_restricted: bool = False
    # False when the listener's automation is unpublished or its trigger disabled: its events are accepted and
    # their run is skipped (the WH-RUN rules need one of each).
    automation_published: bool = True
    trigger_enabled: bool = True
    allowed_cidrs: tuple[str, ...] = ()  # the ranges the target restricts it to, when known (forwarding rules)


@dataclass(frozen=True)
class Caller:
    """A credential of one role of the target (`[[auth.callers]]`): the fields the spec describes relative to the
    caller (`Task.actions`, `TaskView.objectPermissions`) are checked with each."""

    role: str
    token: str = field(repr=False)
    restart: bool  # whether the role may restart a task (else: 403 PERMISSION_DENIED)
    # The TaskView.objectPermissions members (read, edit, delete) the role gets on an open task, where known.
    permissions: tuple[tuple[str, bool], ...] = ()


@dataclass(frozen=True)
class Config:
    """What the checks need to know about one target."""

    base_url: str
    kind: TargetKind = "implementation"
    tenant_base_url: str = "https://example.accessgov.example"
    audience_base_url: str | None = None
    token: str | None = field(default=None, repr=False)
    oauth_client_id: str | None = None
    oauth_client_secret: str | None = field(default=None, repr=False)
    restricted_token: str | None = field(default=None, repr=False)
    callers: tuple[Caller, ...] = ()
    listeners: tuple[Listener, ...] = ()
    open_task_ids: tuple[str, ...] = ()
    closed_task_id: str | None = None
    deleted_task_id: str | None = None
    app_id: str | None = None
    other_app_id: str | None = None
    min_entitlements: int = 0
    expected_entitlements: int | None = None
    max_retry_wait: float = DEFAULT_MAX_RETRY_WAIT
    credential_age: float = DEFAULT_CREDENTIAL_AGE
    source: Path | None = None

    @property
    def is_mock(self) -> bool:
        return self.kind == "mock"

    @property
    def webhook_audience_base(self) -> str:
        """The base URL the target's listeners know themselves by (the JWT `aud` is this plus the path)."""
        return (self.audience_base_url or self.tenant_base_url).rstrip("/")

    def listeners_by(self, method: ListenerMethod, *, source_allowed: bool = True) -> list[Listener]:
        return [item for item in self.listeners if item.method == method and item.source_allowed == source_allowed]

    def secret_names(self) -> dict[str, str]:
        """Environment variable name -> secret value, for the reproduce lines (secrets never printed inline)."""
        names: dict[str, str] = {}
        if self.token:
            names["ACCESSGOV_TOKEN"] = self.token
        if self.restricted_token:
            names["ACCESSGOV_RESTRICTED_TOKEN"] = self.restricted_token
        if self.oauth_client_secret:
            names["ACCESSGOV_OAUTH_CLIENT_SECRET"] = self.oauth_client_secret
        for caller in self.callers:
            if caller.token not in names.values():
                names[f"ACCESSGOV_TOKEN_{_variable(caller.role)}"] = caller.token
        for listener in self.listeners:
            if listener.secret:
                names[env_name(listener.id)] = listener.secret
        return names


# Every key the kit reads, per section (a listener's: its fields, and the key file); `<key>_env` is accepted for
# the string ones. Anything else is an error that names the near key: a typo must not turn its rules into "not
# applicable" without a word.
KNOWN_KEYS: dict[str, frozenset[str]] = {
    "target": frozenset(
        ["base_url", "kind", "tenant_base_url", "audience_base_url", "max_retry_wait", "credential_age"]
    ),
    "auth": frozenset(["token", "restricted_token", "oauth_client_id", "oauth_client_secret", "callers"]),
    "auth.callers": frozenset(["role", "token", "restart", "permissions"]),
    "listeners": frozenset(item.name for item in dataclasses.fields(Listener)),
    "fixtures": frozenset(
        [
            "open_task_ids",
            "closed_task_id",
            "deleted_task_id",
            "app_id",
            "other_app_id",
            "min_entitlements",
            "expected_entitlements",
        ]
    ),
}
FROM_ENV = frozenset(  # the string keys, read through `_string`
    [
        "base_url",
        "tenant_base_url",
        "audience_base_url",
        "token",
        "restricted_token",
        "oauth_client_id",
        "oauth_client_secret",
        "id",
        "role",
        "secret",
        "private_key",
        "private_key_file",
        "kid",
        "closed_task_id",
        "deleted_task_id",
        "app_id",
        "other_app_id",
    ]
)


def _variable(text: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in text).upper()


def env_name(listener_id: str) -> str:
    """The environment variable the reproduce lines use for a listener's secret."""
    return f"WEBHOOK_SECRET_{_variable(listener_id)}"


def _near(word: str, choices: Iterable[str]) -> str:
    found = difflib.get_close_matches(word, sorted(choices), n=1, cutoff=0.6)
    return f" (did you mean {found[0]!r}?)" if found else ""


def check_keys(data: dict[str, Any]) -> None:
    """Raise on a section or key the kit does not know, suggesting the nearest one it does."""
    for section, value in data.items():
        if section not in KNOWN_KEYS:
            hint = _near(section, KNOWN_KEYS.keys())
            raise ConfigError(f"unknown section [{section}]{hint}; the sections are {', '.join(KNOWN_KEYS)}")
        tables = value if section == "listeners" and isinstance(value, list) else [value]
        for index, table in enumerate(tables):
            where = f"listeners[{index}]" if section == "listeners" else section
            _check_table(section, where, table)
            if section == "auth" and isinstance(table, dict) and isinstance(table.get("callers"), list):
                for number, caller in enumerate(table["callers"]):
                    _check_table("auth.callers", f"auth.callers[{number}]", caller)


def _check_table(section: str, where: str, table: Any) -> None:
    if not isinstance(table, dict):
        return  # the section's own reader says what shape it must have
    known = KNOWN_KEYS[section] | {f"{key}_env" for key in KNOWN_KEYS[section] & FROM_ENV}
    for key in table:
        if key not in known:
            raise ConfigError(f"unknown key {where}.{key}{_near(key, known)}")


def _table(data: dict[str, Any], key: str) -> dict[str, Any]:
    value = data.get(key, {})
    if not isinstance(value, dict):
        raise ConfigError(f"[{key}] must be a table")
    return value


def _string(table: dict[str, Any], key: str, where: str, *, required: bool = False) -> str | None:
    """A string value, or the environment variable named by `<key>_env`."""
    value = table.get(key)
    env_key = table.get(f"{key}_env")
    if value is None and env_key is not None:
        if not isinstance(env_key, str) or not env_key:
            raise ConfigError(f"{where}.{key}_env must name an environment variable")
        value = os.environ.get(env_key)
        if not value:
            raise ConfigError(f"{where}.{key}_env names {env_key}, which is not set")
    if value is None:
        if required:
            raise ConfigError(f"{where}.{key} is required")
        return None
    if not isinstance(value, str) or not value:
        raise ConfigError(f"{where}.{key} must be a non-empty string")
    return value


def _strings(table: dict[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = table.get(key, [])
    if not isinstance(value, list) or not all(isinstance(item, str) and item for item in value):
        raise ConfigError(f"{where}.{key} must be a list of non-empty strings")
    return tuple(value)


def _int(table: dict[str, Any], key: str, where: str, default: int | None) -> int | None:
    value = table.get(key, default)
    if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
        raise ConfigError(f"{where}.{key} must be a non-negative integer")
    return value


def _cidrs(raw: dict[str, Any], where: str) -> tuple[str, ...]:
    cidrs = _strings(raw, "allowed_cidrs", where)
    for cidr in cidrs:
        try:
            ipaddress.ip_network(cidr, strict=False)
        except ValueError:
            raise ConfigError(f"{where}.allowed_cidrs: {cidr!r} is not a CIDR range") from None
    return cidrs


PERMISSIONS = ("read", "edit", "delete")


def _callers(auth: dict[str, Any]) -> tuple[Caller, ...]:
    raw = auth.get("callers", [])
    if not isinstance(raw, list):
        raise ConfigError("auth.callers must be an array of tables ([[auth.callers]])")
    callers = []
    for index, entry in enumerate(raw):
        where = f"auth.callers[{index}]"
        if not isinstance(entry, dict):
            raise ConfigError(f"{where} must be a table ([[auth.callers]])")
        role = _string(entry, "role", where, required=True) or ""
        token = _string(entry, "token", where, required=True) or ""
        restart = entry.get("restart")
        if not isinstance(restart, bool):
            raise ConfigError(f"{where}.restart must be true or false (whether the role may restart a task)")
        permissions = entry.get("permissions", {})
        if not isinstance(permissions, dict) or any(
            key not in PERMISSIONS or not isinstance(value, bool) for key, value in permissions.items()
        ):
            raise ConfigError(f"{where}.permissions maps {', '.join(PERMISSIONS)} to true or false")
        callers.append(Caller(role, token, restart, tuple(sorted(permissions.items()))))
    if len({caller.role for caller in callers}) != len(callers):
        raise ConfigError("auth.callers: each role may appear once")
    return tuple(callers)


def _listener(raw: Any, index: int, base_dir: Path) -> Listener:
    where = f"listeners[{index}]"
    if not isinstance(raw, dict):
        raise ConfigError(f"{where} must be a table ([[listeners]])")
    listener_id = _string(raw, "id", where, required=True) or ""
    method = raw.get("method")
    if method not in ("hmac", "jwt"):
        raise ConfigError(f"{where}.method must be 'hmac' or 'jwt'")
    for flag in ("source_allowed", "cidr_restricted", "automation_published", "trigger_enabled"):
        if not isinstance(raw.get(flag, False), bool):
            raise ConfigError(f"{where}.{flag} must be true or false")
    common = {
        "id": listener_id,
        "method": method,
        "source_allowed": raw.get("source_allowed", True),
        "cidr_restricted": raw.get("cidr_restricted", not raw.get("source_allowed", True)),
        "automation_published": raw.get("automation_published", True),
        "trigger_enabled": raw.get("trigger_enabled", True),
        "allowed_cidrs": _cidrs(raw, where),
    }
    if method == "hmac":
        return Listener(**common, secret=_string(raw, "secret", where, required=True))
    key_text = _string(raw, "private_key", where)
    key_file = _string(raw, "private_key_file", where)
    if (key_text is None) == (key_file is None):
        raise ConfigError(f"{where}: give exactly one of private_key (PEM) and private_key_file")
    if key_file is not None:
        path = (base_dir / key_file).resolve()
        try:
            pem = path.read_bytes()
        except OSError as error:
            raise ConfigError(f"{where}.private_key_file: cannot read {path}: {error.strerror}") from error
    else:
        pem = (key_text or "").encode()
    file = path if key_file is not None else None
    return Listener(**common, private_key=pem, private_key_file=file, kid=_string(raw, "kid", where, required=True))


def parse(data: dict[str, Any], *, base_url: str | None = None, base_dir: Path | None = None) -> Config:
    """A `Config` from the parsed TOML document; `base_url` overrides `[target].base_url`."""
    base_dir = base_dir or Path.cwd()
    check_keys(data)
    target = _table(data, "target")
    auth = _table(data, "auth")
    fixtures = _table(data, "fixtures")
    url = base_url or _string(target, "base_url", "target")
    if not url:
        raise ConfigError("no base URL: pass --base-url or set [target].base_url")
    if not url.startswith(("http://", "https://")):
        raise ConfigError(f"the base URL must start with http:// or https:// (got {url!r})")
    kind = target.get("kind", "implementation")
    if kind not in ("implementation", "mock"):
        raise ConfigError("target.kind must be 'implementation' or 'mock'")
    raw_listeners = data.get("listeners", [])
    if not isinstance(raw_listeners, list):
        raise ConfigError("listeners must be an array of tables ([[listeners]])")
    listeners = tuple(_listener(raw, index, base_dir) for index, raw in enumerate(raw_listeners))
    ids = [item.id for item in listeners]
    if len(set(ids)) != len(ids):
        raise ConfigError("listeners: each id may appear once")
    client_id = _string(auth, "oauth_client_id", "auth")
    client_secret = _string(auth, "oauth_client_secret", "auth")
    if (client_id is None) != (client_secret is None):
        raise ConfigError("auth: give both oauth_client_id and oauth_client_secret, or neither")
    token = _string(auth, "token", "auth")
    if token is None and client_id is None:
        raise ConfigError("auth: give token, or oauth_client_id and oauth_client_secret")
    min_entitlements = _int(fixtures, "min_entitlements", "fixtures", 0) or 0
    max_retry_wait = target.get("max_retry_wait", DEFAULT_MAX_RETRY_WAIT)
    if not isinstance(max_retry_wait, int | float) or isinstance(max_retry_wait, bool) or max_retry_wait < 0:
        raise ConfigError("target.max_retry_wait must be a non-negative number of seconds")
    credential_age = target.get("credential_age", DEFAULT_CREDENTIAL_AGE)
    if not isinstance(credential_age, int | float) or isinstance(credential_age, bool) or credential_age <= 0:
        raise ConfigError("target.credential_age must be a positive number of seconds")
    return Config(
        base_url=url.rstrip("/"),
        kind=kind,
        tenant_base_url=(_string(target, "tenant_base_url", "target") or Config.tenant_base_url).rstrip("/"),
        audience_base_url=_string(target, "audience_base_url", "target"),
        token=token,
        oauth_client_id=client_id,
        oauth_client_secret=client_secret,
        restricted_token=_string(auth, "restricted_token", "auth"),
        callers=_callers(auth),
        listeners=listeners,
        open_task_ids=_strings(fixtures, "open_task_ids", "fixtures"),
        closed_task_id=_string(fixtures, "closed_task_id", "fixtures"),
        deleted_task_id=_string(fixtures, "deleted_task_id", "fixtures"),
        app_id=_string(fixtures, "app_id", "fixtures"),
        other_app_id=_string(fixtures, "other_app_id", "fixtures"),
        min_entitlements=min_entitlements,
        expected_entitlements=_int(fixtures, "expected_entitlements", "fixtures", None),
        max_retry_wait=float(max_retry_wait),
        credential_age=float(credential_age),
    )


def load(path: str | Path, *, base_url: str | None = None) -> Config:
    """Read and validate the TOML file at `path`."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ConfigError(f"cannot read {path}: {error.strerror}") from error
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path} is not valid TOML: {error}") from error
    config = parse(data, base_url=base_url, base_dir=path.resolve().parent)
    return dataclasses.replace(config, source=path)

"""A failing request as a shell snippet that runs when pasted: secrets as environment variables (with the
`export` lines to set them), a webhook's clock, event id and HMAC signature computed afresh."""

from __future__ import annotations

import re
import shlex

from .config import Config
from .context import Exchange

UUID4 = "$(python3 -c 'import uuid; print(uuid.uuid4())')"


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


def reproduce(exchange: Exchange, config: Config) -> str:
    """Shell lines that send `exchange`'s request again."""
    secrets = _secret_variables(config)
    used: dict[str, str] = {}

    def hide(text: str) -> str:
        for name, value in secrets:
            if value and value in text:
                text = text.replace(value, f"${{{name}}}")
                used[name] = value
        return text

    lines: list[str] = []
    headers = dict(exchange.request_headers)
    recipe = exchange.webhook
    body = exchange.request_body
    if recipe is not None:
        if recipe.timestamp_offset is not None:
            lines.append(
                f"TS=$(( $(date +%s) {'+' if recipe.timestamp_offset >= 0 else '-'} {abs(recipe.timestamp_offset)} ))"
            )
            headers["webhook-timestamp"] = "${TS}"
        if recipe.fresh_event_id:
            lines.append(f"EVENT_ID={UUID4}")
            headers["webhook-event-id"] = "${EVENT_ID}"
    if body:
        lines.append(f"printf '%s' {shlex.quote(body.decode('utf-8', 'replace'))} > body.json")
    if recipe is not None and recipe.signed_honestly and recipe.secret_env:
        used[recipe.secret_env] = dict(secrets).get(recipe.secret_env, "")
        timestamp = headers.get("webhook-timestamp", "")
        event_id = headers.get("webhook-event-id", "")
        lines.append(
            f'SIG=$( (printf \'%s.%s.\' "{timestamp}" "{event_id}"; cat body.json) | openssl dgst -sha256 -binary '
            f"-hmac \"${{{recipe.secret_env}}}\" | base64 | tr '+/' '-_' | tr -d '=\\n')"
        )
        headers["webhook-signature"] = "${SIG}"
    parts = ["curl", "-sS", "-i", "-X", exchange.method, _quote(hide(exchange.url))]
    for name, value in headers.items():
        parts += ["-H", _quote(f"{name}: {hide(value)}")]
    if body:
        parts += ["--data-binary", "@body.json"]
    exports = [f"export {name}={shlex.quote(value)}" for name, value in sorted(used.items())]
    return "\n".join([*exports, *lines, " ".join(parts)])


def _quote(text: str) -> str:
    """Double quotes where the text uses a variable (so the shell expands it), single quotes otherwise."""
    if "${" in text or "$(" in text:
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("`", "\\`") + '"'
    return shlex.quote(text)

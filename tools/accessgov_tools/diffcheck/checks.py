"""The registry of checks: every id the comparison can report, with its default severity.

Ids follow oasdiff's (https://github.com/oasdiff/oasdiff, `checker/rules.go`) where the check is the same:
`<direction>-<location>-<keyword>-<change>`, location `property` (a request or response body, any depth),
`parameter` or `header`. Checks oasdiff has no id for (uniqueItems, multipleOf, maxProperties, minProperties,
additionalProperties, format, open enums) use the same naming. Defaults follow the direction a message travels:
a request breaks when it accepts less, a response when it may send what a client did not expect.
`severities.yaml` next to this file overrides defaults for this contract.
"""

from __future__ import annotations

from accessgov_tools.diffcheck.model import REQUEST, RESPONSE, Check, Severity

B, W, N = Severity.BREAKING, Severity.WARNING, Severity.INFO  # N: info (notice)
CHECKS: dict[str, Check] = {}

# The locations a schema is met in, by direction; their prefix starts every schema check id.
SCHEMA_PREFIXES: dict[tuple[str, str], str] = {
    (REQUEST, "property"): "request-property",
    (REQUEST, "parameter"): "request-parameter",
    (RESPONSE, "property"): "response-property",
    (RESPONSE, "header"): "response-header",
}

# keyword -> (id fragment, bound kind): an upper bound narrows when it decreases, a lower one when it increases.
BOUNDS: dict[str, tuple[str, str]] = {
    "maxLength": ("max-length", "upper"),
    "minLength": ("min-length", "lower"),
    "maximum": ("max", "upper"),
    "minimum": ("min", "lower"),
    "exclusiveMaximum": ("exclusive-max", "upper"),
    "exclusiveMinimum": ("exclusive-min", "lower"),
    "maxItems": ("max-items", "upper"),
    "minItems": ("min-items", "lower"),
    "maxProperties": ("max-properties", "upper"),
    "minProperties": ("min-properties", "lower"),
    "maxContains": ("max-contains", "upper"),
    "minContains": ("min-contains", "lower"),
}

# JSON Schema 2020-12 keywords that hold a subschema (or a value) whose presence narrows what is valid:
# keyword -> id fragment. Adding one narrows (a request breaks), removing one widens (a response breaks).
# `prefixItems` goes the other way (as oasdiff has it): removing it hands its positions to `items`, which narrows.
PRESENCE: dict[str, str] = {
    "const": "const",
    "if": "if",
    "then": "then",
    "else": "else",
    "contains": "contains",
    "propertyNames": "property-names",
    "unevaluatedProperties": "unevaluated-properties",
    "unevaluatedItems": "unevaluated-items",
    "contentSchema": "content-schema",
    "not": "not",
}
# Keywords that map a name to a subschema or list: one entry added narrows, removed widens, as above.
ENTRIES: dict[str, str] = {
    "dependentRequired": "dependent-required",
    "dependentSchemas": "dependent-schema",
    "patternProperties": "pattern-property",
}


def _add(check_id: str, severity: Severity, summary: str) -> None:
    if check_id in CHECKS:
        raise ValueError(f"duplicate check id {check_id}")
    CHECKS[check_id] = Check(check_id, severity, summary)


def _by_direction(direction: str, request: Severity, response: Severity) -> Severity:
    return request if direction == REQUEST else response


def _schema_family(direction: str, prefix: str) -> None:
    """Checks on one schema met in `direction` at one location (its keywords, not its properties)."""
    d = direction
    for keyword, (frag, kind) in BOUNDS.items():
        narrowing = "decreased" if kind == "upper" else "increased"
        widening = "increased" if kind == "upper" else "decreased"
        _add(f"{prefix}-{frag}-{narrowing}", _by_direction(d, B, N), f"{keyword} narrowed")
        _add(f"{prefix}-{frag}-{widening}", _by_direction(d, N, B), f"{keyword} widened")
        _add(f"{prefix}-{frag}-set", _by_direction(d, W, N), f"{keyword} set where there was none")
        _add(f"{prefix}-{frag}-unset", _by_direction(d, N, B), f"{keyword} removed")
    _add(f"{prefix}-multiple-of-changed", B, "multipleOf changed")
    _add(f"{prefix}-multiple-of-set", _by_direction(d, W, N), "multipleOf set")
    _add(f"{prefix}-multiple-of-unset", _by_direction(d, N, B), "multipleOf removed")
    _add(f"{prefix}-unique-items-set", _by_direction(d, W, N), "uniqueItems set")
    _add(f"{prefix}-unique-items-unset", _by_direction(d, N, B), "uniqueItems removed")
    _add(f"{prefix}-pattern-added", _by_direction(d, B, N), "pattern added")
    _add(f"{prefix}-pattern-removed", _by_direction(d, N, W), "pattern removed")
    _add(f"{prefix}-pattern-changed", _by_direction(d, W, W), "pattern changed")
    _add(f"{prefix}-type-changed", B, "type changed to an unrelated one")
    _add(f"{prefix}-type-generalized", _by_direction(d, N, B), "type widened")
    _add(f"{prefix}-type-specialized", _by_direction(d, B, N), "type narrowed")
    if prefix.endswith("-property"):  # only bodies have a media type
        _add(f"{prefix}-type-compatible", N, "type changed, still readable in a loosely typed (non-JSON) body")
    _add(f"{prefix}-format-changed", B, "format changed")
    _add(f"{prefix}-format-added", _by_direction(d, B, N), "format added")
    _add(f"{prefix}-format-removed", _by_direction(d, N, W), "format removed")
    for change in ("added", "removed", "changed"):
        _add(f"{prefix}-format-{change}-implied", N, f"format {change}, excluding no value the other constraints allow")
    _add(f"{prefix}-became-nullable", _by_direction(d, N, B), "null now allowed")
    _add(f"{prefix}-became-not-nullable", _by_direction(d, B, N), "null no longer allowed")
    _add(f"{prefix}-became-enum", _by_direction(d, B, N), "values restricted to an enumeration")
    _add(f"{prefix}-enum-removed", _by_direction(d, N, W), "enumeration lifted")
    _add(f"{prefix}-enum-value-added", _by_direction(d, N, W), "value added to a closed enumeration")
    _add(f"{prefix}-open-enum-value-added", N, "value added to an open enumeration (x-open-enum)")
    _add(f"{prefix}-enum-value-removed", _by_direction(d, B, N), "enumeration value removed")
    _add(f"{prefix}-enum-became-open", _by_direction(d, N, W), "closed enumeration made open")
    _add(f"{prefix}-enum-became-closed", _by_direction(d, B, N), "open enumeration made closed")
    default_severity = B if prefix == "request-parameter" else _by_direction(d, W, N)
    _add(f"{prefix}-default-value-added", default_severity, "default added")
    _add(f"{prefix}-default-value-removed", default_severity, "default removed")
    _add(f"{prefix}-default-value-changed", default_severity, "default changed")
    _add(f"{prefix}-any-of-added", _by_direction(d, N, W), "anyOf member added")
    _add(f"{prefix}-any-of-removed", _by_direction(d, B, N), "anyOf member removed")
    _add(f"{prefix}-one-of-added", _by_direction(d, N, B), "oneOf member added")
    _add(f"{prefix}-one-of-removed", _by_direction(d, B, N), "oneOf member removed")
    _add(f"{prefix}-additional-properties-narrowed", _by_direction(d, B, N), "additionalProperties narrowed")
    _add(f"{prefix}-additional-properties-widened", _by_direction(d, N, W), "additionalProperties widened")
    _add(f"{prefix}-deprecated", N, "deprecated")
    _add(f"{prefix}-reactivated", N, "no longer deprecated")
    for keyword, frag in PRESENCE.items():
        _add(f"{prefix}-{frag}-added", _by_direction(d, B, N), f"{keyword} added")
        _add(f"{prefix}-{frag}-removed", _by_direction(d, N, B), f"{keyword} removed")
    _add(f"{prefix}-prefix-items-added", _by_direction(d, N, B), "prefixItems added")
    _add(f"{prefix}-prefix-items-removed", _by_direction(d, B, N), "prefixItems removed (`items` now governs them)")
    _add(f"{prefix}-const-changed", B, "const changed")
    for keyword, frag in ENTRIES.items():
        _add(f"{prefix}-{frag}-added", _by_direction(d, B, N), f"{keyword} entry added")
        _add(f"{prefix}-{frag}-removed", _by_direction(d, N, B), f"{keyword} entry removed")
    _add(f"{prefix}-dependent-required-changed", B, "dependentRequired entry changed")
    _add(f"{prefix}-content-media-type-changed", B, "contentMediaType changed")
    _add(f"{prefix}-content-encoding-changed", B, "contentEncoding changed")
    _add(f"{prefix}-all-of-added", _by_direction(d, B, N), "allOf member added that constrains more")
    _add(f"{prefix}-all-of-removed", _by_direction(d, W, N), "allOf member removed that constrained more")
    _add(f"{prefix}-all-of-added-annotation-only", N, "allOf member added that constrains nothing new")
    _add(f"{prefix}-all-of-removed-annotation-only", N, "allOf member removed that constrained nothing else")
    _add(f"{prefix}-x-extensible-enum-value-removed", _by_direction(d, B, N), "x-extensible-enum value removed")
    _add(f"{prefix}-x-extensible-enum-value-added", N, "x-extensible-enum value added")


for (_direction, _location), _prefix in SCHEMA_PREFIXES.items():
    _schema_family(_direction, _prefix)

# Deprecation of properties, with oasdiff's sunset rules (x-sunset, a minimum grace period from the config).
for _direction in (REQUEST, RESPONSE):
    _add(f"{_direction}-property-deprecated-with-sunset", N, "property deprecated with an x-sunset date")
    _add(f"{_direction}-property-deprecated-sunset-missing", B, "property deprecated without the x-sunset required")
    _add(f"{_direction}-property-deprecated-sunset-invalid", B, "property deprecated with an unreadable x-sunset")
    _add(f"{_direction}-property-sunset-date-too-small", B, "property's x-sunset sooner than the grace period")
    _add(f"{_direction}-property-stability-decreased", B, "property's x-stability-level lowered")
    _add(f"{_direction}-property-stability-increased", N, "property's x-stability-level raised")

# Properties of objects, by direction.
_add("new-required-request-property", B, "new required request property")
_add("new-optional-request-property", N, "new optional request property")
_add("request-property-removed", W, "request property removed (the server ignores it from now on)")
_add("request-property-became-required", B, "request property now required")
_add("request-property-became-optional", N, "request property now optional")
_add("request-property-undeclared-became-required", B, "request property without a schema here now required")
_add("request-property-became-read-only", W, "request property now readOnly (clients can no longer set it)")
_add("request-property-became-not-read-only", N, "request property no longer readOnly")
_add("response-required-property-removed", B, "required response property removed")
_add("response-optional-property-removed", W, "optional response property removed")
_add("response-required-property-added", N, "required response property added")
_add("response-optional-property-added", N, "optional response property added")
_add("response-property-became-optional", B, "response property no longer always sent")
_add("response-property-became-required", N, "response property now always sent")
_add("response-property-became-write-only", B, "response property now writeOnly (no longer sent)")
_add("response-property-became-not-write-only", N, "response property no longer writeOnly")
_add("response-required-property-became-not-write-only", W, "required response property no longer writeOnly (now sent)")

# Operations and paths.
_add("endpoint-added", N, "operation added")
_add("api-removed-without-deprecation", B, "operation removed without being deprecated first")
_add("api-removed-with-deprecation", W, "deprecated operation removed")
_add("endpoint-deprecated", N, "operation deprecated")
_add("endpoint-reactivated", N, "operation no longer deprecated")
_add("api-operation-id-removed", N, "operationId changed or removed")
_add("api-operation-id-added", N, "operationId added")
_add("api-tag-removed", N, "tag removed from an operation")
_add("api-tag-added", N, "tag added to an operation")

# Deprecation and stability of operations (oasdiff's sunset and x-stability-level rules).
_add("endpoint-deprecated-with-sunset", N, "operation deprecated with an x-sunset date")
_add("api-deprecated-sunset-missing", B, "operation deprecated without the x-sunset the grace period requires")
_add("api-deprecated-sunset-parse", B, "operation deprecated with an unreadable x-sunset")
_add("api-sunset-date-too-small", B, "operation's x-sunset sooner than the grace period")
_add("api-sunset-deleted", B, "x-sunset removed from a still deprecated operation")
_add("api-sunset-date-changed-too-small", B, "x-sunset of a deprecated operation moved earlier than allowed")
_add("api-path-sunset-parse", B, "x-sunset of a deprecated operation changed to or from an unreadable value")
_add("api-removed-before-sunset", B, "deprecated operation removed before its x-sunset date")
_add("api-stability-decreased", B, "operation's x-stability-level lowered")
_add("api-stability-increased", N, "operation's x-stability-level raised")
_add("api-invalid-stability-level", B, "x-stability-level is not draft, alpha, beta or stable")
_add("webhook-added", N, "webhook operation added")
_add("webhook-removed", B, "webhook operation removed (subscribers relying on it get nothing)")

# Parameters.
_add("request-parameter-deprecated-sunset-missing", B, "parameter deprecated without the x-sunset required")
_add("request-parameter-sunset-parse", B, "parameter's x-sunset unreadable")
_add("request-parameter-sunset-date-too-small", B, "parameter's x-sunset sooner than the grace period")
_add("request-parameter-sunset-deleted", B, "x-sunset removed from a still deprecated parameter")
_add("request-parameter-sunset-date-changed-too-small", B, "parameter's x-sunset moved earlier than allowed")
_add("request-parameter-removed-before-sunset", B, "deprecated parameter removed before its x-sunset date")
_add("request-parameter-removed-with-deprecation", N, "deprecated parameter removed after its sunset")
_add("new-required-request-parameter", B, "new required parameter")
_add("new-optional-request-parameter", N, "new optional parameter")
_add("request-parameter-removed", W, "parameter removed (the server ignores it from now on)")
_add("request-parameter-became-required", B, "parameter now required")
_add("request-parameter-became-optional", N, "parameter now optional")

# Request bodies.
_add("request-body-added-required", B, "required request body added")
_add("request-body-added-optional", N, "optional request body added")
_add("request-body-removed", B, "request body removed")
_add("request-body-became-required", B, "request body now required")
_add("request-body-became-optional", N, "request body now optional")
_add("request-body-media-type-added", N, "request media type added")
_add("request-body-media-type-removed", B, "request media type removed")

# Responses.
_add("response-success-status-removed", B, "2xx/3xx response status removed")
_add("response-non-success-status-removed", N, "4xx/5xx/default response status removed")
_add("response-success-status-added", N, "2xx/3xx response status added")
_add("response-non-success-status-added", N, "4xx/5xx/default response status added")
_add("response-media-type-removed", B, "response media type removed")
_add("response-media-type-added", N, "response media type added")
_add("response-media-type-name-changed", N, "response media type parameters changed")
_add("response-media-type-name-specialized", N, "response media type now a suffix type of it (+json)")
_add("response-media-type-name-generalized", B, "response media type now the general type of its suffix")
_add("required-response-header-removed", B, "required response header removed")
_add("optional-response-header-removed", W, "optional response header removed")
_add("response-header-added", N, "response header added")
_add("response-header-became-optional", B, "response header no longer always sent")
_add("response-header-became-required", N, "response header now always sent")

# Security.
for _scope in ("api", "api-global"):
    _add(f"{_scope}-security-removed", B, "security requirement alternative removed (clients using it fail)")
    _add(f"{_scope}-security-added", N, "security requirement alternative added")
    _add(f"{_scope}-security-scope-added", B, "scope added to a security requirement")
    _add(f"{_scope}-security-scope-removed", N, "scope removed from a security requirement")
_add("api-security-component-removed", B, "security scheme removed")
_add("api-security-component-added", N, "security scheme added")
_add("api-security-component-type-changed", B, "security scheme type, HTTP scheme or API key location changed")
_add("api-security-component-oauth-token-url-changed", W, "OAuth2 token URL changed")
_add("api-security-component-oauth-scope-added", N, "OAuth2 scope added")
_add("api-security-component-oauth-scope-removed", B, "OAuth2 scope removed")

# The document.
_add("api-version-not-bumped", W, "breaking change without a new info.version")


def schema_prefix(direction: str, location: str) -> str:
    return SCHEMA_PREFIXES[(direction, location)]

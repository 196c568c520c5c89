"""What the walk reports: typed differences, each a thing that changed, with where it is on both sides.

Every difference says what changed (its class and fields), where (`head`: the pointer in the head document a
finding about it points at, the nearest node that is there when the thing went; `base`: the pointer in the base,
None for a thing that is new) and, for what travels in a message, in which direction (`request`/`response`). A
schema difference also carries `where`: how the schema is met (direction, kind of place, the path a message
names). Which check a difference is, how severe, and how it is worded is the rules' business
(`diffcheck/rules/`); the walk only finds and pairs.

Differences are compared by identity: the walk makes each once (a schema pair reached again reuses the
differences it found, `memo.PairMemo`), and `reaches` lists the operations whose walk reached it, in the order
they were walked (`(walk step, position, operation)`: a security scheme's step reaches all its users at once).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Final

from accessgov_tools.diffcheck.model import Pointer

ABSENT: Final = object()  # a keyword not written (for most keywords a written `null` is not written either)


@dataclass(frozen=True)
class Where:
    """How a schema is met: the direction it travels, the kind of place (property/parameter/header), a label."""

    direction: str
    location: str
    path: str
    context: str = ""  # what the path is inside, e.g. "query parameter "
    loose: bool = False  # in a body whose media type is not JSON: any value reads as a string (XML, text)

    def to(self, suffix: str) -> Where:
        return replace(self, path=f"{self.path}{suffix}")

    @property
    def place(self) -> tuple[str, str]:
        """(direction, location): the checks of a schema keyword differ by it."""
        return self.direction, self.location


@dataclass(eq=False, kw_only=True)
class Difference:
    """One thing that differs between the base and the head."""

    head: Pointer
    base: Pointer | None = None
    direction: str | None = None
    reaches: list[tuple[int, int, str]] = field(default_factory=list, init=False, repr=False)


# --- the document's security schemes ----------------------------------------------------------------------------


@dataclass(eq=False, kw_only=True)
class SchemeAdded(Difference):
    name: str


@dataclass(eq=False, kw_only=True)
class SchemeRemoved(Difference):
    name: str


@dataclass(eq=False, kw_only=True)
class SchemeChanged(Difference):
    """One of a scheme's `type`, `scheme`, `in`, `name`, `bearerFormat` (`field`) written otherwise."""

    name: str
    field: str
    before: Any
    after: Any


@dataclass(eq=False, kw_only=True)
class FlowChanged(Difference):
    """An OAuth2 flow added to a scheme or removed from it."""

    name: str
    flow: str
    added: bool


@dataclass(eq=False, kw_only=True)
class FlowUrlChanged(Difference):
    name: str
    flow: str
    url: str  # tokenUrl or authorizationUrl
    before: Any
    after: Any


@dataclass(eq=False, kw_only=True)
class FlowScopeChanged(Difference):
    """A scope added to an OAuth2 flow's `scopes` or removed from them."""

    name: str
    flow: str
    scope: str
    added: bool


# --- operations -------------------------------------------------------------------------------------------------


@dataclass(eq=False, kw_only=True)
class OperationAdded(Difference):
    label: str  # `METHOD /path (operationId)`
    webhook: bool


@dataclass(eq=False, kw_only=True)
class OperationRemoved(Difference):
    label: str
    webhook: bool
    operation: dict[Any, Any]  # as it was in the base


@dataclass(eq=False, kw_only=True)
class OperationIdChanged(Difference):
    before: Any  # None when there was none
    after: Any


@dataclass(eq=False, kw_only=True)
class TagChanged(Difference):
    tag: str
    added: bool


@dataclass(eq=False, kw_only=True)
class DeprecationChanged(Difference):
    """`deprecated` or `x-sunset` of an operation, a parameter or a property (`thing`) on both sides."""

    thing: str  # "operation", "parameter" or "property"
    label: str  # how a message names it
    before: dict[Any, Any]  # the node (or the schema's merged keywords) in the base
    after: dict[Any, Any]
    level: str | None  # the stability of the operation it was met in (its grace period depends on it)


@dataclass(eq=False, kw_only=True)
class StabilityChanged(Difference):
    """`x-stability-level` of an operation or a property written otherwise, or unreadable on a side."""

    thing: str  # "operation" or "property"
    label: str
    before: dict[Any, Any]
    after: dict[Any, Any]


@dataclass(eq=False, kw_only=True)
class RequirementChanged(Difference):
    """A security requirement alternative (`names`: its schemes; empty: anonymous) accepted or no longer."""

    declared: bool  # written on the operation (True) or inherited from the document's `security`
    names: frozenset[str]
    added: bool


@dataclass(eq=False, kw_only=True)
class RequirementScopes(Difference):
    """The scopes one scheme of a requirement alternative present on both sides asks for."""

    declared: bool
    scheme: str
    added: frozenset[str]
    removed: frozenset[str]


# --- parameters, bodies, responses, headers ---------------------------------------------------------------------


@dataclass(eq=False, kw_only=True)
class ParameterAdded(Difference):
    label: str  # `query parameter `limit``
    required: bool


@dataclass(eq=False, kw_only=True)
class ParameterRemoved(Difference):
    label: str
    parameter: dict[Any, Any]  # as it was in the base


@dataclass(eq=False, kw_only=True)
class ParameterRequiredChanged(Difference):
    label: str
    required: bool  # in the head


@dataclass(eq=False, kw_only=True)
class RequestBodyAdded(Difference):
    required: bool


@dataclass(eq=False, kw_only=True)
class RequestBodyRemoved(Difference):
    pass


@dataclass(eq=False, kw_only=True)
class RequestBodyRequiredChanged(Difference):
    required: bool  # in the head


@dataclass(eq=False, kw_only=True)
class MediaTypeChanged(Difference):
    """A media type of a request body (`status` None) or of a response added or removed."""

    status: str | None
    media: str
    added: bool


@dataclass(eq=False, kw_only=True)
class MediaTypeRenamed(Difference):
    """A response's only removed media type paired with its only added one, `relation` naming how they relate."""

    status: str
    before: str
    after: str
    relation: str  # "changed" (parameters only), "specialized" (a +suffix type of it), "generalized"


@dataclass(eq=False, kw_only=True)
class ResponseChanged(Difference):
    """A response status added or removed."""

    status: str
    added: bool


@dataclass(eq=False, kw_only=True)
class HeaderAdded(Difference):
    label: str  # `response 200 header `X-Rate``


@dataclass(eq=False, kw_only=True)
class HeaderRemoved(Difference):
    label: str
    required: bool  # in the base


@dataclass(eq=False, kw_only=True)
class HeaderRequiredChanged(Difference):
    label: str
    required: bool  # in the head


@dataclass(eq=False, kw_only=True)
class HeaderDeprecatedChanged(Difference):
    label: str
    deprecated: bool  # in the head


@dataclass(eq=False, kw_only=True)
class VersionCompared(Difference):
    """`info.version` of both sides: the last difference the walk reports (its rule counts what breaks)."""

    before: Any
    after: Any


# --- schemas ----------------------------------------------------------------------------------------------------


@dataclass(eq=False, kw_only=True)
class SchemaDifference(Difference):
    """A difference inside a schema met `where`."""

    where: Where


@dataclass(eq=False, kw_only=True)
class NullableChanged(SchemaDifference):
    nullable: bool  # in the head


@dataclass(eq=False, kw_only=True)
class TypeChanged(SchemaDifference):
    before: frozenset[str] | None  # None: any type
    after: frozenset[str] | None


@dataclass(eq=False, kw_only=True)
class KeywordChanged(SchemaDifference):
    """A keyword's value on both sides, ABSENT where it is not written (or means nothing: a bound that is not a
    number). Bounds, `multipleOf`, `uniqueItems`, `pattern`, `default`, `deprecated` (of a parameter's or a
    header's schema), `const` and the 2020-12 keywords written on one side only, `contentMediaType`,
    `contentEncoding`."""

    keyword: str
    before: Any
    after: Any


@dataclass(eq=False, kw_only=True)
class FormatChanged(SchemaDifference):
    before: Any  # ABSENT where there is none
    after: Any
    implied: bool  # neither format excludes a value the schema's other constraints allow


@dataclass(eq=False, kw_only=True)
class EnumChanged(SchemaDifference):
    """An enumeration set where there was none (`before` None) or lifted (`after` None)."""

    before: list[Any] | None
    after: list[Any] | None


@dataclass(eq=False, kw_only=True)
class EnumValueChanged(SchemaDifference):
    """A value the enumeration lists on one side only, and no other part of that side accepts."""

    value: Any
    added: bool
    open: bool  # the head's enumeration is open (`x-open-enum`: any other string is accepted too)


@dataclass(eq=False, kw_only=True)
class EnumOpenChanged(SchemaDifference):
    open: bool  # in the head


@dataclass(eq=False, kw_only=True)
class ExtensibleValueChanged(SchemaDifference):
    """A value of `x-extensible-enum` on one side only."""

    value: Any
    added: bool


@dataclass(eq=False, kw_only=True)
class MemberChanged(SchemaDifference):
    """An `anyOf`/`oneOf` member that no member of the other side was paired with."""

    keyword: str
    key: str  # what the member is: `$ref X`, `title T`, `type "string"`, `const 1`, `content <hash>`
    added: bool


@dataclass(eq=False, kw_only=True)
class AllOfMemberChanged(SchemaDifference):
    key: str
    added: bool
    constrains: bool  # it constrains something the other side's merged schema does not already


@dataclass(eq=False, kw_only=True)
class AdditionalPropertiesChanged(SchemaDifference):
    narrowed: bool  # False: widened


@dataclass(eq=False, kw_only=True)
class PrefixItemChanged(SchemaDifference):
    index: int
    added: bool


@dataclass(eq=False, kw_only=True)
class EntryChanged(SchemaDifference):
    """An entry of `dependentRequired`, `dependentSchemas` or `patternProperties` added or removed, or (for
    `dependentRequired`, `added` None) the names it requires changed."""

    keyword: str
    name: Any
    added: bool | None
    before: Any = None
    after: Any = None


@dataclass(eq=False, kw_only=True)
class PropertyChanged(SchemaDifference):
    """A property (`where`: the property's) added or removed; `required` on the side it is on."""

    added: bool
    required: bool


@dataclass(eq=False, kw_only=True)
class PropertyHiddenChanged(SchemaDifference):
    """A property that became (or stopped being) readOnly in a request, writeOnly in a response."""

    hidden: bool  # in the head
    required: bool  # required in the head


@dataclass(eq=False, kw_only=True)
class PropertyRequiredChanged(SchemaDifference):
    required: bool  # in the head


@dataclass(eq=False, kw_only=True)
class UndeclaredRequired(SchemaDifference):
    """A name now required in a request schema that declares no property of that name."""

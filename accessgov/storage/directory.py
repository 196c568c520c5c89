"""Directory documents the tasks point at (users, apps, app users, policies), stored whole as JSON and
looked up by id; plus the entitlement lookups the task expansion needs."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, cast

from sqlalchemy.orm import Session

from accessgov.storage.entitlements import app_exists, get_entitlement
from accessgov.storage.schema import App, AppUser, DirectoryObject, Policy, User

__all__ = [
    "KINDS",
    "app_exists",
    "get_document",
    "get_entitlement",
    "put_document",
    "put_documents",
    "task_lookup",
]

Document = User | App | AppUser | Policy
# Kind names as the task expansion uses them.
KINDS: dict[str, type[User | App | AppUser | Policy]] = {
    "user": User,
    "app": App,
    "app_user": AppUser,
    "policy": Policy,
}


def _row(session: Session, kind: str, object_id: str) -> Document | DirectoryObject | None:
    """The row of kind `kind` with id `object_id`: in its own table, or among `directory_objects`."""
    model = KINDS.get(kind)
    if model is None:
        return session.get(DirectoryObject, (kind, object_id))
    return cast(Document | None, session.get(model, object_id))  # mypy joins `type[A | B]` to their base


def get_document(session: Session, kind: str, object_id: str) -> dict[str, Any] | None:
    """The document of kind `kind` with id `object_id`; None when absent."""
    row = _row(session, kind, object_id)
    return None if row is None else row.document


def task_lookup(session: Session) -> Callable[[str, str, Mapping[str, Any]], Mapping[str, Any] | None]:
    """`lookup(kind, object_id, task)` for `domain.expand`: an app entitlement under the app of the task's type,
    any other kind by id."""

    def lookup(kind: str, object_id: str, task: Mapping[str, Any]) -> Mapping[str, Any] | None:
        if kind == "app_entitlement":
            member: Mapping[str, Any] = next(iter((task.get("type") or {}).values()), {})
            return get_entitlement(session, member.get("appId", ""), object_id)
        return get_document(session, kind, object_id)

    return lookup


def put_document(session: Session, kind: str, document: Mapping[str, Any]) -> None:
    """Insert or replace a document (keyed by its `id`). The caller commits."""
    model = KINDS.get(kind)
    object_id = document.get("id")
    if not isinstance(object_id, str) or not object_id:
        raise ValueError(f"{kind} document without a string id")
    row = _row(session, kind, object_id)
    if row is None:
        session.add(
            DirectoryObject(kind=kind, id=object_id, document=dict(document))
            if model is None
            else model(id=object_id, document=dict(document))
        )
    else:
        row.document = dict(document)  # a new object, so the JSON column is seen as changed
    session.flush()


def put_documents(session: Session, kind: str, documents: Iterable[Mapping[str, Any]]) -> int:
    """`put_document` for each; returns how many."""
    count = 0
    for document in documents:
        put_document(session, kind, document)
        count += 1
    return count

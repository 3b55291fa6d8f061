"""Views: a named query a catalog keeps as text (never parsed or run).

Spec: ``docs/concepts/views.md``; the seeds' section 3.6.3. Java (main; Paimon 0.9 has no
views): ``view/View``, ``view/ViewImpl``, ``view/ViewSchema``, ``view/ViewChange``,
``catalog/Catalog`` (view methods and their defaults), ``jdbc/JdbcCatalog`` and
``jdbc/JdbcUtils`` (the ``paimon_views`` table).

Rules:

1. A view has fields (the row type its query produces), a query text, dialects (dialect name
   -> query text, e.g. ``spark``, ``flink``), an optional comment and options.
2. Stored form (Java ``ViewSchema`` through ``JsonSerdeUtil.toJson``, Jackson pretty
   printed): ``{"fields": [...], "query": ..., "dialects": {...}, "comment": ...,
   "options": {...}}``, members in that order, ``comment`` left out when there is none;
   unknown members are ignored when reading, and missing ``dialects``/``options`` read as
   empty.
3. Changes (``ViewChange``), applied in order: set or remove an option, update the comment,
   add a dialect (it must not exist), update or drop a dialect (it must exist). The fields
   and the query never change.
4. Catalogs without a metastore (the file system catalog) keep no views: creating, dropping,
   renaming and altering one is unsupported, getting one finds nothing, listing finds none.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TypeAlias

from reference.errors import PaimonFormatError, PaimonKitError
from reference.spec import types as t
from reference.spec.json_format import (
    JsonValue,
    as_string,
    as_string_map,
    decode_json_object,
    encode_json,
    require_member,
)

FIELDS_MEMBER = "fields"
QUERY_MEMBER = "query"
DIALECTS_MEMBER = "dialects"
COMMENT_MEMBER = "comment"
OPTIONS_MEMBER = "options"


class ViewNotFoundError(PaimonKitError):
    """A view the catalog does not have."""


class ViewAlreadyExistsError(PaimonKitError):
    """A view (or a table of the same name) exists already."""


class DialectAlreadyExistsError(PaimonKitError):
    """Adding a dialect the view has."""


class DialectNotFoundError(PaimonKitError):
    """Updating or dropping a dialect the view does not have."""


@dataclass(frozen=True)
class View:
    """Rule 1 (Java ``View`` without its identifier)."""

    fields: tuple[t.DataField, ...]
    query: str
    dialects: Mapping[str, str] = field(default_factory=dict)
    comment: str | None = None
    options: Mapping[str, str] = field(default_factory=dict)

    @property
    def row_type(self) -> t.RowType:
        return t.RowType(self.fields)


# --------------------------------------------------------------------------------------------
# The stored form (rule 2)
# --------------------------------------------------------------------------------------------


def view_to_json(view: View) -> dict[str, JsonValue]:
    members: dict[str, JsonValue] = {
        FIELDS_MEMBER: [t.field_to_json(f) for f in view.fields],
        QUERY_MEMBER: view.query,
        DIALECTS_MEMBER: dict(view.dialects),
    }
    if view.comment is not None:
        members[COMMENT_MEMBER] = view.comment
    members[OPTIONS_MEMBER] = dict(view.options)
    return members


def encode_view_schema(view: View) -> str:
    """Rule 2."""
    return encode_json(view_to_json(view))


def decode_view_schema(data: bytes | str) -> View:
    """Rule 2; :class:`PaimonFormatError` for a malformed document."""
    members = decode_json_object(data)
    fields = require_member(members, FIELDS_MEMBER)
    if not isinstance(fields, list):
        raise PaimonFormatError(f"member '{FIELDS_MEMBER}' must be an array")
    comment = members.get(COMMENT_MEMBER)
    return View(
        fields=tuple(t.parse_data_field(f) for f in fields),
        query=as_string(QUERY_MEMBER, require_member(members, QUERY_MEMBER)),
        dialects=as_string_map(DIALECTS_MEMBER, members.get(DIALECTS_MEMBER) or {}),
        comment=None if comment is None else as_string(COMMENT_MEMBER, comment),
        options=as_string_map(OPTIONS_MEMBER, members.get(OPTIONS_MEMBER) or {}),
    )


# --------------------------------------------------------------------------------------------
# Changes (rule 3)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SetViewOption:
    key: str
    value: str


@dataclass(frozen=True)
class RemoveViewOption:
    key: str


@dataclass(frozen=True)
class UpdateViewComment:
    comment: str | None


@dataclass(frozen=True)
class AddDialect:
    dialect: str
    query: str


@dataclass(frozen=True)
class UpdateDialect:
    dialect: str
    query: str


@dataclass(frozen=True)
class DropDialect:
    dialect: str


ViewChange: TypeAlias = (
    SetViewOption | RemoveViewOption | UpdateViewComment | AddDialect | UpdateDialect | DropDialect
)


def apply_view_change(view: View, change: ViewChange) -> View:
    """One change of rule 3."""
    options, dialects = dict(view.options), dict(view.dialects)
    if isinstance(change, SetViewOption):
        options[change.key] = change.value
    elif isinstance(change, RemoveViewOption):
        options.pop(change.key, None)
    elif isinstance(change, UpdateViewComment):
        return replace(view, comment=change.comment)
    elif isinstance(change, AddDialect):
        if change.dialect in dialects:
            raise DialectAlreadyExistsError(f"dialect '{change.dialect}' exists already")
        dialects[change.dialect] = change.query
    elif isinstance(change, UpdateDialect):
        if change.dialect not in dialects:
            raise DialectNotFoundError(f"dialect '{change.dialect}' does not exist")
        dialects[change.dialect] = change.query
    else:
        if change.dialect not in dialects:
            raise DialectNotFoundError(f"dialect '{change.dialect}' does not exist")
        del dialects[change.dialect]
    return replace(view, options=options, dialects=dialects)


def apply_view_changes(view: View, changes: Sequence[ViewChange]) -> View:
    for change in changes:
        view = apply_view_change(view, change)
    return view

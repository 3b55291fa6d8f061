"""Turning failures inside a check into findings, so the validator never stops on bad input.

Rules:

* A kit error that says the bytes are bad (:class:`PaimonFormatError`, :class:`SpecViolation`,
  any other :class:`PaimonKitError`) is a finding of the rule the caller names ("this manifest
  does not decode").
* :class:`UnsupportedFeature` is not the table's fault: the check is skipped (``CHECK_SKIPPED``,
  severity info).
* A storage failure other than a missing file (permissions, a broken connection) is re-raised:
  the table cannot be judged, and the caller reports it as unreadable.
* Anything else is a bug of the validator or an input nobody anticipated: ``CHECK_FAILED``,
  naming the exception, never a traceback.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from reference.errors import (
    FileMissingError,
    PaimonKitError,
    StorageError,
    UnsupportedFeature,
)
from reference.validate import report as r

T = TypeVar("T")


def is_io_failure(error: BaseException) -> bool:
    """A storage error that makes the whole table unreadable (a missing file is a finding)."""
    return isinstance(error, StorageError) and not isinstance(error, FileMissingError)


def describe_error(error: BaseException) -> str:
    """The reason of a kit error, or the type and first line of any other exception."""
    if isinstance(error, PaimonKitError):
        return error.reason
    text = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def violation_from_error(
    error: Exception, rule: r.Rule, file: str, snapshot: int | None = None
) -> r.Violation:
    """The finding for ``error`` raised while checking ``file`` against ``rule``."""
    if is_io_failure(error):
        raise error
    if isinstance(error, UnsupportedFeature):
        return r.violation(r.Rule.CHECK_SKIPPED, file, describe_error(error), snapshot)
    if isinstance(error, PaimonKitError):
        return r.violation(rule, file, describe_error(error), snapshot)
    return r.violation(r.Rule.CHECK_FAILED, file, describe_error(error), snapshot)


def run_check(
    check: Callable[[], list[r.Violation]],
    rule: r.Rule,
    file: str,
    snapshot: int | None = None,
) -> list[r.Violation]:
    """The findings of ``check``; if it raises, the one finding that describes the failure."""
    try:
        return check()
    except Exception as error:
        return [violation_from_error(error, rule, file, snapshot)]


def read_present(
    is_present: bool,
    read: Callable[[], T],
    rules: tuple[r.Rule, r.Rule],
    file: str,
    snapshot: int | None = None,
) -> tuple[T | None, list[r.Violation]]:
    """``read`` a file that must exist: ``rules`` are (missing, unreadable)."""
    missing, unreadable = rules
    if not is_present:
        return None, [r.violation(missing, file, "no such file", snapshot)]
    return run_read(read, unreadable, file, snapshot)


def run_read(
    read: Callable[[], T],
    rule: r.Rule,
    file: str,
    snapshot: int | None = None,
) -> tuple[T | None, list[r.Violation]]:
    """``(value, [])`` when ``read`` succeeds, ``(None, [finding])`` when it raises."""
    try:
        return read(), []
    except Exception as error:
        return None, [violation_from_error(error, rule, file, snapshot)]

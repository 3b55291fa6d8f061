"""The one error hierarchy of paimon-kit.

Every failure a user can meet is one of these, and its message names the file (or option) and
the reason. Pure codecs (``reference.spec``) raise without a path because they only see bytes;
whoever read the bytes wraps the call in :func:`naming_file`, which attaches the file name and
turns a stray low-level exception into a :class:`PaimonFormatError`.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Iterator
from contextlib import contextmanager


class PaimonKitError(Exception):
    """Base of every error the kit raises on purpose."""

    def __init__(self, reason: str, *, path: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.path = path

    def __str__(self) -> str:
        if self.path is None:
            return self.reason
        return f"{self.path}: {self.reason}"


class PaimonFormatError(PaimonKitError):
    """Bytes that cannot be decoded: truncated, garbled, wrong magic, version or checksum."""


class SpecViolation(PaimonKitError):
    """A file decodes but breaks a rule of the spec; ``code`` is a stable identifier."""

    def __init__(self, reason: str, *, path: str | None = None, code: str = "SPEC") -> None:
        super().__init__(reason, path=path)
        self.code = code


class UnsupportedFeature(PaimonKitError):
    """Valid Paimon that this implementation does not (yet) handle."""


class InvalidOptionError(PaimonKitError):
    """A table option with a value the spec does not allow; ``option`` names it."""

    def __init__(self, option: str, value: object, reason: str) -> None:
        super().__init__(f"option '{option}' = {value!r}: {reason}")
        self.option = option
        self.value = value


class StorageError(PaimonKitError, OSError):
    """A file system or object store operation failed for a reason other than the bytes.

    It is also an ``OSError``, so code that handles OS errors generically keeps working.
    """


class FileMissingError(StorageError, FileNotFoundError):
    """The named file does not exist; raised instead of :class:`PaimonFormatError` so that a
    reader can tell a missing file from a corrupt one. Also a ``FileNotFoundError``."""


class TableNotFoundError(PaimonKitError):
    """The path holds no Paimon table (no schema file)."""


class TableAlreadyExistsError(PaimonKitError):
    """A table is being created where a schema file already exists."""


class SnapshotNotFoundError(PaimonKitError):
    """A snapshot id, tag or timestamp that resolves to no snapshot."""


class CommitConflictError(PaimonKitError):
    """A commit that cannot be applied; ``retryable`` tells a snapshot conflict from a file one."""

    def __init__(self, reason: str, *, path: str | None = None, retryable: bool) -> None:
        super().__init__(reason, path=path)
        self.retryable = retryable


class PartialCommitError(CommitConflictError):
    """A commit of several snapshots (a write's APPEND, then the COMPACT of the buckets it
    wrote) of which the first landed and a later one failed.

    ``landed`` is committed; what failed (``cause``) changed nothing. The landed rows are
    visible to every reader, except in tables whose batch reads skip level 0 (primary-key
    tables with deletion vectors or the first-row engine), where they show after the next
    compaction. A retry of the same batch must not write it again: Java relies on the commit
    identifier (``FileStoreCommitImpl.filterCommitted``) for that; callers here read the ids
    of the landed snapshots from this error."""

    def __init__(
        self, reason: str, *, landed: tuple[int, ...], cause: CommitConflictError
    ) -> None:
        super().__init__(reason, path=cause.path, retryable=False)
        self.landed = landed
        self.cause = cause


# What low-level decoders (struct, json, fastavro, pyarrow, pyroaring) raise on bad bytes.
_LOW_LEVEL_DECODE_ERRORS: tuple[type[BaseException], ...] = (
    struct.error,
    json.JSONDecodeError,
    UnicodeDecodeError,
    EOFError,
    ValueError,
    KeyError,
    IndexError,
    TypeError,
    OverflowError,
)


@contextmanager
def naming_file(path: str) -> Iterator[None]:
    """Attach ``path`` to any kit error raised inside, and type any stray decode error.

    A kit error that already names a file keeps its own path (it is more precise); a raw
    ``struct.error`` or ``KeyError`` from a decoder becomes a :class:`PaimonFormatError`
    whose reason says what the decoder tripped on.
    """
    try:
        yield
    except PaimonKitError as error:
        if error.path is None:
            error.path = path
        raise
    except _LOW_LEVEL_DECODE_ERRORS as error:
        raise PaimonFormatError(_describe(error), path=path) from error
    except Exception as error:  # pyarrow.ArrowException, fastavro's own errors, OSError subclasses
        if _is_decoder_error(error):
            raise PaimonFormatError(_describe(error), path=path) from error
        raise


def _describe(error: BaseException) -> str:
    text = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return f"cannot decode ({type(error).__name__}{': ' + text if text else ''})"


def _is_decoder_error(error: Exception) -> bool:
    module = type(error).__module__ or ""
    return module.startswith(("pyarrow", "fastavro", "pyroaring"))

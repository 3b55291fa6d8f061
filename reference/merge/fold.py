"""A merge engine is a left fold over the records of one key.

Every merge engine is defined by three functions: the state before the first record
(``initial``), folding one record into the state (``step``; records come oldest first, in merge
order), and turning the final state into the merged record (``finish``; ``None`` when nothing is
kept). Both forms a reader needs are derived from those three functions, so they cannot
disagree:

* the batch form :func:`fold_records` (all records of a key at once), and
* the incremental form :class:`FoldMergeFunction` that the LSM reader and writer drive with
  ``reset`` before each key, ``add`` per record and ``result`` at the end.

Java: ``org.apache.paimon.mergetree.compact.MergeFunction`` (the incremental interface each
engine implements).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from reference.spec.key_value import KeyValue

State = TypeVar("State")
Config = TypeVar("Config")


@dataclass(frozen=True)
class MergeFold(Generic[State, Config]):
    """The three functions that define one merge engine (see the module docstring)."""

    initial: Callable[[Config], State]
    step: Callable[[State, KeyValue, Config], State]
    finish: Callable[[State], KeyValue | None]


def fold_records(
    records: Sequence[KeyValue], fold: MergeFold[State, Config], config: Config
) -> KeyValue | None:
    """Merge the records of one key, oldest first, with the engine ``fold``."""
    state = fold.initial(config)
    for kv in records:
        state = fold.step(state, kv, config)
    return fold.finish(state)


class FoldMergeFunction(Generic[State, Config]):
    """The incremental form of ``fold``: ``reset`` before a key, ``add`` each record oldest
    first, then ``result``."""

    def __init__(self, fold: MergeFold[State, Config], config: Config) -> None:
        self.fold = fold
        self.config = config
        self.state = fold.initial(config)

    def reset(self) -> None:
        self.state = self.fold.initial(self.config)

    def add(self, kv: KeyValue) -> None:
        self.state = self.fold.step(self.state, kv, self.config)

    def result(self) -> KeyValue | None:
        return self.fold.finish(self.state)

"""Byte mutations of valid seed files, drawn by hypothesis or by a seeded random generator.

A case is a seed (a valid file) and a short list of :data:`Mutation` records applied in
order by :func:`apply_mutations`. Positions and lengths are stored as fractions of the
current length (``0 <= fraction < 1``) so that one mutation list applies to any input:

* :class:`BitFlip`: flip one bit;
* :class:`Truncate`: keep a prefix;
* :class:`Insert`: insert bytes (random ones, or a run of one byte);
* :class:`Delete`: remove a range;
* :class:`Overwrite`: overwrite bytes with an "interesting" integer (0, -1, the largest and
  smallest 8/16/32/64-bit values, both byte orders), the kind that breaks length fields;
* :class:`Splice`: replace the tail after a position with the tail of another seed (a donor)
  from a position of its own;
* :class:`JsonReplace` (JSON targets only): parse the document, pick one value (or object
  member) and replace it with an "interesting" JSON text (wrong types, out-of-range and
  overlong numbers, deep nesting, lone surrogates) or drop it, then serialize again. Byte
  mutations of JSON mostly stop at the JSON syntax check; this reaches the field checks.

The same records come out of :func:`mutation_lists` (a hypothesis strategy, for the test
suite, with shrinking) and :func:`draw_mutations` (``random.Random``, for long runs where
hypothesis' per-example cost would dominate). Both are pure: a case is reproducible from its
seed index and mutation list (or from the run's seed and the case number).
"""

from __future__ import annotations

import json
import random
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

from hypothesis import strategies as st

MAX_MUTATIONS = 4
MAX_INSERT_LENGTH = 64
FRACTION_STEPS = 1 << 16

INTERESTING_INTEGERS: tuple[bytes, ...] = tuple(
    struct.pack(fmt, value)
    for fmt, values in (
        ("<b", (0, -1, 127, -128)),
        ("<h", (0x7FFF, -0x8000, 0x0100)),
        (">h", (0x7FFF, -0x8000, 0x0100)),
        ("<i", (0x7FFFFFFF, -0x80000000, 0x10000, -2)),
        (">i", (0x7FFFFFFF, -0x80000000, 0x10000, -2)),
        ("<q", (0x7FFFFFFFFFFFFFFF, -0x8000000000000000)),
        (">q", (0x7FFFFFFFFFFFFFFF, -0x8000000000000000)),
    )
    for value in values
)


INTERESTING_JSON: tuple[str, ...] = (
    "null",
    "true",
    "0",
    "-1",
    "1.5",
    "-0",
    "1e999",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775809",
    '""',
    '"x"',
    '"\\ud800"',
    "[]",
    "{}",
    "[null]",
    '{"": null}',
    "1" * 5000,
    "[" * 3000 + "]" * 3000,
    '"' + "x" * 100_000 + '"',
)
JSON_PLACEHOLDER = "__paimon_kit_fuzz_placeholder__"


@dataclass(frozen=True)
class BitFlip:
    at: float
    bit: int


@dataclass(frozen=True)
class Truncate:
    keep: float


@dataclass(frozen=True)
class Insert:
    at: float
    data: bytes


@dataclass(frozen=True)
class Delete:
    at: float
    length: float


@dataclass(frozen=True)
class Overwrite:
    at: float
    value: int
    """Index into :data:`INTERESTING_INTEGERS`."""


@dataclass(frozen=True)
class Splice:
    at: float
    donor: int
    """Index of the donor seed (modulo the number of donors)."""
    donor_at: float


@dataclass(frozen=True)
class JsonReplace:
    at: float
    value: int
    """Index into :data:`INTERESTING_JSON`."""
    drop: bool
    """Remove the chosen object member instead (a missing field)."""


Mutation: TypeAlias = BitFlip | Truncate | Insert | Delete | Overwrite | Splice | JsonReplace


def compute_position(fraction: float, length: int) -> int:
    """A position in ``[0, length)`` (0 for empty data) from a fraction in ``[0, 1)``."""
    return min(int(fraction * length), max(length - 1, 0))


def list_json_slots(document: object) -> list[tuple[Any, Any]]:
    """Every ``(container, key)`` holding a value, in document order."""
    slots: list[tuple[Any, Any]] = []
    pending: list[object] = [document]
    while pending:
        node = pending.pop()
        items = (
            node.items()
            if isinstance(node, dict)
            else enumerate(node)
            if isinstance(node, list)
            else ()
        )
        children = []
        for key, value in items:
            slots.append((node, key))
            children.append(value)
        pending.extend(reversed(children))
    return slots


def apply_json_replace(data: bytes, mutation: JsonReplace) -> bytes:
    """Replace (or drop) one value of a JSON document; other data is left as it is."""
    try:
        document = json.loads(data)
    except (ValueError, RecursionError):
        return data
    raw = INTERESTING_JSON[mutation.value % len(INTERESTING_JSON)]
    slots = list_json_slots(document)
    if not slots:
        return raw.encode("utf-8")
    container, key = slots[compute_position(mutation.at, len(slots))]
    if mutation.drop and isinstance(container, dict):
        del container[key]
        return json.dumps(document).encode("utf-8")
    container[key] = JSON_PLACEHOLDER
    text = json.dumps(document).replace(f'"{JSON_PLACEHOLDER}"', raw, 1)
    return text.encode("utf-8")


def apply_mutation(data: bytes, mutation: Mutation, donors: Sequence[bytes]) -> bytes:
    """``data`` with one mutation applied (a no-op where it cannot apply, e.g. empty data)."""
    length = len(data)
    if isinstance(mutation, JsonReplace):
        return apply_json_replace(data, mutation)
    if isinstance(mutation, Insert):
        at = compute_position(mutation.at, length + 1)
        return data[:at] + mutation.data + data[at:]
    if isinstance(mutation, Splice):
        donor = donors[mutation.donor % len(donors)] if donors else b""
        at = compute_position(mutation.at, length)
        return data[:at] + donor[compute_position(mutation.donor_at, len(donor)) :]
    if length == 0:
        return data
    at = compute_position(getattr(mutation, "at", 0.0), length)
    if isinstance(mutation, BitFlip):
        flipped = data[at] ^ (1 << (mutation.bit % 8))
        return data[:at] + bytes([flipped]) + data[at + 1 :]
    if isinstance(mutation, Truncate):
        return data[: compute_position(mutation.keep, length)]
    if isinstance(mutation, Delete):
        return data[:at] + data[at + 1 + int(mutation.length * (length - at)) :]
    value = INTERESTING_INTEGERS[mutation.value % len(INTERESTING_INTEGERS)]
    return data[:at] + value + data[at + len(value) :]


def apply_mutations(data: bytes, mutations: Sequence[Mutation], donors: Sequence[bytes]) -> bytes:
    for mutation in mutations:
        data = apply_mutation(data, mutation, donors)
    return data


# --------------------------------------------------------------------------------------------
# Hypothesis
# --------------------------------------------------------------------------------------------

fractions = st.integers(0, FRACTION_STEPS - 1).map(lambda n: n / FRACTION_STEPS)
inserted_bytes = st.one_of(
    st.binary(min_size=1, max_size=MAX_INSERT_LENGTH),
    st.tuples(st.integers(0, 255), st.integers(1, MAX_INSERT_LENGTH)).map(
        lambda run: bytes([run[0]]) * run[1]
    ),
)
byte_mutations: st.SearchStrategy[Mutation] = st.one_of(
    st.builds(BitFlip, fractions, st.integers(0, 7)),
    st.builds(Truncate, fractions),
    st.builds(Insert, fractions, inserted_bytes),
    st.builds(Delete, fractions, fractions),
    st.builds(Overwrite, fractions, st.integers(0, len(INTERESTING_INTEGERS) - 1)),
    st.builds(Splice, fractions, st.integers(0, 1 << 16), fractions),
)
json_mutations: st.SearchStrategy[Mutation] = st.builds(
    JsonReplace, fractions, st.integers(0, len(INTERESTING_JSON) - 1), st.booleans()
)


def mutation_lists(
    max_size: int = MAX_MUTATIONS, *, json_aware: bool = False
) -> st.SearchStrategy[list[Mutation]]:
    """One to ``max_size`` mutations (JSON-aware ones too, for JSON targets)."""
    elements = st.one_of(json_mutations, byte_mutations) if json_aware else byte_mutations
    return st.lists(elements, min_size=1, max_size=max_size)


# --------------------------------------------------------------------------------------------
# Random (long runs)
# --------------------------------------------------------------------------------------------


def draw_fraction(rng: random.Random) -> float:
    return rng.randrange(FRACTION_STEPS) / FRACTION_STEPS


def draw_inserted_bytes(rng: random.Random) -> bytes:
    size = rng.randint(1, MAX_INSERT_LENGTH)
    if rng.random() < 0.5:
        return bytes([rng.randrange(256)]) * size
    return rng.randbytes(size)


def draw_mutation(rng: random.Random, *, json_aware: bool = False) -> Mutation:
    """One mutation; bit flips and interesting integers (small, local changes that get past
    magic checks) are the most frequent, and for JSON targets value replacements."""
    if json_aware and rng.random() < 0.5:
        value = rng.randrange(len(INTERESTING_JSON))
        return JsonReplace(draw_fraction(rng), value, rng.random() < 0.25)
    choice = rng.choices(range(6), weights=(4, 1, 1, 1, 3, 1))[0]
    if choice == 0:
        return BitFlip(draw_fraction(rng), rng.randrange(8))
    if choice == 1:
        return Truncate(draw_fraction(rng))
    if choice == 2:
        return Insert(draw_fraction(rng), draw_inserted_bytes(rng))
    if choice == 3:
        return Delete(draw_fraction(rng), draw_fraction(rng) ** 4)
    if choice == 4:
        return Overwrite(draw_fraction(rng), rng.randrange(len(INTERESTING_INTEGERS)))
    return Splice(draw_fraction(rng), rng.randrange(1 << 16), draw_fraction(rng))


def draw_mutations(
    rng: random.Random, max_size: int = MAX_MUTATIONS, *, json_aware: bool = False
) -> list[Mutation]:
    return [draw_mutation(rng, json_aware=json_aware) for _ in range(rng.randint(1, max_size))]

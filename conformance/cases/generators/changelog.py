"""Cases of the changelog producers (none, input, lookup, full-compaction) read as changes."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from conformance.cases.generators import (
    CaseSpec,
    Hand,
    before,
    compact,
    delete,
    family,
    ins,
    inserts,
    read,
    read_changes,
    upd,
    write,
)
from conformance.cases.generators.merge_engines import KV, pk_case

DOC = "docs/docs/primary-key-table/changelog-producer.md"
AREA = "changelog-producer"


def changelog_case(
    name: str,
    description: str,
    producer: str,
    steps: Sequence[Mapping[str, Any]],
    options: Mapping[str, str] | None = None,
) -> CaseSpec:
    extra = {} if producer == "none" else {"changelog-producer": producer}
    java_class = {
        "none": "Java: IncrementalStartingScanner",
        "input": "Java: MergeTreeWriter (changelog files)",
        "lookup": "Java: LookupChangelogMergeFunctionWrapper",
        "full-compaction": "Java: FullChangelogMergeFunctionWrapper",
    }[producer]
    return pk_case(
        f"{AREA}/{name}",
        description,
        [DOC, java_class],
        KV,
        steps,
        {**extra, **(options or {})},
    )


@family
def changelog_producers() -> Iterator[CaseSpec]:
    yield changelog_case(
        "none_deltas",
        "without a producer the changes are each snapshot's merged delta",
        "none",
        [
            inserts((1, "a"), (2, "b")),
            write([upd(1, "a2"), delete(2, "b"), ins(3, "c")]),
            read_changes(0, None),
        ],
    )
    yield changelog_case(
        "input_passthrough",
        "the input producer keeps the written records, kinds included, as the changelog",
        "input",
        [
            inserts((1, "a"), (2, "b")),
            write([before(1, "a"), upd(1, "a2"), delete(2, "b")]),
            read_changes(
                0,
                None,
                Hand(
                    [
                        ins(1, "a"),
                        ins(2, "b"),
                        before(1, "a"),
                        upd(1, "a2"),
                        delete(2, "b"),
                    ]
                ),
            ),
            read(Hand([ins(1, "a2")])),
        ],
    )
    yield changelog_case(
        "input_unmerged_batch",
        "the input changelog keeps every record of a key written in one batch",
        "input",
        [
            inserts((1, "a"), (1, "b"), (1, "c")),
            read_changes(0, None, Hand([ins(1, "a"), ins(1, "b"), ins(1, "c")])),
            read(Hand([ins(1, "c")])),
        ],
    )
    yield changelog_case(
        "input_from_snapshot",
        "changes after a snapshot exclude the earlier commits",
        "input",
        [
            inserts((1, "a")),
            inserts((2, "b")),
            write([delete(1, "a")]),
            read_changes(1, None, Hand([ins(2, "b"), delete(1, "a")])),
            read_changes(1, 2, Hand([ins(2, "b")])),
        ],
    )
    yield changelog_case(
        "lookup_updates",
        "lookup produces -U/+U for updated keys, -D for deleted keys, +I for new ones",
        "lookup",
        [
            inserts((1, "a"), (2, "b")),
            write([upd(1, "a2"), delete(2, "b"), ins(3, "c")]),
            read_changes(0, None),
            read(Hand([ins(1, "a2"), ins(3, "c")])),
        ],
    )
    yield changelog_case(
        "lookup_same_value",
        "rewriting an unchanged row still produces an update pair by default",
        "lookup",
        [
            inserts((1, "a")),
            inserts((1, "a")),
            read_changes(0, None),
        ],
    )
    yield changelog_case(
        "lookup_row_deduplicate",
        "changelog-producer.row-deduplicate drops update pairs of unchanged rows",
        "lookup",
        [
            inserts((1, "a"), (2, "b")),
            inserts((1, "a"), (2, "b2")),
            read_changes(0, None),
        ],
        {"changelog-producer.row-deduplicate": "true"},
    )
    yield changelog_case(
        "lookup_partial_update",
        "lookup emits the merged full row of a partial-update table",
        "lookup",
        [
            inserts((1, "a")),
            inserts((1, None), (2, "b")),
            read_changes(0, None),
        ],
        {"merge-engine": "partial-update"},
    )
    yield changelog_case(
        "lookup_first_row",
        "first-row with lookup emits only the first insert of each key",
        "lookup",
        [
            inserts((1, "a")),
            inserts((1, "b"), (2, "c")),
            read_changes(0, None),
        ],
        {"merge-engine": "first-row"},
    )
    yield pk_case(
        f"{AREA}/lookup_aggregation",
        "lookup emits the aggregated value before and after each change",
        [DOC, "Java: LookupChangelogMergeFunctionWrapper"],
        ("k INT NOT NULL", "v BIGINT"),
        [
            inserts((1, 1)),
            inserts((1, 2), (2, 5)),
            read_changes(0, None),
        ],
        {
            "changelog-producer": "lookup",
            "merge-engine": "aggregation",
            "fields.v.aggregate-function": "sum",
        },
    )
    yield changelog_case(
        "full_compaction_first",
        "the first full compaction emits every live row as an insert",
        "full-compaction",
        [
            inserts((1, "a"), (2, "b")),
            write([upd(1, "a2"), delete(2, "b"), ins(3, "c")]),
            compact(),
            read_changes(0, None),
        ],
    )
    yield changelog_case(
        "full_compaction_diff",
        "a later full compaction emits the difference from the previous one",
        "full-compaction",
        [
            inserts((1, "a"), (2, "b"), (3, "c")),
            compact(),
            write([upd(1, "a2"), delete(2, "b"), ins(4, "d")]),
            compact(),
            read_changes(2, None),
            read(Hand([ins(1, "a2"), ins(3, "c"), ins(4, "d")])),
        ],
    )
    yield changelog_case(
        "full_compaction_no_change",
        "rewriting an unchanged row emits an update pair at the next full compaction",
        "full-compaction",
        [
            inserts((1, "a")),
            compact(),
            inserts((1, "a")),
            compact(),
            read_changes(2, None),
        ],
    )

"""docs/spark.md's examples, executed (issue 19 must-show 4).

Every fenced ```` ```python ```` block of the page runs, in page order, in one namespace that
holds ``spark`` (the suite's local session, ``paimon`` registered) and ``warehouse`` (a fresh
directory); each block's own ``assert`` lines state the rows it expects. Blocks fenced
```` ```python cluster ```` need S3 or a standalone cluster: they are run by
:mod:`conformance.unit.spark_impl.test_cluster_s3`, with every other block, on a cluster whose
warehouse is on the S3 server.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, NamedTuple

import pytest

pytestmark = pytest.mark.spark

ROOT = Path(__file__).resolve().parents[3]
DOC = ROOT / "docs" / "spark.md"
README = ROOT / "README.md"
"""The README's Spark example follows the page's conventions (``spark``, ``warehouse``)."""
FENCE = re.compile(r"^```python([^\n]*)\n(.*?)^```\s*$", re.MULTILINE | re.DOTALL)
CLUSTER_TAG = "cluster"
"""The fence tag of an example that needs S3 or a cluster."""


class Example(NamedTuple):
    """One fenced ``python`` block: its first line number, tags and code."""

    line: int
    tags: frozenset[str]
    code: str


def extract_examples(text: str) -> list[Example]:
    """The page's ``python`` blocks in order (the words after ``python`` are the tags)."""
    return [
        Example(
            text.count("\n", 0, match.start()) + 1,
            frozenset(match.group(1).split()),
            match.group(2),
        )
        for match in FENCE.finditer(text)
    ]


def run_examples(
    examples: list[Example], namespace: dict[str, Any], source: str = "docs/spark.md"
) -> None:
    """Run each block in ``namespace``; a failure names the block's line in ``source``."""
    for example in examples:
        code = compile(example.code, f"{source}:{example.line}", "exec")
        try:
            exec(code, namespace)  # the page's own examples
        except Exception as error:
            raise AssertionError(
                f"{source} example at line {example.line} failed: {error!r}"
            ) from error


def readme_examples() -> list[Example]:
    """The README's ``python`` blocks that use spark_impl."""
    examples = extract_examples(README.read_text(encoding="utf-8"))
    return [e for e in examples if "import spark_impl" in e.code]


def test_extract_examples_reads_fences_and_tags() -> None:
    text = "intro\n```python\na = 1\n```\n```bash\nls\n```\n```python cluster\nb = 2\n```\n"
    assert extract_examples(text) == [
        Example(2, frozenset(), "a = 1\n"),
        Example(8, frozenset({CLUSTER_TAG}), "b = 2\n"),
    ]


def test_page_covers_the_guide_sections() -> None:
    text = DOC.read_text(encoding="utf-8")
    for heading in (
        "Create a table",
        "Write",
        "Read and time travel",
        "Streaming",
        "System tables",
        "Procedures",
        "Schema evolution",
        "S3",
        "Cluster",
        "Errors",
        "What the Python Data Source API cannot do",
    ):
        assert f"## {heading}" in text, heading
    examples = extract_examples(text)
    assert len([e for e in examples if CLUSTER_TAG not in e.tags]) >= 10
    assert any(CLUSTER_TAG in e.tags for e in examples)


def test_every_local_example_runs(spark: Any, tmp_path: Path) -> None:
    examples = extract_examples(DOC.read_text(encoding="utf-8"))
    local = [e for e in examples if CLUSTER_TAG not in e.tags]
    run_examples(local, {"spark": spark, "warehouse": str(tmp_path / "warehouse")})


def test_readme_spark_example_runs(spark: Any, tmp_path: Path) -> None:
    examples = readme_examples()
    assert examples, "README.md has no spark_impl example"
    run_examples(examples, {"spark": spark, "warehouse": str(tmp_path / "wh")}, "README.md")

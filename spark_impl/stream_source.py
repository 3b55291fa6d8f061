"""The ``paimon`` stream source with its start position, consumer and ``Trigger.AvailableNow``.

``spark.readStream.format("paimon").option("read.row-kind", "true")`` plus:

* ``scan.mode`` (``latest-full`` default, ``full``, ``latest``, ``from-snapshot``,
  ``from-snapshot-full``, ``from-timestamp``, ``compacted-full``), ``scan.snapshot-id``,
  ``scan.timestamp-millis``: where a new query starts (:func:`spark_impl.stream.
  compute_initial_offset`; Java ``AbstractDataTableScan.createStartingScanner``). A tag
  (``scan.tag-name``) cannot start a stream in Paimon 0.9: refused with that reason.
* ``consumer-id``: a new query resumes at the consumer's recorded next snapshot (unless
  ``consumer.ignore-progress``), and each finished micro-batch records the snapshot after it
  in ``consumer/consumer-<id>`` (Java ``ConsumerManager``), so the consumer protects the
  snapshots it has not read from expiration and another query can take over. A batch counts
  as finished when Spark plans the next one (``latestOffset(start)``: Spark runs batches one
  at a time and logs each before planning the next) or commits it (``commit(end)``, which
  Spark calls only when it plans a further batch, so never after the last batch of a
  ``Trigger.AvailableNow`` run).
* ``Trigger.AvailableNow``: the query reads up to the latest snapshot at its start and stops
  (``SupportsTriggerAvailableNow``).

A query restarted from its checkpoint resumes at the checkpointed offsets, as Spark does.
"""

from __future__ import annotations

from typing import Any

from pyspark.sql.streaming.datasource import SupportsTriggerAvailableNow
from pyspark.sql.types import StructType

from spark_impl import stream
from spark_impl.batch_source import PaimonStreamReader, StreamPartition, open_file_io, table_path


class PaimonStreamSource(PaimonStreamReader, SupportsTriggerAvailableNow):
    """Offsets are snapshot ids; an initial offset may ask for a full read (``full``)."""

    def __init__(self, options: dict[str, str], schema: StructType) -> None:
        super().__init__(options, schema)
        self.available_now: int | None = None
        """The ``Trigger.AvailableNow`` target: the latest snapshot when the query started."""
        io, root = open_file_io(self.options), table_path(self.options)
        self.schema_json = stream.resolve_stream_schema_json(io, root, self.options)
        """The schema every split reads in, the one the source reports (rule 7 of
        :mod:`spark_impl.stream`: the start snapshot's with ``scan.snapshot-id``)."""

    def initialOffset(self) -> dict[str, int]:
        io, root = open_file_io(self.options), table_path(self.options)
        return stream.compute_initial_offset(io, root, self.options)

    def prepareForTriggerAvailableNow(self) -> None:
        io, root = open_file_io(self.options), table_path(self.options)
        self.available_now = stream.latest_offset(io, root, 0)

    def latestOffset(
        self, start: dict[str, Any] | None = None, limit: Any = None
    ) -> dict[str, int]:
        io, root = open_file_io(self.options), table_path(self.options)
        stream.record_consumer(io, root, self.options, start or {})
        return stream.latest_offset_after(io, root, start or {}, self.available_now)

    def partitions(self, start: dict[str, Any], end: dict[str, Any]) -> list[StreamPartition]:
        io, root = open_file_io(self.options), table_path(self.options)
        splits = stream.plan_offsets(io, root, start, end, self.schema_json)
        return [StreamPartition(split) for split in splits]

    def commit(self, end: dict[str, Any]) -> None:
        io, root = open_file_io(self.options), table_path(self.options)
        stream.record_consumer(io, root, self.options, end)

"""When a writer measures the file it is writing, to roll to a new one: shared by both engines.

Rule: a data or manifest file being written is measured only every ``ROLL_CHECK_INTERVAL``
records (Java ``RollingFileWriter.CHECK_ROLLING_RECORD_CNT``), and an ORC file only when its
row batch of ``ORC_ROW_BATCH_SIZE`` rows is empty (Java's ORC writer flushes its
``VectorizedRowBatch`` of ``orc.write.batch-size`` rows before it knows its size), so files roll at
the same record as Java's.
"""

from __future__ import annotations

ROLL_CHECK_INTERVAL = 1000
"""Java ``RollingFileWriter.CHECK_ROLLING_RECORD_CNT`` (Parquet, Avro data files; manifests)."""
ORC_ROW_BATCH_SIZE = 1024
"""Java's ORC writer checks its size only with an empty row batch (``orc.write.batch-size``)."""

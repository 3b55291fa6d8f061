"""The Spark session settings of the test suite, in one place.

Every SparkSession the test process builds (the differential's ``run_spark.spark_session`` and
the spark_impl tests' ``spark`` fixture) starts from :data:`TEST_SESSION_CONFIG`. One pytest
process holds one SparkContext: the first builder creates it, later ``getOrCreate`` calls reuse
it and apply their SQL settings (shuffle partitions, adaptive execution) to the session.

The suite's tables hold a handful of rows, so the settings trade nothing for speed:

* no UI and no console progress bar;
* ``spark.sql.adaptive.enabled`` off: adaptive execution runs every shuffle's map stage as a job
  of its own and re-plans after it, which for a few rows only adds a job (each write through
  ``spark_impl.write_table``, each ``count()``: two jobs instead of one);
* two shuffle partitions (the machine's two cores), UTC session time zone (timestamps compare
  the same on every machine).

Every Spark JVM the suite starts (the test process's driver, the drivers of the jobs it runs as
subprocesses, a test cluster's master, workers and executors) gets :data:`TEST_JVM_OPTIONS`
through the environment (:func:`use_test_jvm_options`, called by ``conformance/conftest.py``):
the JVMs of the suite live seconds to minutes on tiny data, so the C2 compiler's work never
pays back and on two shared cores it takes CPU from the tests.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, MutableMapping
from typing import Any

TEST_SESSION_CONFIG: Mapping[str, str] = {
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.session.timeZone": "UTC",
    "spark.sql.shuffle.partitions": "2",
    "spark.sql.adaptive.enabled": "false",
}

TEST_JVM_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
"""The C1 compiler only (``TieredStopAtLevel=1``: no C2 compile threads, the JIT's work for a
JVM that lives seconds) and the serial collector (no concurrent GC threads for heaps this
small)."""
JVM_OPTION_VARIABLES = ("SPARK_SUBMIT_OPTS", "SPARK_DAEMON_JAVA_OPTS")
"""Where Spark's launcher takes extra JVM options: every ``spark-submit`` (so every PySpark
driver) and the standalone master and worker daemons."""


def use_test_jvm_options(environ: MutableMapping[str, str] = os.environ) -> None:
    """Put :data:`TEST_JVM_OPTIONS` in ``environ`` for every variable of
    :data:`JVM_OPTION_VARIABLES` the environment does not set already (a value given by the
    caller wins)."""
    for variable in JVM_OPTION_VARIABLES:
        environ.setdefault(variable, TEST_JVM_OPTIONS)


def session_builder(master: str, app_name: str, **overrides: str) -> Any:
    """A ``SparkSession.builder`` for ``master`` with :data:`TEST_SESSION_CONFIG` and then
    ``overrides`` (keys with dots: pass a mapping as ``**{"spark.x": "1"}``)."""
    from pyspark.sql import SparkSession  # noqa: PLC0415 (pyspark is an optional dependency)

    builder = SparkSession.builder.master(master).appName(app_name)
    for key, value in {**TEST_SESSION_CONFIG, **overrides}.items():
        builder = builder.config(key, value)
    return builder

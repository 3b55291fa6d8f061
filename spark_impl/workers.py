"""Which Python runs spark_impl inside Spark, and a clear error when it cannot.

Spark starts its Python workers (and the planner processes of Python data sources) with the
interpreter named by ``PYSPARK_PYTHON``, or ``python3`` from ``PATH`` when that is unset
(``SparkContext.pythonExec``). A user who runs ``venv/bin/python job.py`` without activating the
venv gets workers from another Python, without pyarrow, numpy or paimon-kit, and an import error
from deep inside a worker. Two remedies:

- :func:`use_driver_python`: in local mode (workers on this machine) with neither
  ``PYSPARK_PYTHON`` nor a non-default interpreter set, the workers run the driver's own
  interpreter, which is the one that has paimon-kit;
- :func:`require_worker_modules`: importing :mod:`spark_impl` in a Python without its
  dependencies says which interpreter that was and what to set.

Imports no third-party module itself, so it works in the interpreter that lacks them.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from typing import Any

PYSPARK_PYTHON_ENV = "PYSPARK_PYTHON"
DEFAULT_PYTHON_EXEC = "python3"
"""What ``SparkContext`` runs when ``PYSPARK_PYTHON`` is unset."""
LOCAL_MASTER_PREFIX = "local"
WORKER_MODULES = ("pyarrow", "numpy")
"""What every spark_impl task imports (pandas is checked by PySpark itself, with its version)."""


def missing_worker_modules() -> list[str]:
    return [name for name in WORKER_MODULES if importlib.util.find_spec(name) is None]


def require_worker_modules() -> None:
    """Raise an :class:`ImportError` naming this interpreter when a worker module is missing."""
    missing = missing_worker_modules()
    if missing:
        raise ImportError(
            f"spark_impl needs {', '.join(missing)} in the Python that runs it, "
            f"{sys.executable}, which lacks {'it' if len(missing) == 1 else 'them'}. "
            "Install paimon-kit[spark] there, or, if this is one of Spark's Python workers, "
            f"set {PYSPARK_PYTHON_ENV} to the interpreter that has paimon-kit[spark] "
            f"(Spark runs {PYSPARK_PYTHON_ENV}, else {DEFAULT_PYTHON_EXEC!r} from PATH)"
        )


def is_default_python(spark_context: Any) -> bool:
    """Whether Spark would start ``python3`` from PATH because nobody chose an interpreter."""
    chosen = os.environ.get(PYSPARK_PYTHON_ENV)
    return not chosen and getattr(spark_context, "pythonExec", None) == DEFAULT_PYTHON_EXEC


def use_driver_python(spark: Any) -> bool:
    """In local mode, make Spark's Python workers run this interpreter when nobody chose one;
    whether it did. Python functions registered afterwards (the ``paimon`` source, UDFs) carry
    the interpreter with them."""
    try:
        spark_context = spark.sparkContext
    except Exception:  # Spark Connect: the workers run on the server, as it is set up
        return False
    master = str(spark_context.master)
    if not master.startswith(LOCAL_MASTER_PREFIX) or not is_default_python(spark_context):
        return False
    spark_context.pythonExec = sys.executable
    return True

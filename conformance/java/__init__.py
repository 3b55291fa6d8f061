"""paimon-kit's Java oracle: a small harness of our own over Apache Paimon 0.9's Java API.

* ``build``: fetches the Paimon 0.9.0 jar (inside the ``pypaimon==0.2.0`` sdist on PyPI) into a
  cache dir, finds Hadoop's client jars in pyspark, and compiles ``*.java`` beside this file.
  Run ``python -m conformance.java.build`` to do it ahead of time.
* ``harness``: :class:`~conformance.java.harness.JavaHarness`, the Python client of the
  long-lived JVM (one JSON request and one JSON response per line).
* ``values``: internal values (``reference.spec.data`` conventions) to and from the harness's
  JSON encoding, driven by the column types.
* ``oracle``: :func:`~conformance.java.oracle.read_table_with_java`, rows as Java 0.9 reads them.
* ``pytest_fixtures``: the session fixture ``java_harness``.
"""

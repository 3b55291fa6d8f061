"""Golden fixtures written by Java Paimon 0.9: byte vectors and tables, their generators and
the tests that hold the reference to them.

* :mod:`conformance.golden.vectors` builds ``fixtures/vectors/<element>/java-0.9.json`` (run
  ``python scripts/generate_vectors.py``).
* :mod:`conformance.golden.tables` builds ``fixtures/cases/golden/<case>/`` (run
  ``python scripts/generate_golden_tables.py``).
"""

"""Regression cases of the reference-vs-spark_impl differential (see ``cases.py``)."""

"""The ranges of Java's primitive integers, which bound the spec's values and ids.

Java: ``Short.MAX_VALUE``, ``Integer.MIN_VALUE`` / ``MAX_VALUE``, ``Long.MIN_VALUE`` /
``MAX_VALUE``: option values, JSON members, field ids, sequence numbers and the batch commit
identifier are Java ints and longs, so the reference and spark_impl check and build them against
these bounds, defined once here.
"""

from __future__ import annotations

LONG_BITS = 64
SHORT_MAX = 2**15 - 1
INT_MIN = -(2**31)
INT_MAX = 2**31 - 1
LONG_MIN = -(1 << (LONG_BITS - 1))
LONG_MAX = (1 << (LONG_BITS - 1)) - 1
INT32_MASK = 0xFFFF_FFFF
"""Keeps the low 32 bits of a Python int: Java's ``int`` arithmetic wraps there."""

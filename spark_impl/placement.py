"""Placing buckets on Spark tasks exactly, for the shuffle of a fixed-bucket write.

Spark sends a row of ``df.repartition(n, e)`` to task ``pmod(murmur3(e), n)``
(``HashPartitioning`` over ``Murmur3Hash`` with seed 42; for an INT value this is Murmur3 x86_32
of its one 4-byte word). Repartitioning by the bucket number itself therefore places buckets by
hash, not evenly: with 4 buckets on 2 tasks, buckets 0, 1 and 3 all land on task 1 and bucket 2
on task 0, so one task writes three quarters of the table (and holds it in memory) while the
other idles.

The write instead repartitions by a *task key*: for each task ``t`` of ``n``, the smallest
non-negative INT whose hash partition is ``t`` (:func:`compute_task_keys`). Bucket ``b`` is
given the key of task ``b % n`` (:func:`task_key_column`), so with ``n`` equal to the bucket
count every task writes exactly one bucket: the tasks are balanced and a task's memory follows
the bucket's size, not the table's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from spark_impl.bucketing import MURMUR_SEED, finish, mix_word

INT_BYTES = 4
"""Spark hashes an INT as one 4-byte word (``Murmur3_x86_32.hashInt``)."""
SEARCH_CHUNK = 4096


def compute_spark_int_partitions(values: np.ndarray, tasks: int) -> np.ndarray:
    """The task Spark's ``repartition(tasks, <INT column>)`` sends each value to."""
    words = values.astype(np.uint32)
    seeds = np.full(len(words), MURMUR_SEED, dtype=np.uint32)
    hashes = finish(mix_word(seeds, words), np.full(len(words), INT_BYTES, dtype=np.uint32))
    return np.mod(hashes.astype(np.int64), tasks)


def compute_task_keys(tasks: int) -> list[int]:
    """For each task ``t`` in ``[0, tasks)``, the smallest non-negative INT Spark sends to
    ``t`` (every task is reached within a few multiples of ``tasks`` candidates)."""
    if tasks < 1:
        raise ValueError(f"task count must be positive, got {tasks}")
    keys: dict[int, int] = {}
    start = 0
    while len(keys) < tasks:
        candidates = np.arange(start, start + max(SEARCH_CHUNK, 8 * tasks), dtype=np.int64)
        targets = compute_spark_int_partitions(candidates, tasks)
        reached, first = np.unique(targets, return_index=True)
        for target, index in zip(reached.tolist(), first.tolist(), strict=True):
            keys.setdefault(target, int(candidates[index]))
        start += len(candidates)
    return [keys[t] for t in range(tasks)]


def task_key_column(bucket_column: str, tasks: int) -> Any:
    """A Spark column giving each row the key of task ``bucket % tasks``."""
    from pyspark.sql import functions as F  # noqa: PLC0415 (pyspark is optional)

    keys = F.array(*(F.lit(key) for key in compute_task_keys(tasks)))
    return F.element_at(keys, F.pmod(F.col(bucket_column), F.lit(tasks)) + F.lit(1))

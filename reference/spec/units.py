"""Time units and ratios: each conversion factor the spec's codecs and rules use, defined once.

Java spells these as ``TimeUnit`` conversions and ``DateTimeUtils`` constants
(``MILLIS_PER_DAY`` and friends, Java: org.apache.paimon.utils.DateTimeUtils); the reference and
spark_impl import them from here instead of writing the numbers again.
"""

from __future__ import annotations

NANOS_PER_MICRO = 1_000
NANOS_PER_MILLI = 1_000_000
NANOS_PER_SECOND = 1_000_000_000
MICROS_PER_MILLI = 1_000
MICROS_PER_SECOND = 1_000_000
MILLIS_PER_SECOND = 1_000
MILLIS_PER_MINUTE = 60_000
MILLIS_PER_HOUR = 3_600_000
MILLIS_PER_DAY = 86_400_000
SECONDS_PER_MINUTE = 60
SECONDS_PER_HOUR = 3_600
SECONDS_PER_DAY = 86_400
MICROS_PER_DAY = MILLIS_PER_DAY * MICROS_PER_MILLI
NANOS_PER_DAY = MICROS_PER_DAY * NANOS_PER_MICRO

PERCENT = 100
"""Options given in percent (``compaction.size-ratio``,
``compaction.max-size-amplification-percent``) are divided by this."""


def format_java_duration(nanos: int) -> str:
    """``java.time.Duration.toString`` of a non-negative duration (``PT1H30M``, ``PT0.5S``):
    how Java's system tables print a tag's time retained."""
    seconds, nano = divmod(nanos, NANOS_PER_SECOND)
    hours, rest = divmod(seconds, SECONDS_PER_HOUR)
    minutes, second = divmod(rest, SECONDS_PER_MINUTE)
    if seconds == 0 and nano == 0:
        return "PT0S"
    text = "PT"
    if hours:
        text += f"{hours}H"
    if minutes:
        text += f"{minutes}M"
    if second == 0 and nano == 0:
        return text
    fraction = f".{nano:09d}".rstrip("0") if nano else ""
    return f"{text}{second}{fraction}S"

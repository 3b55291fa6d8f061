"""pytest plugin of paimon-kit (entry point ``paimon_kit``).

It adds ``--paimon-engine=module:Class`` so a third-party engine runs the conformance cases with
one adapter module. The option is inert until the conformance cases exist.
"""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("paimon-kit")
    group.addoption(
        "--paimon-engine",
        action="append",
        default=[],
        metavar="MODULE:CLASS",
        help="an extra engine adapter to run the conformance cases against",
    )

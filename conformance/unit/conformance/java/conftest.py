"""Brings the session ``java_harness`` fixture to the harness's own tests, unless the suite's
root ``conformance/conftest.py`` already provides it (then there is one JVM per session)."""

import conformance.conftest as root_conftest

if not hasattr(root_conftest, "java_harness"):
    from conformance.java.pytest_fixtures import java_harness

    __all__ = ["java_harness"]

"""Brings the session ``java_harness`` fixture to the store tests."""

from conformance.java.pytest_fixtures import java_harness

__all__ = ["java_harness"]

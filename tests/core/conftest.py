"""Fixtures of the core's tests: `start` runs real `ragbot` processes (tests.support.processes)."""

from tests.support.processes import start  # noqa: F401  (the fixture, shared by the test files)

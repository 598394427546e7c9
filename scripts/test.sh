#!/usr/bin/env bash
# The test command: installs what is missing, then lint, types and the test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# Chromium for the web chat's browser test (Debian packages; CI needs them: there the
# test fails without a browser, elsewhere it is skipped and says how to install it)
bash scripts/install-browser.sh || [ -z "${CI:-}" ]
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy bot graph storage textkit bench tests
# four test processes, each with its own embedded Postgres: on two cores, as the tests
# spend much of their time waiting on the processes and servers they start; a file's tests
# stay together (they share module fixtures such as a running `ragbot serve`), the files
# that start processes first (tests/conftest.py); the slowest fifteen are listed at the end
.venv/bin/python -m pytest -n 4 --dist loadfile --no-loadscope-reorder --durations=15 "$@"

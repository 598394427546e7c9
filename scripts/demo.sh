#!/usr/bin/env bash
# The main job on embedded defaults: install, then ingest the sample knowledge base and ask it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/ragbot demo "$@"

#!/usr/bin/env bash
# Sets everything up (scripts/setup.sh), then runs notebooks/tour.ipynb headless and prints each cell's outputs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/python scripts/run_notebook.py notebooks/tour.ipynb "$@"

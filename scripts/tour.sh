#!/usr/bin/env bash
# Sets up what the tour needs (scripts/setup-kernel.sh: .venv, the package, the kernelspec), then runs
# notebooks/tour.ipynb headless and prints each cell's outputs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-kernel.sh tour
exec .venv/bin/python scripts/run_notebook.py notebooks/tour.ipynb "$@"

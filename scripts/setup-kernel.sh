#!/usr/bin/env bash
# Sets up what running notebooks on the kernel needs: a virtual environment in .venv with the package (its build runs
# Maven on jvm/) and the extra named by the argument (default `tour`: nbclient and nbformat for
# scripts/run_notebook.py; scripts/setup.sh passes `test`), and the kotlin-llm kernelspec installed into it.
# Idempotent; needs Python >= 3.10 with pip, a JDK >= 17 and Maven.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
EXTRA=${1:-tour}
command -v java >/dev/null || [ -n "${JAVA_HOME:-}" ] || { echo "No Java found: install a JDK 17 or newer (e.g. apt-get install openjdk-17-jdk-headless)." >&2; exit 1; }
command -v mvn >/dev/null || { echo "No Maven found: install Maven 3.8 or newer (e.g. apt-get install maven)." >&2; exit 1; }
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip
# JetBrains' Kotlin kernel API jars the engine builds against, from their PyPI wheel where Maven lacks them
.venv/bin/python scripts/jupyter_api_jars.py
.venv/bin/python -m pip install -q -e ".[$EXTRA]"
.venv/bin/python -m kotlin_llm_kernel install --sys-prefix >/dev/null

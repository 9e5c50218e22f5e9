#!/usr/bin/env bash
# Sets up a virtual environment in .venv with the package (its build runs Maven on jvm/) and its test tools,
# and installs the kotlin-llm kernelspec into it. Idempotent; needs Python >= 3.10 with pip, a JDK >= 17 and Maven.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
command -v java >/dev/null || [ -n "${JAVA_HOME:-}" ] || { echo "No Java found: install a JDK 17 or newer (e.g. apt-get install openjdk-17-jdk-headless)." >&2; exit 1; }
command -v mvn >/dev/null || { echo "No Maven found: install Maven 3.8 or newer (e.g. apt-get install maven)." >&2; exit 1; }
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[test]'
.venv/bin/python -m kotlin_llm_kernel install --sys-prefix >/dev/null
# The real libraries the library tests load (ktor, kotlinx-datetime, ...), fetched once from Maven Central so that
# the tests run offline.
.venv/bin/python tests/libraries.py

# The browser test drives Debian's chromium: Playwright's own browser download is not used. Installed with apt when
# missing and allowed (root, or sudo without a password); otherwise the test fails and says why.
chromium_found() { command -v chromium >/dev/null || command -v chromium-browser >/dev/null; }
if ! chromium_found; then
    if [ "$(id -u)" -eq 0 ]; then
        as_root=()
    elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
        as_root=(sudo -n)
    else
        as_root=(none)
    fi
    if [ "${as_root[0]:-}" = none ] || ! command -v apt-get >/dev/null; then
        echo "Notice: chromium is not installed and cannot be installed here (needs apt-get as root or passwordless sudo): the browser test will fail." >&2
    else
        echo "Installing chromium with apt-get (for the browser test)..."
        export DEBIAN_FRONTEND=noninteractive
        if ! { "${as_root[@]}" apt-get update -q >/dev/null \
                && "${as_root[@]}" apt-get install -y -q --no-install-recommends chromium >/dev/null; } \
                || ! chromium_found; then
            echo "Notice: apt-get could not install chromium: the browser test will fail." >&2
        fi
    fi
fi

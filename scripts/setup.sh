#!/usr/bin/env bash
# Sets up everything the tests need: .venv with the package, its test tools and the kotlin-llm kernelspec
# (scripts/setup-kernel.sh), the real libraries the library tests load, and the programs the tests drive that pip does
# not bring: Debian's chromium (the browser tests), tmux (the console test) and bubblewrap (the sandbox, with its
# dedicated user kotlin-llm-sandbox, which sandboxes started by root run as). Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-kernel.sh test
# The real libraries the library tests load (ktor, kotlinx-datetime, ...), fetched once from Maven Central so that
# the tests run offline.
.venv/bin/python tests/libraries.py
# The notebook integrations the tests build (com.example:fx, fxbroken, fxthrows), compiled by the JVM tests' builder
# from the engine build above into build/integration-fixtures-m2 (tests/integration_fixtures.py); skipped when built.
.venv/bin/python tests/integration_fixtures.py

# Installed with apt when missing and allowed (root, or sudo without a password); otherwise the tests that need them
# fail and say why. The browser test drives Debian's chromium: Playwright's own browser download is not used.
found() { command -v "$1" >/dev/null || { [ "$1" = chromium ] && command -v chromium-browser >/dev/null; }; }
package() { case "$1" in bwrap) echo bubblewrap ;; setfacl) echo acl ;; *) echo "$1" ;; esac; }
missing=()
for program in chromium tmux bwrap setfacl; do
    found "$program" || missing+=("$(package "$program")")
done
if [ "${#missing[@]}" -gt 0 ]; then
    if [ "$(id -u)" -eq 0 ]; then
        as_root=()
    elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
        as_root=(sudo -n)
    else
        as_root=(none)
    fi
    if [ "${as_root[0]:-}" = none ] || ! command -v apt-get >/dev/null; then
        echo "Notice: ${missing[*]} not installed and cannot be installed here (needs apt-get as root or passwordless sudo): the tests that drive them will fail." >&2
    else
        echo "Installing ${missing[*]} with apt-get (for the browser and console tests)..."
        export DEBIAN_FRONTEND=noninteractive
        "${as_root[@]}" apt-get update -q >/dev/null \
            && "${as_root[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null || true
        for program in chromium tmux bwrap setfacl; do
            found "$program" || echo "Notice: apt-get could not install $(package "$program"): the tests that drive it will fail." >&2
        done
    fi
fi

# The sandbox's dedicated user (kotlin_llm_kernel/sandbox/host.py): bwrap run by root is no sandbox, so a sandbox
# started by root runs as this unprivileged user.
sandbox_user=kotlin-llm-sandbox
if ! id "$sandbox_user" >/dev/null 2>&1; then
    if [ "$(id -u)" -eq 0 ]; then
        useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$sandbox_user"
    elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
        sudo -n useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$sandbox_user"
    else
        echo "Notice: the user $sandbox_user is missing (needed for sandboxes started by root): create it as root." >&2
    fi
fi

# The sandbox user reads the package and its venv from this checkout; a checkout under a private directory (mktemp's,
# a home) is out of its reach. Each directory on the way that it cannot pass gets an ACL entry letting that one user
# through (traverse only: it lists nothing there); nothing else changes for anyone else.
if id "$sandbox_user" >/dev/null 2>&1 && command -v setfacl >/dev/null \
    && ! runuser -u "$sandbox_user" -- test -r "$PWD/kotlin_llm_kernel/__init__.py" 2>/dev/null; then
    if [ "$(id -u)" -eq 0 ]; then
        dir="$PWD"
        while [ "$dir" != / ]; do
            runuser -u "$sandbox_user" -- test -x "$dir" 2>/dev/null || setfacl -m "u:$sandbox_user:--x" "$dir" || true
            dir="$(dirname "$dir")"
        done
    fi
    runuser -u "$sandbox_user" -- test -r "$PWD/kotlin_llm_kernel/__init__.py" 2>/dev/null \
        || echo "Notice: the user $sandbox_user cannot read this checkout ($PWD): the sandbox tests will fail; move it where that user can read it." >&2
fi

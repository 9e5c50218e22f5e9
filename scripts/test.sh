#!/usr/bin/env bash
# Runs every check: the Python unit tests first (a second; a failure ends the run at once), the lint, format and type
# checks of kotlin_llm_kernel/, the engine's JVM tests with Maven (on the default JDK, and again on a JDK 25, which
# scripts/find-jdk.sh finds) and all Python tests with pytest (real kernels over the real protocol; those on JDK 25
# fail without one). Exits non-zero on any failure, a missing JDK 25 included.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh || exit 1

echo "== Python unit tests (pytest -m 'not slow') =="
.venv/bin/python -m pytest tests -q -m "not slow" || { echo "unit tests failed (or none were collected)" >&2; exit 1; }

failed=0
echo "== ruff check kotlin_llm_kernel =="
.venv/bin/ruff check kotlin_llm_kernel || failed=1
echo "== ruff format --check kotlin_llm_kernel =="
.venv/bin/ruff format --check kotlin_llm_kernel || failed=1
echo "== mypy (kotlin_llm_kernel) =="
.venv/bin/mypy || failed=1

echo "== JVM tests (default JDK) =="
mvn -B -f jvm/pom.xml verify -Dengine.build.dir="$PWD/build/jvm-verify" || failed=1

# JDK 25 (no Thread.stop) is part of the check, not an option: without one this lane fails, after the others ran.
if jdk25=$(bash scripts/find-jdk.sh 25); then
    echo "== JVM tests (JDK 25 at $jdk25) =="
    JAVA_HOME="$jdk25" mvn -B -f jvm/pom.xml verify -Dengine.build.dir="$PWD/build/jvm-verify-25" || failed=1
else
    echo "== JVM tests on JDK 25: FAILED, no JDK 25 found (how to get one: above); the other checks go on ==" >&2
    failed=1
fi

echo "== Python tests =="
.venv/bin/python -m pytest tests "$@"
rc=$?
if [ "$rc" -eq 5 ]; then
    echo "pytest collected no tests: failing" >&2
    failed=1
elif [ "$rc" -ne 0 ]; then
    failed=1
fi
exit "$failed"

"""Every test runs with a private JUPYTER_PATH and Jupyter config dir; the kernelspecs of this checkout are installed
there before the first test outside tests/unit/ (those are marked slow) and its fixtures start a kernel."""

from __future__ import annotations

import functools
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from sandbox_escapes import SECRET, SECRET_NAME  # noqa: E402

# The sandbox's escape "an environment secret" (tests/test_sandbox_api.py) reads it without the sandbox in this
# process's JVM, whose environment is fixed when the first test starts it: it is set before any test runs.
os.environ[SECRET_NAME] = SECRET

from kotlin_llm_kernel.install import install, kernel_spec  # noqa: E402

_JUPYTER = Path(tempfile.mkdtemp(prefix="kotlin-llm-tests-"))
os.environ["JUPYTER_PATH"] = str(_JUPYTER / "share" / "jupyter")
os.environ["JUPYTER_CONFIG_DIR"] = str(_JUPYTER / "config")  # no user configuration leaks in
os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
# Class-data sharing archives go to a private cache, not the user's (the first kernel makes one there).
os.environ["KOTLIN_LLM_CACHE_DIR"] = str(_JUPYTER / "cache")
# No warm spares but where a test asks for them (tests/test_spares.py): each kernel a test starts would leave one
# behind, a JVM per kind of start; those a test asks for go to a private pool.
os.environ["KOTLIN_LLM_SPARES"] = "0"
os.environ["KOTLIN_LLM_SPARES_DIR"] = str(_JUPYTER / "spares")

_UNIT = Path(__file__).resolve().parent / "unit"


@functools.cache
def _install_kernelspecs() -> None:
    """The kernelspecs of this checkout into the private JUPYTER_PATH, once (with jupyter_client, which the unit
    tests need not have)."""
    install(prefix=str(_JUPYTER))
    signal_dir = _JUPYTER / "share" / "jupyter" / "kernels" / "kotlin-llm-signal"
    signal_dir.mkdir(parents=True, exist_ok=True)
    spec = kernel_spec() | {"interrupt_mode": "signal", "display_name": "Kotlin (LLM, signal interrupts)"}
    (signal_dir / "kernel.json").write_text(json.dumps(spec, indent=2), encoding="utf-8")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Installs the kernelspecs before the first test outside tests/unit/, ahead of its fixtures (a kernel)."""
    if _UNIT not in item.path.parents:
        _install_kernelspecs()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test outside tests/unit/ starts a kernel, a JVM or a build: ``pytest -m "not slow"`` leaves them out."""
    for item in items:
        if _UNIT not in item.path.parents:
            item.add_marker(pytest.mark.slow)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[pytest.TestReport]:
    """Keeps each phase's report on the test (``item.rep_call``), so a fixture can tell whether its test failed."""
    report: pytest.TestReport = yield
    setattr(item, f"rep_{report.when}", report)
    return report


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    shutil.rmtree(_JUPYTER, ignore_errors=True)


@pytest.fixture(scope="session")
def jupyter_dir() -> Path:
    return _JUPYTER


def _spares_of_this_run() -> list[psutil.Process]:
    """Warm spares started by this run's kernels (their JUPYTER_PATH is this run's), wherever their pool is."""
    found = []
    for process in psutil.process_iter():
        try:
            env = process.environ()
        except (psutil.Error, OSError):
            continue
        if env.get("KOTLIN_LLM_SPARE") == "1" and env.get("JUPYTER_PATH") == os.environ["JUPYTER_PATH"]:
            found.append(process)
    return found


@pytest.fixture(scope="session", autouse=True)
def no_spare_left_behind() -> Iterator[None]:
    """Fails the run when a test left a warm spare running (one JVM idling ten minutes per kind of start): a test that
    starts kernels with an environment of its own must keep the tests' spares switch (kernel_client.py,
    ``without_kernel_settings``), and a test that asks for spares stops them."""
    yield
    left = _spares_of_this_run()
    described = [" ".join(process.cmdline()) for process in left]
    for process in left:
        process.kill()
    psutil.wait_procs(left, timeout=30)
    assert described == [], f"warm spares left running by the tests: {described}"


@pytest.fixture(scope="module")
def kernel() -> Iterator[tuple[object, object]]:
    """A kotlin-llm kernel (message-mode interrupts) shared by the tests of a module, warmed up."""
    from kernel_client import running_kernel, warm_up

    with running_kernel() as (km, kc):
        warm_up(kc)
        yield km, kc


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    """Debian's chromium, headless, for the browser tests of a module (lab_harness.py)."""
    from lab_harness import launched_browser, require_chromium

    with launched_browser(require_chromium()) as browser:
        yield browser


@pytest.fixture(scope="module")
def library_kernel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    """A kernel of a module, warmed up, that resolves from the real libraries the setup fetched (:mod:`libraries`)
    only, offline, into an empty local repository of its own."""
    from kernel_client import running_kernel, warm_up
    from libraries import library_kernel_arguments

    with running_kernel(extra_arguments=library_kernel_arguments(tmp_path_factory.mktemp("local-repo"))) as (_, kc):
        warm_up(kc)
        yield kc


@pytest.fixture(scope="module", params=["message", "signal"])
def mode_kernel(request: pytest.FixtureRequest) -> Iterator[tuple[object, object]]:
    """A kernel of each interrupt mode (message, signal) shared by the tests of a module, with `val before = 7`."""
    from kernel_client import KERNEL, SIGNAL_KERNEL, execute, running_kernel, warm_up

    with running_kernel(KERNEL if request.param == "message" else SIGNAL_KERNEL) as (km, kc):
        warm_up(kc)
        assert execute(kc, "val before = 7").status == "ok"
        yield km, kc


#: The JDKs the fault tests run on: the default one, and a JDK 25 (no ``Thread.stop``), which must be installed.
FAULT_JDKS = ["default", "25"]


@pytest.fixture(scope="module", params=FAULT_JDKS)
def fault_kernel(request: pytest.FixtureRequest) -> Iterator[tuple[object, object]]:
    """A kernel on each JDK of :data:`FAULT_JDKS`, warmed up, with `val keep = 42`: a fault must leave it so. A module
    may give the kernels more arguments in ``FAULT_KERNEL_ARGUMENTS`` (e.g. a small heap)."""
    from kernel_client import execute, jdk_arguments, running_kernel, warm_up

    arguments = [*getattr(request.module, "FAULT_KERNEL_ARGUMENTS", []), *jdk_arguments(request.param)]
    with running_kernel(extra_arguments=arguments) as (km, kc):
        warm_up(kc)
        assert execute(kc, "val keep = 42").status == "ok"
        yield km, kc

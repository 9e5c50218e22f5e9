"""The class-data sharing archive made when the kernel is installed (issue 42): ``python -m kotlin_llm_kernel install``
makes the archive for the settings it installs, the installed kernel's first start maps it and starts no background
helper, a second install finds it, and ``--no-class-data-sharing`` leaves it to the first start. Real installs into
temporary prefixes, each with its own cache directory, and a real kernel."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager
from kotlin_llm_kernel.config.kernel_config import load
from kotlin_llm_kernel.jvm import cds
from kotlin_llm_kernel.jvm.java_runtime import find_java
from kotlin_llm_kernel.jvm.jvm_options import jvm_command

from kernel_client import STARTUP_TIMEOUT, execute, without_kernel_settings

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/maps")

#: A setting of the install that changes the archive's key (JVM options are part of it): the archive found must be
#: the one for the installed settings, not the default one.
SETTING = "--KotlinKernel.jvm_options=-Dkotlinllm.test.installed=1"
ARGUMENTS = 'java.lang.management.ManagementFactory.getRuntimeMXBean().inputArguments.joinToString("\\n")'
MAPPED_FILES = (
    'java.io.File("/proc/self/maps").readLines().map { it.substringAfterLast(" ") }.toSet().joinToString("\\n")'
)
INSTALL_TIMEOUT = 900  # only catches a hang: making the archive takes 10–20 s


@dataclass(frozen=True)
class Installed:
    prefix: Path
    cache: Path
    env: dict[str, str]
    output: str


def _env(cache: Path) -> dict[str, str]:
    env = without_kernel_settings()
    return env | {cds.ENV_CACHE_DIR: str(cache)}


def _install(prefix: Path, env: dict[str, str], *arguments: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "kotlin_llm_kernel", "install", "--prefix", str(prefix), *arguments]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=INSTALL_TIMEOUT)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def _archive_for(settings: list[str], cache: Path) -> Path:
    """Where a kernel started with ``settings`` looks for its archive (computed as the kernel does)."""
    request = load(settings).request.jvm
    java = find_java(request.java_home)
    classpath, options = jvm_command(request, java)
    return cache / cds.Archive.for_jvm(java, classpath, options).path.name


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    root = tmp_path_factory.mktemp("installed")
    env = _env(root / "cache")
    done = _install(root / "prefix", env, SETTING)
    return Installed(root / "prefix", root / "cache", env, done.stdout)


@pytest.fixture(scope="module")
def archive(installed: Installed) -> Path:
    return _archive_for([SETTING], installed.cache)


def test_install_makes_the_archive_for_the_installed_settings(installed: Installed, archive: Path) -> None:
    assert cds.Archive(archive).usable(), f"no archive at {archive}: {installed.output}"
    assert archive != _archive_for([], installed.cache), "the setting has its own archive"
    assert f"Class-data sharing archive: {archive} (made in " in installed.output
    assert sorted(installed.cache.iterdir()) == [archive], "nothing else: no lock, request or failure left"


@pytest.fixture(scope="module")
def first_start(installed: Installed) -> Iterator[tuple[str, set[str]]]:
    """The JVM's input arguments and mapped files in the first start of the installed kernelspec."""
    kernels = installed.prefix / "share" / "jupyter" / "kernels"
    manager = KernelManager(kernel_name="kotlin-llm", kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(kernels)]))
    manager.start_kernel(env=installed.env)
    client = manager.client()
    client.start_channels()
    try:
        client.wait_for_ready(timeout=STARTUP_TIMEOUT)
        assert execute(client, "1 + 1").result == "2"
        arguments = execute(client, ARGUMENTS).result or ""
        mapped = set((execute(client, MAPPED_FILES).result or "").split("\n"))
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=False)
    yield arguments, mapped


def test_the_first_start_of_the_installed_kernel_maps_it(
    installed: Installed, archive: Path, first_start: tuple[str, set[str]]
) -> None:
    arguments, mapped = first_start
    assert "-Dkotlinllm.test.installed=1" in arguments.split("\n"), "the installed settings were started"
    assert f"={archive}" in arguments, "the JVM was given the archive"
    assert str(archive) in mapped, "the JVM mapped the archive"
    assert sorted(installed.cache.iterdir()) == [archive], "no helper was started to make one in the background"


def test_a_second_install_finds_the_archive(installed: Installed, archive: Path) -> None:
    done = _install(installed.prefix, installed.env, SETTING)
    assert f"Class-data sharing archive: {archive} (already there)" in done.stdout


def test_no_class_data_sharing_leaves_the_archive_to_the_first_start(tmp_path: Path) -> None:
    done = _install(tmp_path / "prefix", _env(tmp_path / "cache"), "--no-class-data-sharing")
    assert "Installed the kotlin-llm kernelspec in" in done.stdout
    assert "archive" not in done.stdout + done.stderr
    assert not (tmp_path / "cache").exists()

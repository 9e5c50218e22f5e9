"""Start-up levers, with real kernels: the class-data sharing archive (made in the background, used by later
starts, can be turned off, a damaged one is harmless) and the early start reading the kernel's settings."""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from kotlin_llm_kernel.jvm import cds
from kotlin_llm_kernel.jvm.java_runtime import find_java
from kotlin_llm_kernel.jvm.jvm_options import JvmRequest, jvm_command

from kernel_client import execute, running_kernel, without_kernel_settings

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/maps")

ARGUMENTS = 'java.lang.management.ManagementFactory.getRuntimeMXBean().inputArguments.joinToString("\\n")'
MAPPED_FILES = (
    'java.io.File("/proc/self/maps").readLines().map { it.substringAfterLast(" ") }.toSet().joinToString("\\n")'
)
#: Only catches a helper that never finishes: making the archive typically takes a minute or two.
ARCHIVE_HANG_GUARD = 900


def _env(cache: Path, **extra: str) -> dict[str, str]:
    env = without_kernel_settings()
    return env | {cds.ENV_CACHE_DIR: str(cache)} | extra


def _archive_in(cache: Path) -> Path:
    """Where the kernel's default configuration keeps its archive (computed as the kernel does)."""
    java = find_java()
    classpath, options = jvm_command(JvmRequest(), java)
    path = cds.Archive.for_jvm(java, classpath, options).path
    return cache / path.name


def _start_facts(env: dict[str, str], extra_arguments: list[str] | None = None) -> tuple[str, set[str]]:
    """The JVM's input arguments and the files it has mapped, read by snippets of a fresh kernel."""
    with running_kernel(env=env, extra_arguments=extra_arguments) as (_km, kc):
        assert execute(kc, "1 + 1").result == "2"
        arguments = execute(kc, ARGUMENTS).result or ""
        mapped = set((execute(kc, MAPPED_FILES).result or "").split("\n"))
    return arguments, mapped


@pytest.fixture(scope="module")
def made_archive(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A cache directory in which a first kernel start made the archive in the background."""
    cache = tmp_path_factory.mktemp("cds-cache")
    arguments, _ = _start_facts(_env(cache))
    assert str(cache) not in arguments, "the first start has no archive yet"
    archive = _archive_in(cache)
    # polled: a detached process makes it, which the test cannot wait on; it is done when its lock is gone
    deadline = time.monotonic() + ARCHIVE_HANG_GUARD
    while not (archive.exists() and not archive.with_name(archive.name + ".lock").exists()):
        failed = archive.with_name(archive.name + ".failed")
        assert not failed.exists(), failed.read_text(encoding="utf-8")
        if time.monotonic() > deadline:
            pytest.fail(f"no archive after {ARCHIVE_HANG_GUARD} s: {sorted(cache.iterdir())}")
        time.sleep(1)
    yield archive


def test_a_later_start_uses_the_archive(made_archive: Path) -> None:
    arguments, mapped = _start_facts(_env(made_archive.parent))
    assert f"={made_archive}" in arguments, "the JVM was given the archive"
    assert str(made_archive) in mapped, "the JVM mapped the archive"


def test_the_archive_can_be_turned_off(made_archive: Path) -> None:
    arguments, mapped = _start_facts(_env(made_archive.parent, **{cds.ENV_CDS: "0"}))
    assert str(made_archive) not in arguments
    assert str(made_archive) not in mapped


def test_the_setting_turns_it_off_and_nothing_is_made(tmp_path: Path) -> None:
    arguments, _ = _start_facts(_env(tmp_path), ["--KotlinKernel.class_data_sharing=False"])
    assert str(tmp_path) not in arguments
    assert not list(tmp_path.iterdir()), "no archive is made when sharing is off"


def test_a_damaged_archive_does_not_break_a_start(tmp_path: Path) -> None:
    archive = _archive_in(tmp_path)
    archive.parent.mkdir(parents=True, exist_ok=True)
    magic = cds.STATIC_MAGIC if archive.suffix == ".aot" else cds.DYNAMIC_MAGIC
    archive.write_bytes(magic + os.urandom(200_000))  # looks like one, is not
    arguments, mapped = _start_facts(_env(tmp_path))
    assert f"={archive}" in arguments, "it was offered to the JVM"
    assert str(archive) not in mapped, "and the JVM started without it"


def test_config_file_settings_reach_the_early_started_jvm(tmp_path: Path) -> None:
    config = {"KotlinKernel": {"jvm_options": ["-Dkotlinllm.test.origin=config-file"]}}
    (tmp_path / "kotlin_llm_kernel_config.json").write_text(json.dumps(config), encoding="utf-8")
    env = _env(tmp_path / "cache", JUPYTER_CONFIG_DIR=str(tmp_path), **{cds.ENV_CDS: "0"})
    with running_kernel(env=env, extra_arguments=['--KotlinKernel.properties={"answer": 42}']) as (_km, kc):
        assert execute(kc, 'System.getProperty("kotlinllm.test.origin")').result == "config-file"
        assert execute(kc, "answer + 1").result == "43"


def test_a_start_marks_its_archive_used(made_archive: Path) -> None:
    long_ago = time.time() - 10 * 24 * 60 * 60
    os.utime(made_archive, (long_ago, long_ago))
    arguments, _ = _start_facts(_env(made_archive.parent))
    assert str(made_archive) in arguments
    assert made_archive.stat().st_mtime > long_ago + 60

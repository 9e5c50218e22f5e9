"""The JVM's heap limit (kotlin_llm_kernel.jvm.heap_limit): sizes, the gateway's KERNEL_MEMORY, a container's limit read
from a cgroup file, the setting, and the user's own JVM options, without starting a JVM."""

from __future__ import annotations

from pathlib import Path

import pytest
from kotlin_llm_kernel.config.kernel_config import load
from kotlin_llm_kernel.jvm.heap_limit import (
    DEFAULT_HEAP,
    ENV_KERNEL_MEMORY,
    GB,
    MB,
    HeapSizeError,
    container_limit,
    heap_options,
    parse_size,
)
from kotlin_llm_kernel.jvm.java_runtime import JavaRuntime
from kotlin_llm_kernel.jvm.jvm_options import ENV_ENGINE_JARS, ENV_JVM_OPTIONS, JvmRequest, jvm_command
from traitlets import TraitError

BIG_MACHINE = 64 * GB


def cgroup(tmp_path: Path, content: str) -> list[Path]:
    file = tmp_path / "memory.max"
    file.write_text(content + "\n")
    return [file]


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("2g", 2 * GB),  # the JVM's letters: binary
        ("1536m", 1536 * MB),
        ("512k", 512 * 1024),
        ("2Gi", 2 * GB),  # Kubernetes' quantities
        ("123Mi", 128_974_848),
        ("129M", 129_000_000),
        ("2G", 2_000_000_000),
        ("129e6", 129_000_000),
        ("128974848", 128_974_848),
        ("0.5Gi", 512 * MB),
        ("2GB", 2 * GB),
        (" 3 g ", 3 * GB),
    ],
)
def test_sizes_are_read_as_the_jvm_and_kubernetes_write_them(text: str, size: int) -> None:
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["", "lots", "2x", "-1g", "g", "2 Gig"])
def test_other_sizes_are_refused_with_examples(text: str) -> None:
    with pytest.raises(HeapSizeError, match=r"e\.g\. 2g"):
        parse_size(text)


def test_by_default_the_heap_is_2_gb_on_a_big_machine_and_a_quarter_of_a_small_one() -> None:
    assert heap_options("", [], {}, [], BIG_MACHINE) == [f"-Xmx{DEFAULT_HEAP // MB}m"]
    assert heap_options("", [], {}, [], 4 * GB) == ["-Xmx1024m"]


@pytest.mark.parametrize(
    ("kernel_memory", "heap"),
    [("4Gi", "-Xmx3584m"), ("1Gi", "-Xmx512m"), ("3000M", "-Xmx2349m"), ("8589934592", "-Xmx7680m")],
)
def test_the_gateway_s_kernel_memory_leaves_room_for_the_jvm_beside_the_heap(kernel_memory: str, heap: str) -> None:
    assert heap_options("", [], {ENV_KERNEL_MEMORY: kernel_memory}, [], BIG_MACHINE) == [heap]


def test_a_small_kernel_memory_still_gets_a_heap_the_compiler_runs_in(tmp_path: Path) -> None:
    assert heap_options("", [], {ENV_KERNEL_MEMORY: "100Mi"}, [], BIG_MACHINE) == ["-Xmx128m"]
    assert heap_options("", [], {}, cgroup(tmp_path, str(200 * MB)), BIG_MACHINE) == ["-Xmx128m"]


def test_a_malformed_kernel_memory_is_ignored() -> None:
    assert heap_options("", [], {ENV_KERNEL_MEMORY: "lots"}, [], BIG_MACHINE) == ["-Xmx2048m"]


def test_a_container_s_limit_bounds_the_heap(tmp_path: Path) -> None:
    assert heap_options("", [], {}, cgroup(tmp_path, str(GB)), BIG_MACHINE) == ["-Xmx512m"]
    assert heap_options("", [], {ENV_KERNEL_MEMORY: "8Gi"}, cgroup(tmp_path, str(3 * GB)), BIG_MACHINE) == ["-Xmx2560m"]
    # a big container (several kernels may share it) keeps the default
    assert heap_options("", [], {}, cgroup(tmp_path, str(32 * GB)), BIG_MACHINE) == ["-Xmx2048m"]


def test_cgroup_files_without_a_limit_say_so(tmp_path: Path) -> None:
    assert container_limit(cgroup(tmp_path, "max")) is None  # cgroup v2
    assert container_limit(cgroup(tmp_path, "9223372036854771712")) is None  # cgroup v1's "unlimited"
    assert container_limit([tmp_path / "missing", *cgroup(tmp_path, "1073741824")]) == GB
    assert container_limit([tmp_path / "missing"]) is None


def test_the_setting_wins_over_the_gateway_and_the_container(tmp_path: Path) -> None:
    environ = {ENV_KERNEL_MEMORY: "1Gi"}
    assert heap_options("3g", [], environ, cgroup(tmp_path, str(GB)), BIG_MACHINE) == ["-Xmx3072m"]


@pytest.mark.parametrize("option", ["-Xmx6g", "-XX:MaxHeapSize=6442450944", "-XX:MaxRAMPercentage=50", "-XX:MaxRAM=8g"])
def test_the_user_s_heap_options_win_over_everything(option: str) -> None:
    assert heap_options("3g", ["-Xms96m", option], {ENV_KERNEL_MEMORY: "1Gi"}, [], BIG_MACHINE) == []
    assert heap_options("", ["-Xms96m"], {}, [], BIG_MACHINE) == ["-Xmx2048m"], "-Xms is not a limit"


def test_the_command_line_has_the_limit_unless_the_user_s_options_set_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "kotlin-llm-engine-0.1.0.jar").write_bytes(b"")
    monkeypatch.setenv(ENV_ENGINE_JARS, str(tmp_path))
    monkeypatch.delenv(ENV_JVM_OPTIONS, raising=False)
    java = JavaRuntime(home=Path("/jdk"), version=17, libjvm=Path("/jdk/lib/server/libjvm.so"))

    def heap(request: JvmRequest) -> list[str]:
        return [o for o in jvm_command(request, java)[1] if o.startswith(("-Xmx", "-XX:MaxRAM"))]

    assert heap(JvmRequest(max_heap="3g")) == ["-Xmx3072m"]
    assert heap(JvmRequest(max_heap="3g", options=("-Xmx5g",))) == ["-Xmx5g"]
    monkeypatch.setenv(ENV_JVM_OPTIONS, "-XX:MaxRAMPercentage=60")
    assert heap(JvmRequest(max_heap="3g")) == ["-XX:MaxRAMPercentage=60"]


def test_the_setting_reaches_the_request_and_malformed_values_are_refused() -> None:
    assert load(["--KotlinKernel.max_heap=3g"]).request.jvm.max_heap == "3g"
    with pytest.raises(TraitError, match="not a memory size"):
        load(["--KotlinKernel.max_heap=lots"])
    with pytest.raises(TraitError, match="128 MB"):
        load(["--KotlinKernel.max_heap=64m"])

"""The heap limit of real kernels: the one a Jupyter gateway asks for (KERNEL_MEMORY), the setting max_heap winning
over it, and an OutOfMemoryError reported with the limit while the session keeps its values."""

from __future__ import annotations

from kotlin_llm_kernel.jvm.heap_limit import ENV_KERNEL_MEMORY, MB

from kernel_client import execute, running_kernel, without_kernel_settings

MAX_MEMORY_MB = "Runtime.getRuntime().maxMemory() / (1024 * 1024)"


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in without_kernel_settings().items() if k != ENV_KERNEL_MEMORY}
    return env | extra


def _assert_heap_near(reported: str | None, xmx_mb: int) -> None:
    # Runtime.maxMemory leaves out one survivor space of the young generation (-Xmn24m): a few MB under -Xmx
    assert reported is not None
    assert xmx_mb - 16 <= int(reported) <= xmx_mb, reported


def test_a_gateway_s_kernel_memory_sets_the_heap_and_an_out_of_memory_error_says_it() -> None:
    with running_kernel(env=_env(**{ENV_KERNEL_MEMORY: "1Gi"})) as (_km, kc):
        heap = execute(kc, MAX_MEMORY_MB).result
        _assert_heap_near(heap, (1024 * MB - 512 * MB) // MB)
        assert execute(kc, "val keep = 42").content["status"] == "ok"
        failed = execute(kc, "val big = ArrayList<LongArray>()\nrepeat(100) { big.add(LongArray(10_000_000)) }")
        assert failed.error is not None
        assert failed.error["ename"] == "java.lang.OutOfMemoryError", failed.error
        text = "\n".join(failed.error["traceback"])
        assert f"hint: the heap limit is {heap} MB; raise it with the kernel setting max_heap" in text, text
        assert "big.clear()" in text
        assert execute(kc, "keep").result == "42"


def test_the_setting_wins_over_the_gateway_s_kernel_memory() -> None:
    arguments = ["--KotlinKernel.max_heap=768m"]
    with running_kernel(env=_env(**{ENV_KERNEL_MEMORY: "4Gi"}), extra_arguments=arguments) as (_km, kc):
        _assert_heap_near(execute(kc, MAX_MEMORY_MB).result, 768)

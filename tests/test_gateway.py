"""A warm pool through Jupyter Kernel Gateway (docs/pool.md): a private gateway on 127.0.0.1 prespawns three
kotlin-llm kernels, which are driven concurrently over its REST API and websocket channels as an agent would;
stopping the gateway leaves no kernel process behind."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from typing import Any, TypeVar

import nbformat
import psutil
import pytest
import websocket
from jupyter_server.gateway.gateway_client import GatewayClient
from jupyter_server.gateway.managers import GatewayKernelManager
from nbclient import NotebookClient

from gateway_harness import CELL_TIMEOUT, Gateway, KernelChannels, message, processes_mentioning, running_gateway
from kernel_client import Cell

POOL = 3
ARGUMENTS = [
    f"--KernelGatewayApp.prespawn_count={POOL}",
    "--KernelGatewayApp.default_kernel_name=kotlin-llm",
    f"--KernelGatewayApp.max_kernels={POOL}",
    "--JupyterWebsocketPersonality.list_kernels=True",
]
#: Bounds that only catch hangs: a cell takes well under a second on a warm kernel.
INTERRUPT_HANG_GUARD = 30
PROCESS_EXIT_GUARD = 60

T = TypeVar("T")


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gateway]:
    with running_gateway(tmp_path_factory.mktemp("gateway"), ARGUMENTS) as started:
        started.log.wait_for(r"Kernel started: [0-9a-f-]{36}", count=POOL)
        yield started


@pytest.fixture(scope="module")
def pool(gateway: Gateway) -> list[str]:
    """The ids of the prespawned kernels, in the order the gateway started them."""
    return [m.group(1) for m in gateway.log.wait_for(r"Kernel started: ([0-9a-f-]{36})", count=POOL)]


def run(work: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(work)


async def on_each(gateway: Gateway, kernels: list[str], work: Callable[[int, KernelChannels], Awaitable[T]]) -> list[T]:
    """``work(i, channels)`` on each kernel at once, each over its own websocket."""

    async def one(index: int, kernel_id: str) -> T:
        channels = await gateway.channels(kernel_id)
        try:
            return await work(index, channels)
        finally:
            channels.close()

    return list(await asyncio.gather(*(one(i, k) for i, k in enumerate(kernels))))


def snippet(cell: Cell) -> str:
    return f"snippet{cell.content['execution_count']}.kts"


@pytest.mark.timeout(400)
def test_the_pool_is_prespawned_and_bounded(gateway: Gateway, pool: list[str]) -> None:
    async def check() -> None:
        status, _ = await gateway.api("GET", "kernels", token="wrong")
        assert status == 401
        status, listed = await gateway.api("GET", "kernels")
        assert status == 200
        assert sorted(k["id"] for k in listed) == sorted(pool)
        assert {k["name"] for k in listed} == {"kotlin-llm"}
        status, refused = await gateway.api("POST", "kernels", {"name": "kotlin-llm"})
        assert (status, refused["message"]) == (403, "Resource Limit"), "max_kernels is reached"

    run(check())
    for kernel_id in pool:
        assert "kotlin_llm_kernel" in gateway.kernel_process(kernel_id).cmdline()


@pytest.mark.timeout(300)
def test_streams_in_order_and_values_on_three_kernels_at_once(gateway: Gateway, pool: list[str]) -> None:
    async def work(i: int, channels: KernelChannels) -> Cell:
        return await channels.execute(
            f'println("out 1 of {i}")\nSystem.err.println("err 1 of {i}")\n'
            f'println("out 2 of {i}")\nSystem.err.println("err 2 of {i}")\n"kernel " + {i}'
        )

    cells = run(on_each(gateway, pool, work))
    for i, cell in enumerate(cells):
        assert cell.status == "ok", cell.content
        streams = [(m["content"]["name"], m["content"]["text"]) for m in cell.outputs("stream")]
        assert streams == [
            ("stdout", f"out 1 of {i}\n"),
            ("stderr", f"err 1 of {i}\n"),
            ("stdout", f"out 2 of {i}\n"),
            ("stderr", f"err 2 of {i}\n"),
        ]
        assert cell.result == f"kernel {i}"
        assert cell.content["execution_count"] == 1, "a pooled kernel is unused"
        assert cell.kotlin_llm["snippet"] == "snippet1.kts"


@pytest.mark.timeout(300)
def test_a_compile_error_is_located(gateway: Gateway, pool: list[str]) -> None:
    async def work(i: int, channels: KernelChannels) -> Cell:
        return await channels.execute("asdf\nprintln(foo)")

    for cell in run(on_each(gateway, pool, work)):
        name = snippet(cell)
        assert cell.status == "error"
        assert cell.content["ename"] == "CompilationError"
        assert cell.content["evalue"] == f"{name}:1:1: error: Unresolved reference 'asdf'."
        assert "\n".join(cell.content["traceback"]) == (
            f"{name}:1:1: error: Unresolved reference 'asdf'.\n  | <error>asdf</error>\n\n"
            f"{name}:2:9: error: Unresolved reference 'foo'.\n  | println(<error>foo</error>)"
        )
        assert [m["content"] for m in cell.outputs("error")] == [
            {k: cell.content[k] for k in ("ename", "evalue", "traceback")}
        ]


@pytest.mark.timeout(300)
def test_a_runtime_error_keeps_the_session(gateway: Gateway, pool: list[str]) -> None:
    async def work(i: int, channels: KernelChannels) -> tuple[Cell, Cell]:
        failed = await channels.execute(
            f'val kept = {i}\nlistOf(3, -1).forEach {{ require(it > 0) {{ "value must be positive" }} }}'
        )
        return failed, await channels.execute("kept")

    for i, (failed, kept) in enumerate(run(on_each(gateway, pool, work))):
        assert failed.content["ename"] == "java.lang.IllegalArgumentException"
        assert failed.content["evalue"] == "value must be positive"
        assert failed.content["traceback"][0] == "java.lang.IllegalArgumentException: value must be positive"
        assert f"({snippet(failed)}:2)" in "\n".join(failed.content["traceback"])
        assert failed.kotlin_llm["phase"] == "EVALUATION"
        assert kept.result == str(i)


@pytest.mark.timeout(300)
def test_interrupt_over_rest_keeps_the_session(gateway: Gateway, pool: list[str]) -> None:
    async def work(i: int, channels: KernelChannels) -> tuple[Cell, Cell, int]:
        assert (await channels.execute(f"val before = {i}")).status == "ok"
        msg_id = await channels.submit('println("started")\nThread.sleep(60_000)\n"not interrupted"')
        seen = await channels.read_until(msg_id, "started")
        status, _ = await gateway.api("POST", f"kernels/{pool[i]}/interrupt")
        interrupted = await channels.collect(msg_id, timeout=INTERRUPT_HANG_GUARD, seen=seen)
        return interrupted, await channels.execute("before"), status

    for i, (interrupted, before, status) in enumerate(run(on_each(gateway, pool, work))):
        assert status == 204
        assert interrupted.status == "error", interrupted.content
        assert interrupted.content["ename"] == "java.lang.InterruptedException", interrupted.content
        assert interrupted.kotlin_llm["interrupted"] is True
        assert interrupted.stdout == "started\n"
        assert before.result == str(i), "the session keeps its state"


@pytest.mark.timeout(120)
def test_a_synchronous_websocket_client_works_too(gateway: Gateway, pool: list[str]) -> None:
    """websocket-client (a dependency of jupyter_server), as docs/pool.md shows it: same frames, no event loop."""
    url = gateway.url.replace("http://", "ws://", 1) + f"/api/kernels/{pool[2]}/channels"
    connection = websocket.create_connection(url, header=[f"Authorization: token {gateway.token}"], timeout=60)
    try:
        request = message("execute_request", {"code": "val half = 21\nhalf * 2", "silent": False, "allow_stdin": False})
        connection.send(json.dumps(request))
        results, reply, idle = [], None, False
        while reply is None or not idle:  # the reply and the outputs come on different channels, in either order
            msg = json.loads(connection.recv())
            if msg["parent_header"].get("msg_id") != request["header"]["msg_id"]:
                continue
            if msg["channel"] == "shell":
                reply = msg["content"]
            elif msg["msg_type"] == "status":
                idle = msg["content"]["execution_state"] == "idle"
            elif msg["msg_type"] == "execute_result":
                results.append(msg["content"]["data"]["text/plain"])
    finally:
        connection.close()
    assert reply["status"] == "ok"
    assert results == ["42"]


@pytest.mark.timeout(300)
def test_restart_clears_the_state_of_that_kernel_only(gateway: Gateway, pool: list[str]) -> None:
    restarted, other = pool[0], pool[1]
    old = gateway.kernel_process(restarted)

    async def declare(kernel_id: str, code: str) -> None:
        channels = await gateway.channels(kernel_id)
        try:
            assert (await channels.execute(code)).status == "ok"
        finally:
            channels.close()

    async def restart() -> tuple[int, Any, Cell, Cell, Cell]:
        await declare(restarted, "val lost = 0")
        await declare(other, "val kept = 1")
        status, model = await gateway.api("POST", f"kernels/{restarted}/restart")
        channels = await gateway.channels(restarted)
        try:
            gone, works = await channels.execute("lost"), await channels.execute("1 + 1")
        finally:
            channels.close()
        channels = await gateway.channels(other)
        try:
            kept = await channels.execute("kept")
        finally:
            channels.close()
        return status, model, gone, works, kept

    status, model, gone, works, kept = run(restart())
    assert (status, model["id"]) == (200, restarted)
    assert gone.content["ename"] == "CompilationError"
    assert gone.content["evalue"] == f"{snippet(gone)}:1:1: error: Unresolved reference 'lost'."
    assert gone.content["execution_count"] == 1, "the restarted kernel counts from 1 again"
    assert works.result == "2"
    assert kept.result == "1", "the other kernels keep their state"
    psutil.wait_procs([old], timeout=PROCESS_EXIT_GUARD)
    assert not old.is_running(), "the kernel's old process ended"
    assert gateway.kernel_process(restarted).pid != old.pid


@pytest.mark.timeout(400)
def test_shutdown_ends_the_kernel_and_frees_its_place(gateway: Gateway, pool: list[str]) -> None:
    ended = pool[1]
    process = gateway.kernel_process(ended)

    async def shut_down_and_start_another() -> tuple[int, list[str], int, psutil.Process, Cell, int]:
        deleted, _ = await gateway.api("DELETE", f"kernels/{ended}")
        _, listed = await gateway.api("GET", "kernels")
        created, model = await gateway.api("POST", "kernels", {"name": "kotlin-llm"})
        channels = await gateway.channels(model["id"])
        try:
            cell = await channels.execute("6 * 7")
        finally:
            channels.close()
        fresh = gateway.kernel_process(model["id"])
        fresh_deleted, _ = await gateway.api("DELETE", f"kernels/{model['id']}")
        return deleted, [k["id"] for k in listed], created, fresh, cell, fresh_deleted

    deleted, listed, created, fresh, cell, fresh_deleted = run(shut_down_and_start_another())
    assert deleted == 204
    assert sorted(listed) == sorted(k for k in pool if k != ended)
    assert created == 201, "below max_kernels again, a new kernel starts"
    assert cell.result == "42"
    assert cell.content["execution_count"] == 1
    assert fresh_deleted == 204
    _, alive = psutil.wait_procs([process, fresh], timeout=PROCESS_EXIT_GUARD)
    assert alive == []


@pytest.mark.timeout(300)
def test_nbclient_runs_a_notebook_on_a_kernel_of_the_gateway(
    gateway: Gateway, pool: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """nbclient with jupyter_server's GatewayKernelManager, as docs/pool.md shows it: attached to a kernel of the
    gateway by its id (here a new one, so that the pool's count is unchanged), the token in the websocket URL, since
    GatewayKernelClient sends no header on its websocket; nbclient shuts the kernel down at the end."""
    _, before = run(gateway.api("GET", "kernels"))
    created, model = run(gateway.api("POST", "kernels", {"name": "kotlin-llm"}))
    assert created == 201
    kernel_id = model["id"]
    process = gateway.kernel_process(kernel_id)
    monkeypatch.setenv("JUPYTER_GATEWAY_URL", gateway.url)
    monkeypatch.setenv("JUPYTER_GATEWAY_AUTH_TOKEN", gateway.token)
    # GatewayClient writes this variable into the environment on first use: set here, it is restored after the test.
    monkeypatch.setenv("KERNEL_LAUNCH_TIMEOUT", str(CELL_TIMEOUT))
    spec = {"name": "kotlin-llm", "display_name": "Kotlin (LLM)", "language": "kotlin"}
    notebook = nbformat.v4.new_notebook(metadata={"kernelspec": spec})
    notebook.cells = [nbformat.v4.new_code_cell(code) for code in ('println("from nbclient")', "6 * 7", "asdf")]
    GatewayClient.clear_instance()
    try:
        GatewayClient.instance().ws_url = (
            gateway.url.replace("http://", "ws://", 1) + f"/api/kernels/{kernel_id}/channels?token={gateway.token}&"
        )
        client = NotebookClient(
            notebook, kernel_manager_class=GatewayKernelManager, allow_errors=True, timeout=CELL_TIMEOUT
        )
        client.execute(kernel_id=kernel_id)
    finally:
        GatewayClient.clear_instance()
    error = "snippet3.kts:1:1: error: Unresolved reference 'asdf'."
    assert [cell.outputs for cell in notebook.cells] == [
        [{"output_type": "stream", "name": "stdout", "text": "from nbclient\n"}],
        [{"output_type": "execute_result", "metadata": {}, "data": {"text/plain": "42"}, "execution_count": 2}],
        [
            {
                "output_type": "error",
                "ename": "CompilationError",
                "evalue": error,
                "traceback": [error, "  | <error>asdf</error>"],
            }
        ],
    ]
    assert [cell.execution_count for cell in notebook.cells] == [1, 2, 3]
    _, after = run(gateway.api("GET", "kernels"))
    assert sorted(k["id"] for k in after) == sorted(k["id"] for k in before), "nbclient shut its kernel down"
    _, alive = psutil.wait_procs([process], timeout=PROCESS_EXIT_GUARD)
    assert alive == []


@pytest.mark.timeout(300)
def test_stopping_the_gateway_leaves_nothing_running(gateway: Gateway, pool: list[str]) -> None:
    kernels = [gateway.kernel_process(k) for k in (pool[0], pool[2])]
    assert all(p.is_running() for p in kernels)
    stopped = gateway.stop()
    assert stopped.killed == [], "everything ended by itself"
    assert stopped.status == 0
    assert all(not p.is_running() for p in gateway.started.values())
    assert processes_mentioning(str(gateway.runtime_dir)) == [], "no kernel of this gateway is left"
    assert len(gateway.log.matches(r"Kernel shutdown: ")) >= 2


#: Seconds without a message after which the culling gateway shuts a kernel down, and how often it checks.
CULL_TIMEOUT, CULL_INTERVAL = 3, 1


@pytest.mark.timeout(300)
def test_an_unused_prespawned_kernel_is_culled_and_not_replaced(tmp_path_factory: pytest.TempPathFactory) -> None:
    arguments = [
        "--KernelGatewayApp.prespawn_count=1",
        "--KernelGatewayApp.default_kernel_name=kotlin-llm",
        "--JupyterWebsocketPersonality.list_kernels=True",
        f"--MappingKernelManager.cull_idle_timeout={CULL_TIMEOUT}",
        f"--MappingKernelManager.cull_interval={CULL_INTERVAL}",
    ]
    with running_gateway(tmp_path_factory.mktemp("culling"), arguments) as culling:
        kernel_id = culling.log.wait_for(r"Kernel started: ([0-9a-f-]{36})")[0].group(1)
        process = culling.kernel_process(kernel_id)
        [culled] = culling.log.wait_for(
            rf"Culling '\w+' kernel 'kotlin-llm' \({kernel_id}\) with 0 connections due to (\d+) seconds of inactivity"
        )
        assert int(culled.group(1)) >= CULL_TIMEOUT
        _, alive = psutil.wait_procs([process], timeout=PROCESS_EXIT_GUARD)
        assert alive == []
        assert psutil.Process(culling.process.pid).children() == [], "no kernel took its place"
        stopped = culling.stop()
        assert (stopped.status, stopped.killed) == (0, [])

"""The pool directory's claim (kotlin_llm_kernel.spares.pool): of many claimers of one spare exactly one wins; a spare
of another signature or whose process is gone is never handed out. The "kernels" here are real processes."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from kotlin_llm_kernel.config.spares import SpareSettings
from kotlin_llm_kernel.spares import processes
from kotlin_llm_kernel.spares.pool import Pool, Record
from kotlin_llm_kernel.spares.request import SpareRequest
from kotlin_llm_kernel.spares.spawn import ensure_spare


@pytest.fixture
def sleeper() -> Iterator[subprocess.Popen[bytes]]:
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True)
    yield process
    process.kill()
    process.wait()


def _publish(pool: Pool, pid: int, signature: str = "s1") -> str:
    spare_id = pool.new_id()
    data = {"id": spare_id, "signature": signature, "pid": pid, "start": processes.start_time(pid)}
    pool.write("ready", data | {"socket": str(pool.socket_path(spare_id))})
    return spare_id


def test_of_many_claimers_one_wins(tmp_path: Path, sleeper: subprocess.Popen[bytes]) -> None:
    pool = Pool(tmp_path)
    pool.prepare()
    spare_id = _publish(pool, sleeper.pid)
    won: list[Record | None] = []
    threads = [threading.Thread(target=lambda: won.append(pool.claim("s1", os.getpid()))) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    winners = [record for record in won if record is not None]
    assert [w.id for w in winners] == [spare_id]
    assert winners[0].data["owner_pid"] == os.getpid() and winners[0].state == "claimed"
    assert [r.id for r in pool.records("claimed")] == [spare_id] and pool.records("ready") == []


def test_another_signature_is_not_handed_out(tmp_path: Path, sleeper: subprocess.Popen[bytes]) -> None:
    pool = Pool(tmp_path)
    pool.prepare()
    _publish(pool, sleeper.pid, "other")
    assert pool.claim("s1", os.getpid()) is None
    assert len(pool.records("ready")) == 1


def test_a_spare_whose_process_is_gone_is_dropped(tmp_path: Path, sleeper: subprocess.Popen[bytes]) -> None:
    pool = Pool(tmp_path)
    pool.prepare()
    sleeper.kill()
    sleeper.wait()
    _publish(pool, sleeper.pid)
    assert pool.claim("s1", os.getpid()) is None
    assert pool.records() == []


def test_a_zombie_or_a_reused_pid_is_not_running(sleeper: subprocess.Popen[bytes]) -> None:
    started = processes.start_time(sleeper.pid)
    assert processes.running(sleeper.pid, started)
    assert not processes.running(sleeper.pid, (started or 0) + 1), "another process with that pid"
    sleeper.kill()  # not reaped: a zombie, which answers kill(pid, 0)
    deadline = time.monotonic() + 30
    while processes.running(sleeper.pid, started) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert processes.start_time(sleeper.pid) == started, "still there, as a zombie"
    assert not processes.running(sleeper.pid, started)


def test_a_missing_pool_has_nothing_to_claim(tmp_path: Path) -> None:
    assert Pool(tmp_path / "none").claim("s1", os.getpid()) is None


def test_a_spare_retiring_and_a_claimer_never_both_win(tmp_path: Path, sleeper: subprocess.Popen[bytes]) -> None:
    pool = Pool(tmp_path)
    pool.prepare()
    for _ in range(20):
        spare_id = _publish(pool, sleeper.pid)
        outcomes: list[object] = []
        threads = [
            threading.Thread(target=lambda said=outcomes: said.append(pool.claim("s1", os.getpid()))),
            threading.Thread(target=lambda said=outcomes, id_=spare_id: said.append(pool.retire(id_))),
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        claimed = [o for o in outcomes if isinstance(o, Record)]
        retired = [o for o in outcomes if o is True]
        assert len(claimed) + len(retired) == 1, outcomes
        assert pool.records("ready") == []
        pool.remove(spare_id)


def test_live_records_drop_the_spares_that_are_gone(tmp_path: Path, sleeper: subprocess.Popen[bytes]) -> None:
    pool = Pool(tmp_path)
    pool.prepare()
    alive = _publish(pool, sleeper.pid)
    gone = _publish(pool, 2**22 + 1)  # above the highest pid Linux allows (2**22): no such process
    pool.log_file(gone).write_text("why it died", encoding="utf-8")
    assert [r.id for r in pool.live()] == [alive]
    assert [r.id for r in pool.records()] == [alive]
    assert pool.log_file(gone).read_text(encoding="utf-8") == "why it died", "kept: it tells why a spare failed"


def test_no_spare_is_started_where_its_socket_could_not_be_bound(tmp_path: Path) -> None:
    deep = Pool(tmp_path / ("d" * 120))
    request = SpareRequest.of(["python", "-m", "kotlin_llm_kernel", "-f", "{connection_file}"], {}, tmp_path)
    assert ensure_spare(deep, request, SpareSettings(size=1), delay=0) is None
    assert not deep.directory.exists()

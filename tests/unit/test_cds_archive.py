"""Class-data sharing archives (kotlin_llm_kernel.jvm.cds): naming, keys, locks and pruning, on temporary
directories."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from kotlin_llm_kernel.jvm import cds, cds_archive
from kotlin_llm_kernel.jvm.java_runtime import JavaRuntime


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(cds_archive.ENV_CACHE_DIR, str(tmp_path / "cache"))
    monkeypatch.delenv(cds.ENV_CDS, raising=False)
    return tmp_path / "cache"


def fake_java(root: Path, version: int) -> JavaRuntime:
    """A Java home as far as the archive key reads it: its release file and JVM library."""
    home = root / f"jdk{version}"
    (home / "lib" / "server").mkdir(parents=True, exist_ok=True)
    (home / "lib" / "server" / "libjvm.so").write_bytes(b"jvm")
    (home / "release").write_text(f'JAVA_VERSION="{version}"\n', encoding="utf-8")
    return JavaRuntime(home=home, version=version, libjvm=home / "lib" / "server" / "libjvm.so")


def test_an_archive_is_named_for_its_java_in_the_cache_directory(cache: Path, tmp_path: Path) -> None:
    jsa = cds_archive.Archive.for_jvm(fake_java(tmp_path, 17), [], ["-Xrs"])
    aot = cds_archive.Archive.for_jvm(fake_java(tmp_path, 25), [], ["-Xrs"])
    assert jsa.path.parent == cache and jsa.path.name.startswith("engine-java17-") and jsa.path.suffix == ".jsa"
    assert aot.path.name.startswith("engine-java25-") and aot.path.suffix == ".aot" and aot.aot
    assert jsa.lock.name == jsa.path.name + ".lock" and jsa.log_file.name == jsa.path.name + ".log"
    assert ".tmp" in jsa.temporary().name and jsa.temporary().suffix == ".jsa"


def test_the_key_ignores_heap_sizing_but_not_other_options(tmp_path: Path) -> None:
    java = fake_java(tmp_path, 17)
    key = cds_archive.archive_key(java, [], ["-Xrs", "-XX:+UseSerialGC"])
    assert (
        cds_archive.archive_key(java, [], ["-Xrs", "-XX:+UseSerialGC", "-Xms96m", "-Xmn24m", "-XX:MaxHeapFreeRatio=40"])
        == key
    )
    assert cds_archive.archive_key(java, [], ["-Xrs", "-XX:+UseSerialGC", "-Xmx2g"]) != key
    assert cds_archive.archive_key(java, [], ["-Xrs"]) != key


def test_a_changed_jar_changes_the_key(tmp_path: Path) -> None:
    java = fake_java(tmp_path, 17)
    jar = tmp_path / "engine.jar"
    jar.write_bytes(b"one")
    key = cds_archive.archive_key(java, [str(jar)], [])
    jar.write_bytes(b"other content")
    assert cds_archive.archive_key(java, [str(jar)], []) != key


def test_only_a_file_with_the_archive_magic_is_usable(cache: Path, tmp_path: Path) -> None:
    archive = cds_archive.Archive.for_jvm(fake_java(tmp_path, 17), [], [])
    assert not archive.usable(), "absent"
    archive.path.parent.mkdir(parents=True)
    archive.path.write_bytes(b"not an archive")
    assert not archive.usable()
    archive.path.write_bytes(cds_archive.DYNAMIC_MAGIC + b"rest")
    assert archive.usable()
    assert archive.use_options()[:2] == [f"-XX:SharedArchiveFile={archive.path}", "-Xshare:auto"]


def test_one_lock_at_a_time_and_a_stale_one_is_taken_over(cache: Path, tmp_path: Path) -> None:
    archive = cds_archive.Archive.for_jvm(fake_java(tmp_path, 17), [], [])
    assert archive.take_lock()
    assert archive.being_made()
    assert not archive.take_lock(), "another helper holds it"
    stale = time.time() - cds_archive.STALE_LOCK_SECONDS - 60
    os.utime(archive.lock, (stale, stale))
    assert not archive.being_made()
    assert archive.take_lock(), "a helper that died long ago does not block the next"


def test_an_own_sharing_option_or_the_environment_turns_archives_off(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    java = fake_java(tmp_path, 17)
    assert cds.options_for(java, [], ["-Xshare:off"]) == []
    assert not cache.exists(), "nothing was started for an explicit choice"
    assert cds.enabled()
    assert not cds.enabled(setting=False)
    for off in ("0", "false", "OFF", " no "):
        monkeypatch.setenv(cds.ENV_CDS, off)
        assert not cds.enabled()


def test_archives_not_used_lately_are_removed_when_a_new_one_is_made(tmp_path: Path) -> None:
    now = time.time()
    hours = 60 * 60
    ages = {  # archive name -> hours since it was last used
        "engine-java17-aaaa.jsa": 1,
        "engine-java25-bbbb.aot": 2,
        "engine-java17-cccc.jsa": 3,
        "engine-java17-dddd.jsa": 20,  # beyond the three used last, but used within a day
        "engine-java17-eeee.jsa": 30,
        "engine-java25-ffff.aot": 100,
    }
    for name, age in ages.items():
        for path in (tmp_path / name, tmp_path / f"{name}.log"):
            path.write_bytes(b"x")
            os.utime(path, (now - age * hours, now - age * hours))
    in_the_making = tmp_path / "engine-java17-gggg.123.tmp.jsa"
    in_the_making.write_bytes(b"x")
    os.utime(in_the_making, (now - 100 * hours, now - 100 * hours))

    removed = cds_archive.prune(tmp_path, now=now)

    assert sorted(p.name for p in removed) == [
        "engine-java17-eeee.jsa",
        "engine-java17-eeee.jsa.log",
        "engine-java25-ffff.aot",
        "engine-java25-ffff.aot.log",
    ]
    kept = [n for n in ages if "eeee" not in n and "ffff" not in n]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        kept + [f"{n}.log" for n in kept] + [in_the_making.name]
    )

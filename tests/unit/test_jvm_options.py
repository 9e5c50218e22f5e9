"""The JVM's command line (kotlin_llm_kernel.jvm.jvm_options) from a directory of engine jars, without starting a
JVM."""

from __future__ import annotations

from pathlib import Path

import pytest
from kotlin_llm_kernel.jvm.java_runtime import JavaRuntime
from kotlin_llm_kernel.jvm.jvm_options import (
    DEFAULT_JVM_OPTIONS,
    ENV_CLASSPATH,
    ENV_ENGINE_JARS,
    ENV_JVM_OPTIONS,
    PROPERTIES_FILE,
    RESOLVER_CLASSPATH_PROPERTY,
    EngineNotBuiltError,
    JvmRequest,
    engine_jars,
    jvm_command,
    read_properties,
    redacted,
)


@pytest.fixture
def jars(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A directory laid out as the bundled jars are (their content does not matter here), used by jvm_command."""
    for name in ("kotlin-llm-engine-0.1.0.jar", "lib/b.jar", "lib/a.jar", "resolver-lib/r.jar", "lib/notes.txt"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(b"")
    monkeypatch.setenv(ENV_ENGINE_JARS, str(tmp_path))
    monkeypatch.delenv(ENV_CLASSPATH, raising=False)
    monkeypatch.delenv(ENV_JVM_OPTIONS, raising=False)
    return tmp_path


def java(version: int) -> JavaRuntime:
    return JavaRuntime(home=Path("/jdk"), version=version, libjvm=Path("/jdk/lib/server/libjvm.so"))


def test_system_property_values_are_hidden_from_the_log() -> None:
    options = ["-Dtoken=s3cr3t", "-Dflag", "-Xmx1g", "-Dempty=", "-Dnested=a=b"]
    assert redacted(options) == ["-Dtoken=…", "-Dflag", "-Xmx1g", "-Dempty=…", "-Dnested=…"]


def test_engine_jars_engine_first_then_its_libraries_and_the_resolver_apart(jars: Path) -> None:
    classpath, resolver = engine_jars()
    assert classpath == [str(jars / "kotlin-llm-engine-0.1.0.jar"), str(jars / "lib/a.jar"), str(jars / "lib/b.jar")]
    assert resolver == [str(jars / "resolver-lib/r.jar")]


def test_missing_engine_jars_say_how_to_build_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_ENGINE_JARS, raising=False)
    with pytest.raises(EngineNotBuiltError, match=r"pip install \."):
        engine_jars(tmp_path)


def test_the_command_line_orders_fixed_default_user_and_environment_options(
    jars: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV_CLASSPATH, "/extra/one.jar:/extra/two")
    monkeypatch.setenv(ENV_JVM_OPTIONS, "-Dfrom.env='a b'")
    settings = JvmRequest(classpath=("/mine.jar",), options=("-Xmx2g",), default_options=("-XX:+UseSerialGC",))
    classpath, options = jvm_command(settings, java(17))
    assert classpath[3:] == ["/mine.jar", "/extra/one.jar", "/extra/two"]
    assert options[0] == "-Xrs", "SIGINT belongs to the kernel"
    assert options.index("-XX:+UseSerialGC") < options.index("-Xmx2g") < options.index("-Dfrom.env=a b")
    assert options[-1] == f"-D{RESOLVER_CLASSPATH_PROPERTY}={jars / 'resolver-lib/r.jar'}"
    assert not any(o.startswith(("--enable-native-access", "--sun-misc-unsafe")) for o in options)


def test_newer_jdks_get_the_flags_that_silence_their_warnings(jars: Path) -> None:
    _, options = jvm_command(JvmRequest(default_options=()), java(25))
    assert "--enable-native-access=ALL-UNNAMED" in options
    assert "--sun-misc-unsafe-memory-access=allow" in options


def test_the_default_options_can_be_dropped(jars: Path) -> None:
    _, tuned = jvm_command(JvmRequest(), java(17))
    _, untuned = jvm_command(JvmRequest(default_options=()), java(17))
    assert "-XX:TieredStopAtLevel=1" in tuned
    assert [o for o in untuned if o.startswith(("-XX:TieredStop", "-XX:+UseSerialGC", "-Xmn"))] == []


def test_properties_files_give_key_value_lines_without_comments(tmp_path: Path) -> None:
    file = tmp_path / "x.properties"
    file.write_text("# a comment\n! another\n\n key = a value = with equals \nempty=\n")
    assert read_properties(file) == {"key": "a value = with equals", "empty": ""}


def test_the_default_options_are_those_of_the_packaged_properties_file() -> None:
    line = read_properties(PROPERTIES_FILE)["kotlinllm.jvm.defaultOptions"]
    assert DEFAULT_JVM_OPTIONS == tuple(line.split())
    assert "-XX:+UseSerialGC" in DEFAULT_JVM_OPTIONS

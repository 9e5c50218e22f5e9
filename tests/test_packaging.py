"""Packaging: kernelspec installation, Java discovery messages, JVM flags, and the wheel with bundled jars."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest
from kotlin_llm_kernel.config.json_trait import JsonDict
from kotlin_llm_kernel.jvm.java_runtime import JavaNotFoundError, JavaRuntime, find_java
from kotlin_llm_kernel.jvm.jvm_options import JvmRequest, jvm_command

ROOT = Path(__file__).resolve().parent.parent


def test_install_command_and_kernelspec_list(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "kotlin_llm_kernel", "install", "--prefix", str(tmp_path)], check=True, cwd=tmp_path
    )
    spec_dir = tmp_path / "share" / "jupyter" / "kernels" / "kotlin-llm"
    spec = json.loads((spec_dir / "kernel.json").read_text())
    assert spec["argv"] == [sys.executable, "-m", "kotlin_llm_kernel", "-f", "{connection_file}"]
    assert spec["interrupt_mode"] == "message" and spec["language"] == "kotlin"
    assert (spec_dir / "logo-64x64.png").is_file()
    env = dict(os.environ, JUPYTER_PATH=str(tmp_path / "share" / "jupyter"))
    listed = subprocess.run(
        [sys.executable, "-m", "jupyter", "kernelspec", "list", "--json"], env=env, capture_output=True, text=True
    )
    assert "kotlin-llm" in json.loads(listed.stdout)["kernelspecs"]


def test_install_passes_settings_to_argv(tmp_path: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "kotlin_llm_kernel",
            "install",
            "--prefix",
            str(tmp_path),
            "--KotlinKernel.show_warnings=False",
        ],
        check=True,
        capture_output=True,
    )
    spec = json.loads((tmp_path / "share/jupyter/kernels/kotlin-llm/kernel.json").read_text())
    assert spec["argv"][-1] == "--KotlinKernel.show_warnings=False"


def test_no_java_says_what_to_install(tmp_path: Path) -> None:
    with pytest.raises(JavaNotFoundError, match=r"No Java found .*install a JDK 17 or newer"):
        find_java(env={"PATH": str(tmp_path)})
    with pytest.raises(JavaNotFoundError, match=r"is not a Java installation.*install a JDK 17"):
        find_java(env={"JAVA_HOME": str(tmp_path)})


def test_java_found_from_java_home_or_path() -> None:
    java = find_java()
    assert java.version >= 17 and java.libjvm.is_file()
    assert find_java(env={"PATH": str(java.home / "bin")}).home == java.home


def test_jvm_flags() -> None:
    java17 = find_java()
    _, options = jvm_command(JvmRequest(options=("-Xmx1g",)), java17)
    assert options[0] == "-Xrs"
    assert "-XX:TieredStopAtLevel=1" in options and "-XX:+UseSerialGC" in options
    assert options.index("-Xmx1g") > options.index("-XX:+UseSerialGC")
    java25 = JavaRuntime(home=java17.home, version=25, libjvm=java17.libjvm)
    _, options25 = jvm_command(JvmRequest(default_options=()), java25)
    assert "--enable-native-access=ALL-UNNAMED" in options25
    assert "--sun-misc-unsafe-memory-access=allow" in options25
    assert "-XX:+UseSerialGC" not in options25
    if java17.version < 22:
        assert not any(o.startswith("--enable-native-access") for o in options)


def test_properties_setting_parses_json_and_items() -> None:
    trait = JsonDict()
    trait.name = "properties"
    assert trait.from_string_list(['{"answer": 42, "names": ["a"]}']) == {"answer": 42, "names": ["a"]}
    assert trait.from_string_list(["greeting=Hello", "answer=42", "flag=true"]) == {
        "greeting": "Hello",
        "answer": 42,
        "flag": True,
    }


def test_wheel_bundles_the_engine_and_installs_without_maven(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w", str(wheels), str(ROOT)],
        capture_output=True,
        text=True,
    )
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    [wheel] = wheels.glob("kotlin_llm_kernel-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert any(n.startswith("kotlin_llm_kernel/jars/kotlin-llm-engine-") for n in names)
    assert any(n.startswith("kotlin_llm_kernel/jars/lib/kotlin-stdlib-") for n in names)
    # JetBrains' Kotlin kernel API, pinned, in the host classpath: one version of its classes
    # the Apache-2.0 jars it bundles (JetBrains' API among them) come with their licence's text
    assert {"kotlin_llm_kernel/licenses/Apache-2.0.txt", "kotlin_llm_kernel/licenses/README.md"} <= set(names)
    api = sorted(n for n in names if n.startswith("kotlin_llm_kernel/jars/lib/kotlin-jupyter-"))
    assert api == [
        "kotlin_llm_kernel/jars/lib/kotlin-jupyter-api-0.19.0-944.jar",
        "kotlin_llm_kernel/jars/lib/kotlin-jupyter-protocol-api-0.19.0-944.jar",
    ]
    # kotlinx.serialization's compiler plugin, on in every session, is built for exactly the bundled compiler
    [compiler] = [n for n in names if n.startswith("kotlin_llm_kernel/jars/lib/kotlin-compiler-embeddable-")]
    version = compiler.removeprefix("kotlin_llm_kernel/jars/lib/kotlin-compiler-embeddable-").removesuffix(".jar")
    plugins = [n for n in names if n.startswith("kotlin_llm_kernel/jars/compiler-plugins/")]
    assert plugins == [
        f"kotlin_llm_kernel/jars/compiler-plugins/kotlin-serialization-compiler-plugin-embeddable-{version}.jar"
    ]
    assert any(n.endswith("share/jupyter/kernels/kotlin-llm/kernel.json") for n in names)
    assert any(n.endswith("share/jupyter/kernels/kotlin-llm-sandboxed/kernel.json") for n in names)
    # The MCP server's command (tests/test_mcp.py); papermill
    # finds the Kotlin parameter translator through the papermill.engine entry point (tests/test_papermill.py)
    [entry_points] = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
    assert zipfile.ZipFile(wheel).read(entry_points).decode().split() == [
        "[console_scripts]",
        "kotlin-llm-mcp",
        "=",
        "kotlin_llm_kernel.mcp.__main__:main",
        "[papermill.engine]",
        "kotlin-llm",
        "=",
        "kotlin_llm_kernel.papermill.engine:KotlinLLMEngine",
    ]

    env_dir = tmp_path / "venv"
    venv.create(env_dir, system_site_packages=True, with_pip=True)
    python = env_dir / "bin" / "python"
    no_maven = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    no_maven["PATH"] = os.pathsep.join(
        p for p in os.environ["PATH"].split(os.pathsep) if not shutil.which("mvn", path=p)
    )
    no_maven.pop("KOTLIN_LLM_ENGINE_JARS", None)
    subprocess.run([python, "-m", "pip", "install", "-q", "--no-deps", str(wheel)], check=True, env=no_maven)
    probe = "from kotlin_llm_kernel.jvm.jvm_options import engine_jars; print(engine_jars()[0][0])"
    jar = subprocess.run([python, "-c", probe], env=no_maven, cwd=tmp_path, capture_output=True, text=True, check=True)
    assert jar.stdout.strip().startswith(str(env_dir)), jar.stdout
    assert (env_dir / "share/jupyter/kernels/kotlin-llm/kernel.json").is_file()


def test_build_without_maven_says_what_to_install(tmp_path: Path) -> None:
    java = find_java()
    env = {
        "PATH": str(java.home / "bin"),
        "JAVA_HOME": str(java.home),
        "KOTLIN_LLM_FORCE_MAVEN": "1",
        "HOME": str(tmp_path),
    }
    script = (
        "import sys, pathlib; sys.path.insert(0, sys.argv[1]); import hatch_build\n"
        "try:\n    hatch_build.build_engine(pathlib.Path(sys.argv[1]), log=lambda m: None)\n"
        "except RuntimeError as e:\n    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", script, str(ROOT)], env=env, capture_output=True, text=True)
    assert "needs Maven" in out.stdout and "apt-get install maven" in out.stdout, out.stdout + out.stderr

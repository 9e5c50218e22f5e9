"""A Maven repository built by the tests (jars compiled with javac) and served over HTTP on 127.0.0.1."""

from __future__ import annotations

import hashlib
import http.server
import json
import shutil
import subprocess
import tempfile
import threading
import time
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def _javac() -> str:
    javac = shutil.which("javac")
    if javac is None:
        raise RuntimeError("javac is needed to build the test repository: install a JDK")
    return javac


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    path.with_name(path.name + ".sha1").write_text(hashlib.sha1(data).hexdigest(), encoding="ascii")


def add_artifact(root: Path, group: str, artifact: str, version: str, java_sources: dict[str, str]) -> None:
    """Compiles ``java_sources`` (class name → source) into ``group:artifact:version``'s jar, with its POM."""
    base = root / group.replace(".", "/") / artifact / version
    with tempfile.TemporaryDirectory() as work:
        sources = []
        for class_name, source in java_sources.items():
            file = Path(work, "src", *class_name.split(".")).with_suffix(".java")
            file.parent.mkdir(parents=True, exist_ok=True)
            file.write_text(source, encoding="utf-8")
            sources.append(str(file))
        classes = Path(work, "classes")
        subprocess.run([_javac(), "--release", "17", "-d", str(classes), *sources], check=True)
        jar = Path(work, "out.jar")
        with zipfile.ZipFile(jar, "w") as archive:
            for file in sorted(classes.rglob("*.class")):
                archive.write(file, file.relative_to(classes).as_posix())
        _write(base / f"{artifact}-{version}.jar", jar.read_bytes())
    pom = (
        '<?xml version="1.0" encoding="UTF-8"?>\n<project xmlns="http://maven.apache.org/POM/4.0.0">\n'
        f"  <modelVersion>4.0.0</modelVersion>\n  <groupId>{group}</groupId>\n  <artifactId>{artifact}</artifactId>\n"
        f"  <version>{version}</version>\n</project>\n"
    )
    _write(base / f"{artifact}-{version}.pom", pom.encode())


def add_multiplatform_root(root: Path, group: str, artifact: str, version: str, jvm_artifact: str) -> None:
    """``group:artifact:version`` as Gradle publishes a Kotlin Multiplatform root: a POM, a jar of common metadata
    only, and Gradle module metadata whose JVM runtime variant is available at ``jvm_artifact``."""
    base = root / group.replace(".", "/") / artifact / version
    pom = (
        '<?xml version="1.0" encoding="UTF-8"?>\n<!-- do_not_remove: published-with-gradle-metadata -->\n'
        '<project xmlns="http://maven.apache.org/POM/4.0.0">\n'
        f"  <modelVersion>4.0.0</modelVersion>\n  <groupId>{group}</groupId>\n  <artifactId>{artifact}</artifactId>\n"
        f"  <version>{version}</version>\n</project>\n"
    )
    _write(base / f"{artifact}-{version}.pom", pom.encode())
    with tempfile.TemporaryDirectory() as work:
        jar = Path(work, "metadata.jar")
        with zipfile.ZipFile(jar, "w") as archive:
            archive.writestr("META-INF/kotlin-project-structure-metadata.json", "{}")
        _write(base / f"{artifact}-{version}.jar", jar.read_bytes())
    variants = [
        {
            "name": f"jvm{usage.title()}Elements-published",
            "attributes": {"org.gradle.usage": f"java-{usage}", "org.jetbrains.kotlin.platform.type": "jvm"},
            "available-at": {
                "url": f"../../{jvm_artifact}/{version}/{jvm_artifact}-{version}.module",
                "group": group,
                "module": jvm_artifact,
                "version": version,
            },
        }
        for usage in ("api", "runtime")
    ]
    module = {"formatVersion": "1.1", "component": {"group": group, "module": artifact, "version": version}}
    _write(base / f"{artifact}-{version}.module", json.dumps({**module, "variants": variants}).encode())


def add_metadata(root: Path, group: str, artifact: str, versions: list[str]) -> None:
    listed = "".join(f"<version>{v}</version>" for v in versions)
    xml = (
        f"<metadata><groupId>{group}</groupId><artifactId>{artifact}</artifactId><versioning>"
        f"<versions>{listed}</versions></versioning></metadata>"
    )
    _write(root / group.replace(".", "/") / artifact / "maven-metadata.xml", xml.encode())


@contextmanager
def served(root: Path, jar_delay: float = 0.0) -> Iterator[str]:
    """Serves ``root`` on 127.0.0.1 and yields its URL; each jar is sent ``jar_delay`` seconds after its request, as
    over a slow network."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, directory=str(root), **kwargs)  # type: ignore[arg-type]

        def do_GET(self) -> None:
            if jar_delay and self.path.endswith(".jar"):
                time.sleep(jar_delay)
            super().do_GET()

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def greeter(version: str) -> dict[str, str]:
    """The Java source of com.example.greeter.Greeter for an artifact of ``version``: its version() says which."""
    return {
        "com.example.greeter.Greeter": (
            "package com.example.greeter;\n"
            f'public class Greeter {{ public static String version() {{ return "{version}"; }} }}\n'
        )
    }


@contextmanager
def greeter_repository(root: Path) -> Iterator[str]:
    """A repository in ``root`` with com.example:greeter 1.0 and 1.1 (its metadata names both), served on 127.0.0.1
    as :func:`served` serves it: its URL."""
    for version in ("1.0", "1.1"):
        add_artifact(root, "com.example", "greeter", version, greeter(version))
    add_metadata(root, "com.example", "greeter", ["1.0", "1.1"])
    with served(root) as url:
        yield url

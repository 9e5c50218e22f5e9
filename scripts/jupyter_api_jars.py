"""Installs JetBrains' Kotlin kernel API jars into the local Maven repository when it lacks them.

The engine depends on ``org.jetbrains.kotlinx:kotlin-jupyter-api`` and ``kotlin-jupyter-protocol-api`` at exactly
``0.19.0-944`` (jvm/pom.xml says why). When the local repository lacks them, Maven is asked to fetch them first; where
its repositories do not serve that version (some mirrors of Maven Central serve only 0.11), this module takes the two
jars from JetBrains' own kernel wheel on PyPI (``kotlin-jupyter-kernel==0.19.0.944``, Apache-2.0, fetched with
``pip download``) and installs them under their real coordinates with ``mvn install:install-file``. Idempotent:
nothing happens when both jars are already in the local repository.

Run it as ``python scripts/jupyter_api_jars.py`` (scripts/setup-kernel.sh does), or call :func:`ensure_installed`
(hatch_build.py does, before Maven builds the engine).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree
import zipfile
from collections.abc import Callable, Mapping
from pathlib import Path

GROUP = "org.jetbrains.kotlinx"
VERSION = "0.19.0-944"
# artifactId in Maven -> the jar's file name inside the wheel
ARTIFACTS = {
    "kotlin-jupyter-api": f"api-{VERSION}.jar",
    "kotlin-jupyter-protocol-api": f"protocol-api-{VERSION}.jar",
}
WHEEL = "kotlin-jupyter-kernel==0.19.0.944"
# The install goal by its full name, so that Maven's default plugin version does not decide how it behaves.
INSTALL_FILE = "org.apache.maven.plugins:maven-install-plugin:3.1.4:install-file"
GET = "org.apache.maven.plugins:maven-dependency-plugin:3.8.1:get"


class JupyterApiInstallError(RuntimeError):
    """The API jars are missing and could not be installed; the message says which step failed."""


def _maven_home() -> Path:
    """The home Maven's JVM uses (``user.home``): the account's, which ``$HOME`` need not be."""
    try:
        import pwd

        return Path(pwd.getpwuid(os.getuid()).pw_dir)
    except (ImportError, KeyError):
        return Path.home()


def local_repository(home: Path | None = None, environ: Mapping[str, str] = os.environ) -> Path:
    """The local Maven repository: ``-Dmaven.repo.local`` in ``MAVEN_OPTS``/``MAVEN_ARGS``, else ``localRepository``
    of ``~/.m2/settings.xml``, else ``~/.m2/repository``."""
    for variable in ("MAVEN_ARGS", "MAVEN_OPTS"):
        for option in environ.get(variable, "").split():
            if option.startswith("-Dmaven.repo.local="):
                return Path(os.path.expanduser(option.split("=", 1)[1]))
    m2 = (home or _maven_home()) / ".m2"
    settings = m2 / "settings.xml"
    if settings.is_file():
        try:
            root = ElementTree.parse(settings).getroot()
        except ElementTree.ParseError:
            root = None
        if root is not None:
            for element in root.iter():
                if element.tag.rsplit("}", 1)[-1] == "localRepository" and element.text and element.text.strip():
                    return Path(os.path.expanduser(element.text.strip()))
    return m2 / "repository"


def installed_jar(repository: Path, artifact: str) -> Path:
    return repository / Path(*GROUP.split(".")) / artifact / VERSION / f"{artifact}-{VERSION}.jar"


def missing(repository: Path) -> list[str]:
    """The artifactIds whose jar (and POM) the repository lacks."""
    return [
        artifact
        for artifact in ARTIFACTS
        if not installed_jar(repository, artifact).is_file()
        or not installed_jar(repository, artifact).with_suffix(".pom").is_file()
    ]


def _run(command: list[str], what: str, cwd: Path, check: bool = True) -> bool:
    # pip's isolated build environment hides the interpreter's own site-packages through PYTHONPATH; the pip run here
    # must see them (it is the interpreter's pip, not a build requirement).
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONNOUSERSITE", "PIP_REQ_TRACKER")}
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    if result.returncode != 0 and check:
        output = (result.stdout[-4000:] + result.stderr[-4000:]).strip()
        raise JupyterApiInstallError(f"{what} failed (exit {result.returncode}): {' '.join(command)}\n{output}")
    return result.returncode == 0


def jars_from_wheel(wheel: Path, target: Path) -> dict[str, Path]:
    """Extracts the API jars from the kernel's wheel into ``target``; artifactId -> extracted jar."""
    extracted: dict[str, Path] = {}
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        for artifact, jar_name in ARTIFACTS.items():
            found = [name for name in names if name.rsplit("/", 1)[-1] == jar_name]
            if len(found) != 1:
                raise JupyterApiInstallError(
                    f"{wheel.name} should hold exactly one {jar_name}, it holds {len(found)}: {found}"
                )
            path = target / jar_name
            path.write_bytes(archive.read(found[0]))
            extracted[artifact] = path
    return extracted


def ensure_installed(
    mvn: str | None = None, python: str | None = None, log: Callable[[str], object] = print
) -> list[str]:
    """Fetches the missing API jars with Maven, else installs them from the wheel; returns those the wheel gave."""
    repository = local_repository()
    needed = missing(repository)
    if not needed:
        return []
    mvn = mvn or shutil.which("mvn")
    if mvn is None:
        raise JupyterApiInstallError("Installing JetBrains' Kotlin kernel API jars needs Maven (`mvn` on PATH).")
    with tempfile.TemporaryDirectory(prefix="kotlin-jupyter-api-") as temp:
        for artifact in needed:  # from Maven's own repositories, where they serve this version
            get = [mvn, "-B", "-q", GET, f"-Dartifact={GROUP}:{artifact}:{VERSION}", "-Dtransitive=false"]
            _run(get, f"Fetching {artifact} with Maven", Path(temp), check=False)
    needed = missing(repository)
    if not needed:
        return []
    python = python or sys.executable
    log(
        f"kotlin-llm: {', '.join(needed)} {VERSION} not in {repository}: installing them from PyPI's {WHEEL} "
        "(JetBrains' Kotlin kernel, Apache-2.0)"
    )
    with tempfile.TemporaryDirectory(prefix="kotlin-jupyter-api-") as temp:
        work = Path(temp)
        download = [python, "-m", "pip", "download", "-q", "--no-deps", "--disable-pip-version-check", WHEEL]
        _run([*download, "-d", str(work)], f"Downloading {WHEEL} with pip", work)
        wheels = sorted(work.glob("kotlin_jupyter_kernel-*.whl"))
        if len(wheels) != 1:
            raise JupyterApiInstallError(f"pip download of {WHEEL} gave no single wheel: {sorted(work.iterdir())}")
        for artifact, jar in jars_from_wheel(wheels[0], work).items():
            if artifact not in needed:
                continue
            coordinates = [f"-DgroupId={GROUP}", f"-DartifactId={artifact}", f"-Dversion={VERSION}"]
            install = [mvn, "-B", "-q", INSTALL_FILE, f"-Dfile={jar}", *coordinates, "-Dpackaging=jar"]
            _run([*install, "-DgeneratePom=true"], f"Installing {GROUP}:{artifact}:{VERSION} with Maven", work)
    for artifact in needed:  # the failed remote lookup's markers, now that the jars are installed
        for marker in installed_jar(repository, artifact).parent.glob("*.lastUpdated"):
            marker.unlink()
    still = missing(repository)
    if still:
        raise JupyterApiInstallError(
            f"Maven installed {', '.join(needed)}, yet {repository} still lacks {', '.join(still)}: does Maven use "
            "another local repository (-Dmaven.repo.local, MAVEN_OPTS)?"
        )
    return needed


def main() -> int:
    try:
        installed = ensure_installed()
    except JupyterApiInstallError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    if not installed:
        print(f"kotlin-llm: JetBrains' Kotlin kernel API {VERSION} is in the local Maven repository")
    return 0


if __name__ == "__main__":
    sys.exit(main())

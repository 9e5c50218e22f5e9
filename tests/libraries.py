"""The real libraries that the library tests load, fetched from Maven Central once by the setup step
(``scripts/setup.sh``) into ``build/libraries-m2``, which the tests then serve to their kernels as a ``file:``
repository: so they run offline.

The setup fetches them with the kernel's own resolver (the Python API), which also fetches the Gradle module metadata
of multiplatform libraries, as the tests' kernels will ask for it.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REPOSITORY = ROOT / "build" / "libraries-m2"

#: Pinned to the versions the registry here serves (a version-less resolution would pick a newer one later).
KTOR_CLIENT = "io.ktor:ktor-client-cio:3.6.1"  # a multiplatform root, which needs kotlinx-coroutines 1.11
DATETIME = "org.jetbrains.kotlinx:kotlinx-datetime:0.8.0"  # a multiplatform root with a metadata-only jar
#: the whole DataFrame (core + its readers), as users write it; its tables render as HTML (issue 29)
DATAFRAME = "org.jetbrains.kotlinx:dataframe:0.15.0"
#: lets-plot's Kotlin API, whose figures render as SVG (plot-stem is transitive); 4.5.0 is the newest served here
LETS_PLOT = "org.jetbrains.lets-plot:lets-plot-kotlin-jvm:4.5.0"
#: kotlinx.serialization's JSON runtime, for @Serializable classes (the compiler plugin comes with the kernel)
SERIALIZATION_JSON = "org.jetbrains.kotlinx:kotlinx-serialization-json:1.13.0"
#: the other libraries a dependency hint names (the engine's catalogue, internal/libraries/Libraries.kt), for
#: KnownLibrariesTest
HINTED = (
    "org.jsoup:jsoup:1.24.1",
    "com.google.code.gson:gson:2.15.0",
    "com.fasterxml.jackson.module:jackson-module-kotlin:2.23.0",  # brings jackson-databind 2.23.0
    "com.squareup.okhttp3:okhttp:5.5.1",
    "org.jetbrains.kotlinx:kotlinx-collections-immutable:0.5.2",
    "org.apache.commons:commons-csv:1.14.1",
)
LIBRARIES = (KTOR_CLIENT, DATETIME, DATAFRAME, LETS_PLOT, SERIALIZATION_JSON, *HINTED)
#: krangl 0.18, the last release, whose jar carries a notebook integration of JetBrains' kernel (libraries.json
#: naming ``krangl.integration.Integration``): the tests load it for that integration (issue 40)
KRANGL = "com.github.holgerbrandl:krangl:0.18"
#: Libraries fetched for their own notebook integrations, which the engine's catalogue does not know (so not in
#: :data:`LIBRARIES`, which tests/unit/test_library_catalogue.py holds to the catalogue).
INTEGRATION_LIBRARIES = (KRANGL,)
#: Everything the setup step fetches.
FETCHED = (*LIBRARIES, *INTEGRATION_LIBRARIES)
#: The catalogue's artifacts that are not fetched by name, and why. With :data:`LIBRARIES` they are every artifact of
#: the catalogue, no more: tests/unit/test_library_catalogue.py holds the two to it.
NOT_FETCHED = {
    "io.ktor:ktor-client-core": "ktor-client-cio brings it",
    "com.fasterxml.jackson.core:jackson-databind": "jackson-module-kotlin brings it",
    "org.jetbrains.kotlinx:dataframe-core": "dataframe brings it",
    "org.jetbrains.kotlinx:kandy-lets-plot": "only %use knows it, and UseMagicTest serves a stand-in of it",
}

_STAMP = REPOSITORY / ".fetched"


def repository_url() -> str:
    """The fetched libraries as a repository for a kernel's ``repositories`` setting."""
    if not _STAMP.is_file() or _STAMP.read_text(encoding="utf-8").split() != list(FETCHED):
        raise RuntimeError(f"the libraries of {REPOSITORY} are not those of tests/libraries.py: run scripts/setup.sh")
    return REPOSITORY.as_uri() + "/"


def library_kernel_arguments(local_repository: Path) -> list[str]:
    """A kernel's settings that resolve from the fetched libraries only, into a local repository of its own."""
    from kernel_client import repository_arguments

    return repository_arguments(local_repository, [repository_url()])


def fetch() -> None:
    """Resolves every library of :data:`FETCHED` from Maven Central into :data:`REPOSITORY`, unless it was done."""
    if _STAMP.is_file() and _STAMP.read_text(encoding="utf-8").split() == list(FETCHED):
        return
    from kotlin_llm_kernel import Error, ScriptSession, SessionOptions

    REPOSITORY.mkdir(parents=True, exist_ok=True)
    options = SessionOptions(local_repository=str(REPOSITORY), echo=False)
    # An integration library in a session of its own, as a test's fresh kernel loads it: with the others loaded
    # first, the session's newer versions of its dependencies would win and its own would not be fetched.
    for group in (LIBRARIES, *((library,) for library in INTEGRATION_LIBRARIES)):
        with ScriptSession(options=options) as session:
            for coordinates in group:
                result = session.execute(f'@file:DependsOn("{coordinates}")')
                if isinstance(result, Error):
                    raise SystemExit(f"could not fetch {coordinates} from Maven Central:\n{result.message}")
    _STAMP.write_text("\n".join(FETCHED) + "\n", encoding="utf-8")


if __name__ == "__main__":
    fetch()
    print(f"libraries for the tests: {REPOSITORY}", file=sys.stderr)

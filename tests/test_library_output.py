"""What loading a library prints, over the real protocol: ``%use`` as users write it (no version: the latest stable
one, which a ``maven-metadata.xml`` of the tests lists as the version the setup fetched) and ``@file:DependsOn``, from
the real artifacts (:mod:`libraries`), offline. The versions chosen, one line each, and the version conflicts that
matter, each saying what to do; a library's older kotlin-stdlib, kotlin-reflect, slf4j or kotlin-logging than the
kernel's is no warning."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from kernel_client import execute, repository_arguments, running_kernel, warm_up
from libraries import HINTED, KTOR_CLIENT, repository_url
from maven_repository import add_metadata

DATAFRAME_VERSION = "0.15.0"
KTOR_VERSION = KTOR_CLIENT.rsplit(":", 1)[1]
JACKSON_KOTLIN = next(c for c in HINTED if c.startswith("com.fasterxml.jackson.module:"))


@pytest.fixture(scope="module")
def kernel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A kernel resolving from the fetched libraries, plus a repository of only the version listings `%use` reads."""
    listings = tmp_path_factory.mktemp("listings")
    add_metadata(listings, "org.jetbrains.kotlinx", "dataframe", [DATAFRAME_VERSION])
    for artifact in ("ktor-client-core", "ktor-client-cio"):
        add_metadata(listings, "io.ktor", artifact, [KTOR_VERSION])
    repositories = [repository_url(), listings.as_uri() + "/"]
    arguments = repository_arguments(tmp_path_factory.mktemp("local-repo"), repositories)
    with running_kernel(extra_arguments=arguments) as (_, kc):
        warm_up(kc)
        yield kc


def test_use_dataframe_says_its_version_and_no_warning_about_the_kernels_newer_libraries(kernel: Any) -> None:
    cell = execute(kernel, "%use dataframe")
    assert cell.status == "ok", cell.error
    # DataFrame asks for kotlin-stdlib and kotlin-reflect 2.0.20, slf4j-api 2.0.16, kotlin-logging 7.0.3 and
    # kotlinx-serialization 1.7.1, older than the kernel's: left out without a word. DataFrame's own notebook
    # integration loads without a word too.
    assert (
        cell.stderr
        == f"Resolved 'org.jetbrains.kotlinx:dataframe' to its latest stable version '{DATAFRAME_VERSION}'\n"
    )
    assert cell.stdout == ""


def test_a_library_needing_newer_versions_than_an_earlier_one_loaded_gets_one_warning_saying_what_to_do(
    kernel: Any,
) -> None:
    assert execute(kernel, "%use dataframe").status == "ok"  # jackson 2.18.0, by DataFrame's JSON reader
    cell = execute(kernel, f'@file:DependsOn("{JACKSON_KOTLIN}")')
    assert cell.status == "ok", cell.error
    number = cell.content["execution_count"]
    assert cell.stderr == (
        f"snippet{number}.kts:1:1: warning: Version conflict: '{JACKSON_KOTLIN}' needs newer versions than this "
        "session loaded before, which stay in use: 'com.fasterxml.jackson.core:jackson-databind:2.23.0' (loaded: "
        "2.18.0), 'com.fasterxml.jackson.core:jackson-annotations:2.23' (loaded: 2.18.0), "
        "'com.fasterxml.jackson.core:jackson-core:2.23.0' (loaded: 2.18.0); calls into their newer API may fail with "
        "NoSuchMethodError or NoClassDefFoundError\n"
        f'  | <error>@file:DependsOn("{JACKSON_KOTLIN}")</error>\n'
        f'hint: to use the newer versions, restart the kernel and run @file:DependsOn("{JACKSON_KOTLIN}") before '
        f"loading 'org.jetbrains.kotlinx:dataframe:{DATAFRAME_VERSION}'\n"
    )
    [diagnostic] = cell.kotlin_llm["diagnostics"]
    assert diagnostic["hint"].startswith("to use the newer versions, restart the kernel and run @file:DependsOn(")


def test_the_versions_a_use_line_chose_are_one_line_each(kernel: Any) -> None:
    cell = execute(kernel, "%use ktor-client")
    assert cell.status == "ok", cell.error
    assert cell.stderr == (
        f"Resolved 'io.ktor:ktor-client-core' to its latest stable version '{KTOR_VERSION}'\n"
        f"Resolved 'io.ktor:ktor-client-cio' to its latest stable version '{KTOR_VERSION}'\n"
    )

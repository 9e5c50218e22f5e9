"""@file:DependsOn through the kernel: resolved versions shown, errors located, against a repository on 127.0.0.1."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from kernel_client import execute, repository_arguments, running_kernel, warm_up
from maven_repository import add_artifact, add_metadata, add_multiplatform_root, greeter, served


@pytest.fixture(scope="module")
def repository(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("repo")
    for version in ("1.0", "1.1", "2.0-RC1"):
        add_artifact(root, "com.example", "greeter", version, greeter(version))
    add_metadata(root, "com.example", "greeter", ["1.0", "1.1", "2.0-RC1", "2.0-SNAPSHOT"])
    add_multiplatform_root(root, "com.example", "clock", "2.0", "clock-jvm")
    add_metadata(root, "com.example", "clock", ["2.0"])
    clock = 'package com.example.clock;\npublic class Clock { public static String now() { return "jvm time"; } }\n'
    add_artifact(root, "com.example", "clock-jvm", "2.0", {"com.example.clock.Clock": clock})
    with served(root) as url:
        yield url


@pytest.fixture(scope="module")
def kernel_with_repository(repository: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    arguments = repository_arguments(tmp_path_factory.mktemp("local-repo"), [repository])
    with running_kernel(extra_arguments=arguments) as (_, kc):
        warm_up(kc)
        yield kc


def test_a_version_less_dependency_shows_the_version_it_resolved_to(kernel_with_repository: object) -> None:
    cell = execute(
        kernel_with_repository, '@file:DependsOn("com.example:greeter")\ncom.example.greeter.Greeter.version()'
    )
    assert cell.status == "ok", cell.error
    assert cell.result == "1.1"
    assert "Resolved 'com.example:greeter' to its latest stable version '1.1'" in cell.stdout + cell.stderr
    assert cell.kotlin_llm["resolved_versions"] == {"com.example:greeter": "1.1"}


def test_an_unresolvable_dependency_is_a_located_compilation_error(
    kernel_with_repository: object, repository: str
) -> None:
    cell = execute(kernel_with_repository, '@file:DependsOn("com.example:nosuch:1.0")\nval x = 1')
    assert cell.status == "error"
    number = cell.content["execution_count"]
    assert cell.error is not None
    assert cell.error["ename"] == "CompilationError"
    assert "\n".join(cell.error["traceback"]) == (
        f"snippet{number}.kts:1:1: error: Cannot resolve 'com.example:nosuch:1.0': not found in {repository}\n"
        '  | <error>@file:DependsOn("com.example:nosuch:1.0")</error>'
    )


def test_the_dependency_stays_available_to_later_cells(kernel_with_repository: object) -> None:
    execute(kernel_with_repository, '@file:DependsOn("com.example:greeter")\n1')
    cell = execute(kernel_with_repository, "import com.example.greeter.Greeter\nGreeter.version()")
    assert cell.result == "1.1"


def test_a_multiplatform_library_by_its_plain_coordinates_loads_its_jvm_variant(kernel_with_repository: object) -> None:
    cell = execute(kernel_with_repository, '@file:DependsOn("com.example:clock")\ncom.example.clock.Clock.now()')
    assert cell.status == "ok", cell.error
    assert cell.result == "jvm time"
    assert cell.kotlin_llm["resolved_versions"] == {"com.example:clock": "2.0"}


def test_a_jar_cut_short_in_the_local_repository_is_fetched_again(
    repository: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    local = tmp_path_factory.mktemp("broken-local-repo")
    jar = local / "com/example/greeter/1.0/greeter-1.0.jar"
    jar.parent.mkdir(parents=True)
    jar.write_bytes(b"PK\x03\x04 cut short")
    arguments = [f"--KotlinKernel.local_repository={local}", f"--KotlinKernel.repositories={json.dumps([repository])}"]
    with running_kernel(extra_arguments=arguments) as (_, kc):
        cell = execute(kc, '@file:DependsOn("com.example:greeter:1.0")\ncom.example.greeter.Greeter.version()')
    assert cell.status == "ok", cell.error
    assert cell.result == "1.0"
    assert (
        f"warning: Fetched 'com.example:greeter:1.0' again: its copy in the local repository {local} was broken"
        in cell.stderr + cell.stdout
    )

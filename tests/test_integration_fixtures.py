"""The integration fixtures the setup step built (tests/integration_fixtures.py) resolve as Maven artifacts from their
repository into a fresh session, once through the session's repositories and once through ``@file:Repository``, and
bring their classes: what the protocol tests of libraries' integrations load. (fxthrows, whose loading fails on
purpose, is left to those tests; IntegrationFixturesTest checks its jar.)"""

from __future__ import annotations

from pathlib import Path

from kotlin_llm_kernel import ScriptSession, SessionOptions, Value

from integration_fixtures import FX, FX_BROKEN, repository_url


def test_the_fixtures_resolve_from_their_repository(tmp_path: Path) -> None:
    options = SessionOptions(local_repository=str(tmp_path / "m2"), repositories=(repository_url(),), echo=False)
    with ScriptSession(options=options) as session:
        code = "\n".join(f'@file:DependsOn("{coordinates}")' for coordinates in (FX, FX_BROKEN))
        result = session.execute(code + "\nlistOf(com.example.fx.Fx(3), com.example.fxbroken.FxBroken(4)).toString()")
        assert isinstance(result, Value), result
        assert result.value == "[Fx(v=3), FxBroken(v=4)]"


def test_a_cell_can_name_the_fixtures_repository(tmp_path: Path) -> None:
    options = SessionOptions(local_repository=str(tmp_path / "m2"), echo=False)
    with ScriptSession(options=options) as session:
        code = f'@file:Repository("{repository_url()}")\n@file:DependsOn("{FX}")\ncom.example.fx.FxData(2).rows'
        result = session.execute(code)
        assert isinstance(result, Value), result
        assert result.value == 2

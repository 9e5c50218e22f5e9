"""The pure part of the completion benchmark (bench/completion_report.py): the names a reply offers whatever a kernel
puts in its matches, the table of the report, and replacing one section of RESULTS.md while keeping the others."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from completion_report import (
    ANCHOR,
    OURS,
    Case,
    CaseRun,
    Probe,
    Start,
    case_rows,
    check,
    offered_names,
    probe_rows,
    render,
    replace_section,
    token_start,
)


def test_token_start_is_where_the_completed_name_begins() -> None:
    assert token_start("xs.fi") == 3
    assert token_start("xs.") == 3
    assert token_start('greet("a", ti') == len('greet("a", ')
    assert token_start("gre") == 0


def test_offered_names_whatever_the_kernel_starts_and_appends() -> None:
    # one kernel replaces the token only and appends a parenthesis, another replaces from the line's start
    assert offered_names("xs.ma", {"matches": ["map(", "mapIndexed"], "cursor_start": 3}) == {"map", "mapIndexed"}
    assert offered_names("xs.ma", {"matches": ["xs.map", "xs.max()"], "cursor_start": 0}) == {"map", "max"}
    named = offered_names('greet("a", ti', {"matches": ["times = "], "cursor_start": 11})
    assert named == {"times"}
    assert offered_names("xs.", {"matches": [], "cursor_start": 3}) == set()


def test_check_lists_missing_and_unwanted_names() -> None:
    case = Case("xs.", ("map", "filter"), absent=("add",))
    assert check(case, {"map", "add"}) == (["filter"], ["add"])
    assert check(case, {"map", "filter", "sum"}) == ([], [])


def _start(kind: str, seconds: list[float | None], missing: list[str] | None = None) -> Start:
    run = CaseRun("xs.", seconds, matches=10, missing=missing or [])
    return Start(kind, 1, cases=[run])


def test_case_row_medians_exclude_the_first_repeat_and_give_the_ratio() -> None:
    starts = [_start(OURS, [2.0, 0.1, 0.3, 0.2]), _start(ANCHOR, [1.0, 0.4, 0.4], missing=["filter"])]
    row = case_rows(starts, [Case("xs.", ("map", "filter"))])[2]
    assert row == "| `xs.` | 0.200 | 0.400 | 0.5× | 2.000 / 1.000 | 10 / 10 | yes / no: −filter |"


def test_a_timed_out_request_leaves_the_medians_of_the_replies_and_is_counted() -> None:
    starts = [_start(OURS, [0.5, 0.2, None])]
    text = render(starts, [Case("xs.", ("map",))], "python bench/completion.py", [], [])
    assert "| `xs.` | 0.200 | – | – | 0.500 / – |" in text
    assert "1 request(s) without a reply in time" in text


def test_probe_row_says_whether_the_cell_completed_normally() -> None:
    def probe(after_cell_end: float, cell: float, control: float | None) -> Probe:
        return Probe(
            cell_alone=3.0,
            sent_into_cell=0.5,
            marker_seen=True,
            completion=0.1,
            after_cell_end=after_cell_end,
            completion_matches=20,
            control=control,
            cell=cell,
            cell_status="ok",
            cell_result='"slept"',
        )

    starts = [Start(OURS, 1, probe=probe(-2.4, 3.05, 0.01)), Start(OURS, 2, probe=probe(-0.4, 1.0, None))]
    row = probe_rows(starts)[2]
    assert row.startswith("| ours | -1.400 [-2.400–-0.400] | 0.100 [0.100–0.100] | 0.010 (no reply: 1/2) |")
    assert "| 1/2 |" in row  # the cell cut short is not normal


def test_replace_section_keeps_the_other_sections() -> None:
    document = "# Title\n\n## A\n\na\n\n## Completion\n\nold\n\n### Detail\n\nold too\n\n## B\n\nb\n"
    replaced = replace_section(document, "## Completion", "## Completion\n\nnew\n")
    assert replaced == "# Title\n\n## A\n\na\n\n## Completion\n\nnew\n\n## B\n\nb\n"


def test_replace_section_appends_a_missing_section_and_ignores_headings_in_code() -> None:
    appended = replace_section("# Title\n\ntext\n", "## Completion", "## Completion\n\nnew")
    assert appended == "# Title\n\ntext\n\n## Completion\n\nnew\n"
    document = "## Completion\n\n```bash\n# a comment\n```\n\n## B\n"
    assert replace_section(document, "## Completion", "## Completion\n\nx\n") == "## Completion\n\nx\n\n## B\n"

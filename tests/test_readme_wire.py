"""Stage 07's wire: the README's "On the wire" section (its examples are what the
translators send) and SERVERS.md beside it, the details server by server (its names,
numbers and excerpts are the code's)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from helpers import ROOT, readme_section, stage_dir, with_twins
from test_repo_shape import stale_excerpts

from shared.providers import anthropic_provider, base, compat, defaults, openai_provider, sdk_base

README = stage_dir("07") / "README.md"
SERVERS = stage_dir("07") / "SERVERS.md"  # the details, one link from the README
JSON_FENCE = re.compile(r"```json\n(.*?)```", re.S)


def section(readme: Path, heading: str) -> str:
    """The body of `heading` in stage 07's README, or of its place in the French twin."""
    body = readme_section(readme, heading)
    assert body, f"stage 07's README has no '{heading}' section"
    return body


@pytest.fixture(scope="module", params=with_twins([README]), ids=lambda p: p.name)
def readme(request) -> Path:
    return request.param


@pytest.fixture(scope="module")
def wire(readme) -> str:
    return section(readme, "## On the wire")


@pytest.fixture(scope="module", params=with_twins([SERVERS]), ids=lambda p: p.name)
def servers(request) -> Path:
    return request.param


def test_the_readme_links_the_details_page_in_its_own_language(readme, wire):
    page = SERVERS.name if readme.name == "README.md" else "SERVERS.fr.md"
    assert f"]({page})" in wire, f"{readme.name}'s 'On the wire' should link {page}"


def test_the_section_sits_between_how_it_works_and_run_it():
    heads = re.findall(r"^## (.+)$", README.read_text(encoding="utf-8"), re.M)
    assert "On the wire" in heads, "stage 07's README lost its '## On the wire' section"
    at = heads.index("On the wire")
    assert heads.index("How it works") < at < heads.index("Run it"), (
        f"'On the wire' should come after 'How it works' and before 'Run it': {heads}")


def test_the_json_examples_are_what_the_translators_send(wire):
    blocks = [json.loads(b) for b in JSON_FENCE.findall(wire)]
    assert len(blocks) == 3, "expected the history, then its Anthropic and OpenAI shapes"
    history, for_anthropic, for_openai = blocks
    assert anthropic_provider.to_anthropic(history) == for_anthropic, (
        "the Anthropic example is not what to_anthropic makes of the history shown")
    assert openai_provider.to_openai(history) == for_openai, (
        "the OpenAI example is not what to_openai makes of the history shown")


NAMED = {  # what the section points to -> the object that must exist under that name
    "to_anthropic": anthropic_provider.to_anthropic,
    # private on purpose: the README cites these names, private ones too
    "to_openai": openai_provider.to_openai,
    "AnthropicProvider._read": anthropic_provider.AnthropicProvider._read,
    "OpenAIProvider._assemble": openai_provider.OpenAIProvider._assemble,
    "ToolCallAssembler._slot_for": compat.ToolCallAssembler._slot_for,
    "OpenAIProvider._open": openai_provider.OpenAIProvider._open,
    "tool_calls_from": base.tool_calls_from,
    "parse_args": base.parse_args,
    "SDKProvider.turn": sdk_base.SDKProvider.turn,
    "_retry_wait": sdk_base.SDKProvider._retry_wait,
    "split_shown": sdk_base.split_shown,
    "sse_data": sdk_base.sse_data,
    "STOP_REASONS": openai_provider.STOP_REASONS,
}


@pytest.mark.parametrize("name", NAMED)
def test_every_piece_named_is_pointed_to(servers, name):
    assert f"`{name}`" in servers.read_text(encoding="utf-8"), (
        f"{servers.name} no longer points to `{name}`")


# the code's numbers as each language writes them in the section's prose
CLAIMS = {
    "SERVERS.md": ["`MAX_ATTEMPTS` is {attempts}", "{first} s then {second} s",
                  "more than {wait} s (`MAX_WAIT`)", "{max_tokens} by default",
                  "({timeout} s, `TAO_TIMEOUT`)"],
    "SERVERS.fr.md": ["`MAX_ATTEMPTS` vaut {attempts}", "{first} s puis {second} s",
                     "plus de {wait} s (`MAX_WAIT`)", "{max_tokens} par défaut",
                     "({timeout} s, `TAO_TIMEOUT`)"],
}
THOUSANDS = {"SERVERS.md": ",", "SERVERS.fr.md": " "}  # 1,024 and 1 024


def test_the_numbers_in_the_prose_are_the_code_s(servers):
    first, second = (sdk_base.SDKProvider.retry_base * 2 ** n for n in (0, 1))
    values = {"attempts": sdk_base.MAX_ATTEMPTS, "first": f"{first:g}",
              "second": f"{second:g}", "wait": f"{sdk_base.MAX_WAIT:g}",
              "timeout": f"{sdk_base.DEFAULT_TIMEOUT:g}",
              "max_tokens": f"{defaults.DEFAULT_MAX_TOKENS:,}".replace(
                  ",", THOUSANDS[servers.name])}
    prose = " ".join(servers.read_text(encoding="utf-8").split())
    for claim in (c.format(**values) for c in CLAIMS[servers.name]):
        assert claim in prose, f"{servers.name} should say {claim!r}, as the code does"
    assert openai_provider.STOP_REASONS["length"] == "max_tokens"


def test_pitfalls_cover_the_six_bugs(servers, readme, wire):
    items = re.findall(r"^\d+\. \*\*(.+?)\*\*", section(servers, "## Pitfalls"), re.M)
    if servers.name == "SERVERS.md":  # the topics in the English's words; the twin's count
        topics = ["sent to OpenAI unchanged", "One user message per tool result",
                  "empty assistant `content: []`", "`next()` on a reply with no text",
                  "cut off at `max_tokens`", "SDK stream helper"]
        for topic in topics:
            assert any(topic in item for item in items), f"no pitfall about {topic!r}: {items}"
    assert len(items) == 6, f"{servers.name} should list the six pitfalls: {items}"
    assert "--show-wire" in wire and "--show-wire openai" in wire


@pytest.fixture
def copy(tmp_path):
    """A copy of shared/ and stage 07, to change a quoted line in."""
    shutil.copytree(ROOT / "shared", tmp_path / "shared",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(README.parent, tmp_path / "stage", ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def edit(path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} is not in {path}: pick another line to change"
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_the_checker_passes_the_pages_as_they_are(copy):
    for page in (README, SERVERS):
        assert stale_excerpts(page.read_text(encoding="utf-8"), copy / "stage", copy) == []
    quoted = re.search(r"^`shared/[\w/]+\.py`:\n```python", SERVERS.read_text(encoding="utf-8"),
                       re.M)
    assert quoted, "SERVERS.md quotes nothing from shared/, so the checks below prove little"


@pytest.mark.parametrize("where, old, new", [
    ("shared/providers/sdk_base.py", "return failure.wait if failure.wait <= MAX_WAIT else None",
     "return failure.wait if failure.wait < MAX_WAIT else None"),
    ("shared/providers/anthropic_provider.py", 'blocks[event["index"]]["json"] += delta',
     'blocks[event["index"]]["json"] = delta'),
    ("stage/loop.py", 'if reply.stop_reason == "max_tokens":', 'if reply.stop_reason == "length":'),
])
def test_a_quoted_line_changed_in_the_code_is_caught(copy, where, old, new):
    edit(copy / where, old, new)
    page = SERVERS if where.startswith("shared/") else README
    problems = stale_excerpts(page.read_text(encoding="utf-8"), copy / "stage", copy)
    named = where if where.startswith("shared/") else "the stage"
    assert any(f"not in {named} any more" in p for p in problems), (
        f"changing a quoted line of {where} went unnoticed: {problems}")


def test_a_path_that_is_not_a_file_is_reported(copy):
    readme = "`shared/providers/gone.py`:\n```python\nx = 1\n```\n"
    assert stale_excerpts(readme, copy / "stage", copy) == [
        "names `shared/providers/gone.py`, which is not a file of this repository"]


def test_a_partial_line_is_not_a_quote(copy):
    readme = "`shared/providers/sdk_base.py`:\n```python\nMAX_ATTEMPTS = \n```\n"
    assert stale_excerpts(readme, copy / "stage", copy), "half a line passed as a quote"

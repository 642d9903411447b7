"""Every README.md has a French twin, README.fr.md, and the two stay in step; so does every
page a README links beside it for the details (SERVERS.md and SERVERS.fr.md).

The twin is written in French of its own, not word for word, so its prose is never
compared. What a learner runs, copies or follows must be the same in both languages:
1. the headings: the same levels in the same order, one for one (the text translated);
2. the fenced blocks: the same ones, in order, byte for byte (nothing translated inside);
3. the commands: every inline `uv ...`, `tao ...`, `git ...` span of the English is in
   the French too;
4. the links: every relative target of the English is a target of the French, where a
   page that has a twin (README.md, SERVERS.md) becomes its twin (README.fr.md, ...);
5. the generated blocks (`<!-- tao compare ... -->` to `<!-- end -->`): byte for byte,
   since a test regenerates them from the English;
6. each one opens with a one-line link to the other.
A change to one README without the other fails here, and says which rule it broke.
Claims that other tests hold to the code (paths, counts) are checked in both languages
there, through `helpers.with_twins`.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import ROOT, twin
from test_readme_names import READMES, prose

# every README.md that must have a twin; tests/golden's may have one (checked if present)
TWINNED = (
    "README.md",
    "benchmarks/README.md",
    "exercises/README.md",
    "exercises/MAINTAINERS.md",
    "shared/README.md",
    "tao/README.md",
    "stages/README.md",
    "stages/01_single_call/README.md",
    "stages/02_chat_loop/README.md",
    "stages/03_system_prompt/README.md",
    "stages/03_system_prompt/PROMPT_CACHE.md",
    "stages/04_json_tool_call/README.md",
    "stages/05_react_loop/README.md",
    "stages/06_tool_registry/README.md",
    "stages/07_native_tools/README.md",
    "stages/07_native_tools/SERVERS.md",
    "stages/07_native_tools/MEASURED.md",
    "stages/08_memory_budget/README.md",
    "stages/09_stop_reasons/README.md",
    "stages/10_concurrent_tools/README.md",
    "stages/11_workspace_files/README.md",
    "stages/11_workspace_files/sample/README.md",
    "stages/12_confined_shell/README.md",
    "stages/12_confined_shell/sample/README.md",
    "stages/13_approval_audit/README.md",
    "stages/13_approval_audit/sample/README.md",
    "stages/14_injection_drill/README.md",
    "stages/14_injection_drill/sample/README.md",
    "tests/README.md",
)
OPTIONAL = ("tests/golden/README.md",)

COMMAND = ("uv ", "tao ", "python", "git ", "bash ", ".ci/", "pip ", "llama-")
FENCED = re.compile(r"^```.*?^```[ \t]*$", re.S | re.M)
HEADING = re.compile(r"^(#{1,6})[ \t]+\S", re.M)
SPAN = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
LINK = re.compile(r"\]\(([^)\s]+)\)")
GENERATED = re.compile(r"^<!-- (?!end -->)(.+?) -->\n(.*?)^<!-- end -->$", re.S | re.M)
FIRST_LINK = re.compile(r"\[[^\]\n]+\]\(([^)\s]+)\)")


def headings(text: str) -> list[str]:
    """The heading levels, in order, outside fenced blocks: ['#', '##', '##', ...]."""
    return HEADING.findall(prose(text))


def commands(text: str) -> set[str]:
    """The inline code spans that are commands a learner types."""
    return {s for s in SPAN.findall(prose(text)) if s.startswith(COMMAND)}


def links(text: str) -> set[str]:
    """Relative link targets outside fenced blocks, without their #fragment (a heading's
    anchor is in the language of the page it points into)."""
    targets = {t.split("#")[0] for t in LINK.findall(prose(text))}
    return {t for t in targets if t and "://" not in t and not t.startswith("mailto:")}


def french_target(folder: Path, target: str, ready) -> set[str]:
    """What the French may link to for an English target: the twin of a page (README.md,
    SERVERS.md) once `ready(page)` says it exists, else either."""
    if not target.endswith(".md") or target.endswith(".fr.md"):
        return {target}
    french = str(twin(Path(target)))
    return {french} if ready((folder / target).resolve()) else {target, french}


def twin_problems(english: str, french: str, folder: Path = ROOT, ready=None,
                  name: str = "README.md") -> list[str]:
    """How a French twin is out of step with its English page `name` (rules 1 to 6)."""
    ready = ready or twin_ready
    problems = []
    if headings(english) != headings(french):
        problems.append(f"1. headings: the English has levels {headings(english)}, "
                        f"the French {headings(french)}")
    en_fences, fr_fences = FENCED.findall(english), FENCED.findall(french)
    if en_fences != fr_fences:
        pairs = zip(en_fences, fr_fences, strict=False)
        differ = [n for n, (a, b) in enumerate(pairs, 1) if a != b]
        problems.append(f"2. fenced blocks: {len(en_fences)} in the English, "
                        f"{len(fr_fences)} in the French; the ones that differ: {differ}")
    if missing := sorted(commands(english) - commands(french)):
        problems.append(f"3. commands the French lacks: {missing}")
    fr_links = links(body(french))
    if missing := sorted(t for t in links(body(english))
                         if not french_target(folder, t, ready) & fr_links):
        problems.append(f"4. links the French lacks (a page with a twin becomes its "
                        f"twin, README.md its README.fr.md): {missing}")
    if GENERATED.findall(english) != GENERATED.findall(french):
        problems.append("5. generated blocks (<!-- ... --> to <!-- end -->) differ")
    french_name = twin(Path(name)).name
    if first_link(english) != french_name:
        problems.append(f"6. the English does not open with a one-line link to {french_name}")
    if first_link(french) != name:
        problems.append(f"6. the French does not open with a one-line link to {name}")
    return problems


def body(text: str) -> str:
    """The README after its first line (the link to the other language, rule 6)."""
    return text.split("\n", 1)[-1]


def first_link(text: str) -> str | None:
    """The target of the first line, when that line is one link and nothing else."""
    line = text.split("\n", 1)[0].strip()
    match = FIRST_LINK.fullmatch(line)
    return match.group(1) if match else None


def twin_ready(readme: Path) -> bool:
    """Whether a README.md's French twin exists (a link to it must then go to the twin)."""
    return twin(readme).is_file()


CHECKED = TWINNED + tuple(n for n in OPTIONAL if twin(ROOT / n).is_file())


@pytest.mark.parametrize("name", CHECKED)
def test_the_french_twin_is_in_step(name):
    readme = ROOT / name
    assert twin(readme).is_file(), f"{name} has no French twin ({twin(readme).name} beside it)"
    problems = twin_problems(readme.read_text("utf-8"), twin(readme).read_text("utf-8"),
                             readme.parent, name=readme.name)
    assert not problems, f"{name} and its twin are out of step:\n" + "\n".join(problems)


def test_the_list_is_every_readme_of_the_repository():
    found = {p.relative_to(ROOT).as_posix() for p in READMES}
    assert found - set(OPTIONAL) == set(TWINNED), (
        f"pages not listed in TWINNED: {sorted(found - set(TWINNED + OPTIONAL))}; "
        f"listed but gone: {sorted(set(TWINNED) - found)}")


# ---- the checker itself: each rule, broken once in a real pair, is reported

PAIR = "stages/01_single_call/README.md"


def broken(rule: str, english: str, french: str) -> tuple[str, str]:
    """The pair with one rule broken: an edit to one side only."""
    fence = FENCED.search(french).group(0)
    edits = {
        "1": (english, re.sub(r"^## ", "### ", french, count=1, flags=re.M)),
        "2": (english, french.replace(fence, fence.replace("messages", "message", 1))),
        "3": (english + "\nRun `uv run tao tour --lang fr`.\n", french),
        "4": (english + "\nSee [the tests](../../tests/README.md).\n", french),
        "5": (english + "\n<!-- tao compare -->\n| a |\n<!-- end -->\n",
              french + "\n<!-- tao compare -->\n| b |\n<!-- end -->\n"),
        "6": (english, french.split("\n", 1)[1]),
    }
    return edits[rule]


@pytest.mark.parametrize("rule", "123456")
def test_a_change_to_one_side_breaks_its_rule(rule):
    readme = ROOT / PAIR
    english, french = readme.read_text("utf-8"), twin(readme).read_text("utf-8")
    assert twin_problems(english, french, readme.parent) == []
    problems = twin_problems(*broken(rule, english, french), readme.parent)
    assert [p[0] for p in problems] == [rule], problems


def test_a_readme_link_must_go_to_the_twin_once_the_twin_exists():
    english = "[Français](README.fr.md)\n\nSee [tests](../tests/README.md#x).\n"
    french = "[English](README.md)\n\nVoir [les tests](../tests/README.md).\n"
    stages = ROOT / "stages"
    assert twin_problems(english, french, stages, ready=lambda p: False) == []
    assert [p[0] for p in twin_problems(english, french, stages, ready=lambda p: True)] == ["4"]
    to_twin = french.replace("tests/README.md", "tests/README.fr.md")
    assert twin_problems(english, to_twin, stages, ready=lambda p: True) == []

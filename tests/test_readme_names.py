"""Every name a README gives a learner to open or run is one the repository has.

A README that points at `exercises/e03_strict_parser.py` when the file is called
`e01_strict_parser.py` sends the learner nowhere; a README that says `Reply` has four
fields teaches a shape the code does not have. These tests read the READMEs for what
they point at (paths, exercise files, commands, links) and check each against the
repository: existence and counts, never wording.
"""

from __future__ import annotations

import dataclasses
import os
import re
from pathlib import Path

import pytest
from helpers import ROOT, readme_section, with_twins

from shared.providers import Reply


def _readmes() -> list[Path]:
    """Every English page of the kit: each README.md and the pages beside one that it
    links for the details (stages/07_native_tools/SERVERS.md); French twins (`*.fr.md`)
    are found through `twin`. Hidden folders and caches (.venv's thousand folders among
    them: a walk into it was a tenth of a second in every test worker) unvisited."""
    found = []
    for folder, subfolders, files in os.walk(ROOT):
        subfolders[:] = [d for d in subfolders if not d.startswith(".")
                         and d not in ("__pycache__", "node_modules")]
        if "README.md" in files:
            found += [Path(folder) / name for name in files
                      if name.endswith(".md") and not name.endswith(".fr.md")]
    return sorted(found)


READMES = _readmes()

TOP = ("stages", "shared", "tao", "tests", "exercises", "benchmarks")
# a path inside this repository, as READMEs write it: from the top, or an exercise file
REPO_PATH = re.compile(rf"^(?:\.\./)*(?:(?:{'|'.join(TOP)})/[\w./-]*|e\d\d_\w+\.py)$")
BACKTICKED = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
LINK = re.compile(r"\]\(([^)\s]+)\)")
RUN = re.compile(r"\buv run (?:python )?([\w./-]+\.py)\b")
TEMPLATE = re.compile(r"NN|\*|<|\.\.\.|…")  # `exercises/eNN_*.py`: a pattern, not a name


def prose(text: str) -> str:
    """The README without its fenced blocks (code shown, not a name to open)."""
    return re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)


def pointers(readme: Path) -> dict[str, Path]:
    """What a README points at in this repository, as written -> where that is: paths
    backticked or run with `uv run` (from the top; a bare eNN file from exercises/),
    and links (from the README's own folder, as a browser follows them)."""
    text = readme.read_text(encoding="utf-8")
    named = {m.split(":")[0] for m in BACKTICKED.findall(prose(text))} | set(RUN.findall(text))
    out = {n: resolve(readme, n) for n in (n.rstrip("/.,") for n in named)
           if n and not TEMPLATE.search(n) and (REPO_PATH.match(n) or n.startswith("../"))}
    for link in LINK.findall(text):
        target = link.split("#")[0]
        if target and "://" not in target and not target.startswith("mailto:"):
            out[link] = (readme.parent / target).resolve()
    return out


def resolve(readme: Path, name: str) -> Path:
    """Where a written path points: beside the README for `../`, exercises/ for a bare
    eNN file, else from the top of the repository."""
    if name.startswith("../"):
        return (readme.parent / name).resolve()
    if re.match(r"^e\d\d_", name):
        return ROOT / "exercises" / name
    return ROOT / name


def test_the_readmes_are_found():
    names = {p.relative_to(ROOT).as_posix() for p in READMES}
    assert {"README.md", "exercises/README.md", "stages/05_react_loop/README.md"} <= names


@pytest.mark.parametrize("readme", with_twins(READMES),
                         ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_path_a_readme_names_exists(readme):
    missing = sorted(n for n, path in pointers(readme).items() if not path.exists())
    assert not missing, (
        f"{readme.relative_to(ROOT)} names files the repository does not have: {missing}. "
        "A learner who opens them finds nothing; point at the real file (exercises are "
        "numbered in stage order, see exercises/info.toml)")


EXERCISE = r"[Ee]xerci[sc]es?"  # English, or French (exercice)
EXERCISE_CALL = re.compile(EXERCISE + r" ([\d, andet]+?) \(((?:`exercises/e\d\d_\w+\.py`"
                           r"(?:, | and | et )?)+)\)")


def test_an_exercise_named_with_its_number_and_file_agrees_on_both():
    """"Exercise 3 (`exercises/e03_x.py`)": the number said is the number in the file."""
    wrong = []
    for readme in with_twins(READMES):
        for numbers, files in EXERCISE_CALL.findall(readme.read_text(encoding="utf-8")):
            said = [int(n) for n in re.findall(r"\d+", numbers)]
            named = [int(n) for n in re.findall(r"exercises/e(\d\d)_", files)]
            if said != named:
                wrong.append((readme.relative_to(ROOT).as_posix(), said, named))
    assert not wrong, f"exercise numbers and file names disagree: {wrong}"


MENTION = re.compile(rf"\b{EXERCISE} (\d+(?:(?:, | and | to | et | à )\d+)*)")


def test_every_exercise_number_a_readme_mentions_is_an_exercise():
    """"exercise 6", "exercises 15 and 16", "5 to 14": each is a file in exercises/."""
    have = {int(p.name[1:3]) for p in (ROOT / "exercises").glob("e[0-9][0-9]_*.py")}
    unknown = []
    for readme in with_twins(READMES):
        for numbers in MENTION.findall(readme.read_text(encoding="utf-8")):
            said = [int(n) for n in re.findall(r"\d+", numbers)]
            if " to " in numbers or " à " in numbers:
                said = list(range(said[0], said[-1] + 1))
            unknown += [(readme.relative_to(ROOT).as_posix(), n) for n in said if n not in have]
    assert not unknown, f"READMEs mention exercises that do not exist: {unknown}"


NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
           "deux": 2, "trois": 3, "quatre": 4, "cinq": 5, "sept": 7}  # and the twins' French
SENTENCE = r"(?:[^.]|\.(?!\s))*?"  # up to the end of a sentence (a dot, then space)
FIELD_COUNT = re.compile(rf"`Reply`{SENTENCE}\b({'|'.join(NUMBERS)}|\d+) (?:fields|champs)",
                         re.S)


def test_what_a_readme_counts_of_reply_is_what_reply_holds():
    fields = [f.name for f in dataclasses.fields(Reply)]
    claims = [(readme.relative_to(ROOT).as_posix(), m)
              for readme in with_twins(READMES)
              for m in FIELD_COUNT.findall(readme.read_text(encoding="utf-8"))]
    assert claims, "stage 01's README says how many fields `Reply` has; keep that claim"
    wrong = [(where, said) for where, said in claims
             if NUMBERS.get(said, said) != len(fields) and said != str(len(fields))]
    assert not wrong, f"`Reply` has {len(fields)} fields ({fields}), READMEs say: {wrong}"


LISTED = re.compile(rf"`Reply`{SENTENCE} (?:fields?|champs) ?: "
                    r"((?:`\w+`(?:,\s+|\s+(?:and|et)\s+)?)+)")


def test_the_reply_fields_a_readme_lists_are_the_real_ones():
    """A backticked list after `Reply` (`text`, `tool_calls`, ...) names real fields."""
    fields = {f.name for f in dataclasses.fields(Reply)}
    for readme in with_twins(READMES):
        text = readme.read_text(encoding="utf-8")
        for listing in LISTED.findall(text):
            named = set(re.findall(r"`(\w+)`", listing))
            assert named == fields, (
                f"{readme.relative_to(ROOT)} lists Reply's fields as {sorted(named)}; "
                f"the dataclass has {sorted(fields)}")


# ---- where the ideas come from: sources a learner can open, as links

STAGE_READMES = sorted(ROOT.glob("stages/[0-9][0-9]_*/README.md"))
WHERE = "Where this comes from"
# what the kit was designed from is not published: no page may send a learner to it, and
# "the book" means only `tao book` (written so, as a command)
UNPUBLISHED = re.compile(
    r"\b(?:chapters?|chapitres?|listings?|agent-0\d\d)\b"
    r"|\b(?:the|this|that|a) book\b|\bbook's\b|\b(?:le|du|au|ce|un) livre\b"
    r"|\bchapter's exercise\b", re.I)
URL = re.compile(r"https?://[^\s)>\]]+")
LINK_TARGET = re.compile(r"\]\((https?://[^)\s]+)\)")
NANOBOT_PINNED = re.compile(
    r"https://github\.com/HKUDS/nanobot/(?:tree|blob)/(?:v\d+\.\d+\.\d+|[0-9a-f]{7,40})\b")


def sections(text: str) -> list[str]:
    """The `## ` headings of a README, in order."""
    return re.findall(r"^## (.+)$", prose(text), re.M)


def page_id(p: Path) -> str:
    """A page as a test id: its path in the repository."""
    return p.relative_to(ROOT).as_posix()


def stage_readme(p: Path) -> str:
    """A stage README as a test id: `05_react_loop/README.fr.md`."""
    return f"{p.parent.name}/{p.name}"


def without_code(text: str) -> str:
    """A page's prose: no fenced blocks, no inline code spans."""
    return BACKTICKED.sub("", prose(text))


STAGE_CODE = sorted(ROOT.glob("stages/[0-9][0-9]_*/*.py"))


@pytest.mark.parametrize("path", with_twins(READMES) + STAGE_CODE,
                         ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_page_sends_a_learner_to_a_source_they_cannot_open(path):
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".md":
        text = without_code(text)
    found = sorted({m.group(0) for m in UNPUBLISHED.finditer(text)})
    assert not found, (
        f"{path.relative_to(ROOT)} mentions {found}: the notes the kit was designed from are "
        "not published. Say the idea in the kit's own words, and cite what a learner can "
        "open (a paper, an API guide, a repository at a version), as a link")


@pytest.mark.parametrize("readme", with_twins(STAGE_READMES), ids=stage_readme)
def test_each_stage_ends_with_where_its_ideas_come_from_as_links(readme):
    heads = sections(readme.with_name("README.md").read_text(encoding="utf-8"))
    assert heads[-1] == WHERE, f"{readme.parent.name}: end with '## {WHERE}': {heads}"
    section = readme_section(readme, f"## {WHERE}")
    assert LINK_TARGET.search(section), f"{stage_readme(readme)}: the section links nothing"


@pytest.mark.parametrize("readme", with_twins(READMES), ids=page_id)
def test_every_outside_source_is_a_link(readme):
    text = without_code(readme.read_text(encoding="utf-8"))
    bare = URL.findall(LINK_TARGET.sub("]()", text))
    assert not bare, f"{readme.relative_to(ROOT)} writes addresses as text, not links: {bare}"


@pytest.mark.parametrize("readme", with_twins(READMES), ids=page_id)
def test_nanobot_is_cited_as_a_link_at_the_version_read(readme):
    """nanobot changes under its `main`: each paragraph that names it links its repository
    at a tag or commit, and no link points at a moving branch."""
    text = prose(readme.read_text(encoding="utf-8"))
    loose = [p[:60] for p in re.split(r"\n\s*\n", text)
             if re.search(r"\bnanobot\b", BACKTICKED.sub("", p)) and not NANOBOT_PINNED.search(p)]
    assert not loose, f"{readme.relative_to(ROOT)}: nanobot named with no pinned link: {loose}"
    moving = re.findall(r"github\.com/HKUDS/nanobot/(?:tree|blob)/(?:main|master|HEAD)\b", text)
    assert not moving, f"{readme.relative_to(ROOT)} links nanobot's moving branch"


QUIRK_LIST = re.compile(r"`TAO_OFFLINE_QUIRK=([\w|]+)`")


def test_the_quirk_lists_in_the_readmes_name_every_quirk():
    from shared.providers.offline.quirks import QUIRKS

    lists = [(readme.relative_to(ROOT).as_posix(), found.split("|"))
             for readme in with_twins(READMES)
             for found in QUIRK_LIST.findall(readme.read_text(encoding="utf-8"))]
    assert lists, "the top README lists the quirks TAO_OFFLINE_QUIRK takes"
    wrong = [(where, sorted(set(QUIRKS) ^ set(named))) for where, named in lists
             if sorted(named) != sorted(QUIRKS)]
    assert not wrong, f"quirk lists that leave out or invent a quirk: {wrong}"


MAINTAINERS_ONLY = ("TAO_STUB_CHECK", "TAO_EXERCISES", "mutant", ".ci/run", "info.toml")


@pytest.mark.parametrize("readme", with_twins([ROOT / "exercises" / "README.md"]), ids=page_id)
def test_the_exercises_readme_is_the_learners_and_links_the_maintainers_page(readme):
    text = readme.read_text(encoding="utf-8")
    found = [word for word in MAINTAINERS_ONLY if word in text]
    assert not found, f"{page_id(readme)} speaks to maintainers ({found}): MAINTAINERS.md"
    page = "MAINTAINERS.fr.md" if readme.name == "README.fr.md" else "MAINTAINERS.md"
    assert f"]({page})" in text and (readme.parent / page).is_file()
    assert "uv run tao check" in text.split("\n## ")[0], "the learner's commands come first"

"""Every name a README gives a learner to open or run is one the repository has.

A README that points at `exercises/e03_strict_parser.py` when the file is called
`e01_strict_parser.py` sends the learner nowhere; a README that says `Reply` has four
fields teaches a shape the code does not have. These tests read the READMEs for what
they point at (paths, exercise files, commands, links) and check each against the
repository: existence and counts, never wording.
"""

from __future__ import annotations

import ast
import dataclasses
import os
import re
from pathlib import Path

import pytest
from helpers import ROOT, readme_section, with_twins

from shared.providers import Reply


def _readmes() -> list[Path]:
    """Every README.md of the kit; hidden folders and caches (.venv's thousand folders
    among them: a walk into it was a tenth of a second in every test worker) unvisited."""
    found = []
    for folder, subfolders, files in os.walk(ROOT):
        subfolders[:] = [d for d in subfolders if not d.startswith(".")
                         and d not in ("__pycache__", "node_modules")]
        if "README.md" in files:
            found.append(Path(folder) / "README.md")
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


# ---- the "From the book" tables: each row says where a listing lives now, by name

STAGE_READMES = sorted(ROOT.glob("stages/[0-9][0-9]_*/README.md"))
IDENTIFIER = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?$")


BOOK = "From the book"


def sections(text: str) -> list[str]:
    """The `## ` headings of a README, in order."""
    return re.findall(r"^## (.+)$", prose(text), re.M)


def book_section(readme: Path) -> str:
    """The body of a stage README's `## From the book` section ('' when it has none), or
    of the section at its place in a twin."""
    return readme_section(readme, "## From the book")


def book_rows(readme: Path) -> list[list[str]]:
    """The cells of each row of the section's table (its header and rule left out)."""
    lines = book_section(readme).splitlines()
    return [[c.strip() for c in row.strip("|").split(" | ")]
            for row, below in zip(lines, lines[1:] + [""], strict=True)
            if row.startswith("| ") and not below.startswith("|---")]


def defined(path: Path) -> set[str]:
    """Functions, classes, constants and `Class.method` names a Python file defines."""
    names = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        if isinstance(node, ast.ClassDef):
            names |= {f"{node.name}.{n.name}" for n in node.body
                      if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
            names |= {f"{node.name}.{t.target.id}" for t in node.body  # dataclass fields
                      if isinstance(t, ast.AnnAssign) and isinstance(t.target, ast.Name)}
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {t.id for t in targets if isinstance(t, ast.Name)}
    return names


def stage_readme(p: Path) -> str:
    """A stage README as a test id: `05_react_loop/README.fr.md`."""
    return f"{p.parent.name}/{p.name}"


@pytest.mark.parametrize("readme", with_twins(STAGE_READMES), ids=stage_readme)
def test_each_stage_maps_back_to_the_book_right_before_run_it(readme):
    # the English decides where the section goes; a twin's headings follow it one for one
    heads = sections(readme.with_name("README.md").read_text(encoding="utf-8"))
    assert BOOK in heads and "Run it" in heads, f"{readme.parent.name}: {heads}"
    assert heads.index(BOOK) + 1 == heads.index("Run it"), (
        f"{readme.parent.name}: '## From the book' goes right before '## Run it': {heads}")
    rows = book_rows(readme)
    assert rows, f"{stage_readme(readme)}: the section has no rows"
    for cells in rows:
        assert len(cells) == 3 and all(cells), f"a row needs book, here, and why: {cells}"


@pytest.mark.parametrize("readme", with_twins(STAGE_READMES), ids=stage_readme)
def test_what_the_book_table_names_is_defined_where_it_points(readme):
    """`function` names in a row's "here" cell exist in a file the section links, or in
    the stage's own files: a rename in the code must not leave the map pointing nowhere."""
    section = book_section(readme)
    files = [(readme.parent / link).resolve() for link in LINK.findall(section)
             if link.endswith(".py") and "://" not in link]
    files += sorted(readme.parent.glob("*.py"))
    known = set().union(*(defined(f) for f in files if f.exists()))
    missing = []
    for cells in book_rows(readme):
        if len(cells) != 3:
            continue
        here = re.sub(r"\[`[^`]*`\]\([^)]*\)", "", cells[1])  # the links' own names
        missing += [n for n in BACKTICKED.findall(here)
                    if IDENTIFIER.match(n) and n not in known]
    assert not missing, (
        f"{stage_readme(readme)}'s 'From the book' names what no linked file defines: "
        f"{sorted(set(missing))}")


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

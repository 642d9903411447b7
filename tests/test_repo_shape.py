"""The teaching promises, kept true as stages are added."""

from __future__ import annotations

import re

import pytest
from helpers import ROOT, STAGE_DIRS, with_twins

import tao as cli
from tao.stage_diff import changed_files

# Changed code lines between consecutive stages. A step that teaches one idea stays within
# MAX_STEP. A larger one says so in its README, on a line `Larger step (N changed lines):`
# that gives its size and its reason, so a learner knows before reading the diff; N must
# be the size `tao diff NN` prints (one measure: changed code lines, blank lines not
# counted), and no step may pass MAX_LARGER_STEP: past that the stage teaches two things
# and must be split. The French twin says the same on its own line, `Étape plus longue
# (N lignes de code modifiées) :`, and its N is checked the same way.
MIN_STEP, MAX_STEP, MAX_LARGER_STEP = 15, 80, 180
LARGER_STEP = {
    "README.md": re.compile(r"^Larger step \((\d+) changed lines\):", re.M),
    "README.fr.md": re.compile(r"^Étape plus (?:longue|grande) \((\d+) lignes (?:de code )?"
                               r"(?:modifiées|changées)\) ?:", re.M),
}
SAY_LARGER_STEP = {"README.md": "Larger step ({n} changed lines):",
                   "README.fr.md": "Étape plus longue ({n} lignes de code modifiées) :"}


def code_files(folder):
    return {p.name: p.read_text(encoding="utf-8").splitlines()
            for p in folder.glob("*.py")}


def changed_lines(old, new) -> int:
    """The step's size as `tao diff` counts it (its one measure: changed code lines,
    blank lines not counted), so the README and `tao diff NN` say the same number."""
    return sum(sum(diff.counts()) for diff in changed_files(old, new) if not diff.is_doc)


@pytest.mark.parametrize("path", with_twins([ROOT / "README.md"]), ids=lambda p: p.name)
def test_readme_shows_the_two_commands_and_every_stage(path):
    readme = path.read_text(encoding="utf-8")
    assert "uv run tao tour" in readme and "uv run pytest" in readme
    for folder in STAGE_DIRS:
        assert folder.name in readme, f"{path.name}'s stage map misses {folder.name}"


def test_stages_are_numbered_from_01_without_gaps():
    numbers = [int(p.name[:2]) for p in STAGE_DIRS]
    assert numbers == list(range(1, len(numbers) + 1))
    assert all(re.fullmatch(r"\d\d_[a-z0-9_]+", p.name) for p in STAGE_DIRS)


@pytest.mark.parametrize("folder", STAGE_DIRS, ids=lambda p: p.name)
def test_every_stage_has_main_and_readme(folder):
    assert (folder / "main.py").is_file(), f"{folder.name} has no main.py"
    assert (folder / "README.md").is_file(), f"{folder.name} has no README.md"


@pytest.mark.parametrize("folder", STAGE_DIRS, ids=lambda p: p.name)
def test_shared_is_imported_never_copied(folder):
    shared_names = {p.name for p in (ROOT / "shared").rglob("*.py")} - {"__init__.py"}
    copied = shared_names & {p.name for p in folder.glob("*.py")}
    assert not copied, f"{folder.name} has its own copy of shared/ files: {sorted(copied)}"
    assert "from shared." in (folder / "main.py").read_text(encoding="utf-8")


@pytest.mark.parametrize("pair", list(zip(STAGE_DIRS, STAGE_DIRS[1:], strict=False)),
                         ids=lambda pair: f"{pair[0].name[:2]}->{pair[1].name[:2]}")
def test_consecutive_stages_differ_by_a_readable_step(pair):
    old, new = pair
    n = changed_lines(old, new)
    step = f"{old.name} -> {new.name} changes {n} code lines"
    for readme in with_twins([new / "README.md"]):
        declared = LARGER_STEP[readme.name].search(readme.read_text(encoding="utf-8"))
        if n > MAX_STEP:
            assert declared, (f"{step} (budget {MAX_STEP}); split the stage, or give its size "
                              f"and reason in its {readme.name}: "
                              f"'{SAY_LARGER_STEP[readme.name].format(n=n)} ...'")
        if declared:
            said = int(declared.group(1))
            assert said == n, f"{step}, but its {readme.name} says {said}: write {n}"
            assert n > MAX_STEP, f"{step}: within the budget, so {readme.name} needs no such line"
    assert n <= MAX_LARGER_STEP, f"{step}, past {MAX_LARGER_STEP}: it teaches two things"
    assert n >= MIN_STEP, f"{old.name} -> {new.name} changes only {n} lines: is it a stage?"


@pytest.mark.parametrize("folder", STAGE_DIRS[1:], ids=lambda p: p.name)
def test_a_readme_and_tao_diff_give_a_step_the_same_size(folder, capsys):
    assert cli.main(["diff", folder.name[:2], "--stat"]) == 0
    printed = re.search(r"^  code: (\d+) changed lines \(\+\d+ -\d+\)", capsys.readouterr().out,
                        re.M)
    assert printed, "tao diff --stat no longer prints the step's size"
    for readme in with_twins([folder / "README.md"]):
        declared = LARGER_STEP[readme.name].search(readme.read_text(encoding="utf-8"))
        if declared:
            assert declared.group(1) == printed.group(1), (
                f"{folder.name}/{readme.name} says {declared.group(1)} changed lines, "
                f"`tao diff {folder.name[:2]}` prints {printed.group(1)}")


# a python fence, optionally right under a line that names its file: `shared/x.py`:
FENCE = re.compile(r"(?:^`([^`\n]+)` ?:\n)?```python\n(.*?)```", re.S | re.M)


def stale_excerpts(readme: str, folder, root=ROOT) -> list[str]:
    """Problems with a README's python excerpts: each must be whole lines of its file
    (the one named on the line above it), or else of the stage's own code."""
    stage = "\n".join("\n".join(lines) for lines in code_files(folder).values())
    problems = []
    for path, excerpt in FENCE.findall(readme):
        source = root / path if path else None
        if source is not None and not (
                source.is_file() and root.resolve() in source.resolve().parents):
            problems.append(f"names `{path}`, which is not a file of this repository")
            continue
        code = source.read_text(encoding="utf-8") if source else stage
        if "\n" + excerpt.rstrip("\n") + "\n" not in "\n" + code + "\n":
            problems.append(f"shows code that is not in {path or 'the stage'} any more:\n"
                            f"{excerpt}")
    return problems


@pytest.mark.parametrize("folder", STAGE_DIRS, ids=lambda p: p.name)
def test_readme_code_excerpts_match_the_stage_code(folder):
    assert FENCE.search((folder / "README.md").read_text(encoding="utf-8")), (
        f"{folder.name}/README.md shows no code from the stage")
    pages = sorted(p for p in folder.glob("*.md") if not p.name.endswith(".fr.md"))
    for path in with_twins(pages):  # the README, and the pages it links for the details
        readme, where = path.read_text(encoding="utf-8"), f"{folder.name}/{path.name} "
        problems = stale_excerpts(readme, folder)
        assert not problems, where + f"\n{where}".join(problems)


def test_the_budget_counter_counts():
    # the budget test above is only as good as this counter
    assert changed_lines(STAGE_DIRS[0], STAGE_DIRS[0]) == 0
    assert changed_lines(STAGE_DIRS[0], STAGE_DIRS[1]) > 0

"""Every name a hint cites is in the file it sends the learner to, in both languages.

A hint that says "compare REFUSALS in stages/09_stop_reasons/loop.py" after the table
became GATES sends the learner looking for something that is not there. A hint's rung
names a file (`stages/..., shared/...`) and the names to look for in it; a rung that
names no file speaks of the exercise's own file, or of one another rung names. Names are
what reads as code: snake_case, UPPER_CASE, a leading underscore; not what follows a dot
(`reply.tool_calls` is an attribute of the learner's own object), nor a keyword argument
(`sort_keys=True`).
"""

from __future__ import annotations

import re
import tomllib

import pytest
from helpers import ROOT

FILES = re.compile(r"\b(?:stages|shared|tao|exercises)/[\w./*-]+\.py\b")
URL = re.compile(r"https?://\S+")  # an address outside the kit names no code of ours
CODE_NAME = re.compile(r"(?<![\w.])(_?[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+|[A-Z]{3,}"
                       r"(?:_[A-Z0-9]+)*)(?![\w])(?!=[^=])")  # not a keyword argument


def hints() -> list[tuple[str, str, str]]:
    """(language, exercise name, hint) for every hint of info.toml and info.fr.toml."""
    found = []
    for language, file in (("en", "info.toml"), ("fr", "info.fr.toml")):
        table = tomllib.loads((ROOT / "exercises" / file).read_text(encoding="utf-8"))
        found += [(language, e["name"], e["hint"]) for e in table["exercises"]]
    return found


def files_named(text: str) -> list[str]:
    """The repository files a piece of text names (a `*` names every file it matches)."""
    return [str(p.relative_to(ROOT)) for pattern in FILES.findall(text)
            for p in sorted(ROOT.glob(pattern))] or FILES.findall(text)


def missing_names(exercise: str, hint: str) -> list[str]:
    """Each code name a rung of `hint` cites that the file(s) it points to do not hold."""
    everywhere = files_named(hint) + [f"exercises/{exercise}.py"]
    problems = []
    for rung in hint.strip().split("\n\n"):
        where = files_named(rung) or everywhere
        texts = [(ROOT / f).read_text(encoding="utf-8") if (ROOT / f).is_file() else ""
                 for f in where]
        for name in dict.fromkeys(CODE_NAME.findall(FILES.sub("", URL.sub("", rung)))):
            if not any(re.search(rf"(?<!\w){re.escape(name)}(?!\w)", t) for t in texts):
                problems.append(f"{name} (looked for in {', '.join(where)})")
    return problems


def test_the_hints_are_read_and_cite_names():
    cited = {name for _, _, hint in hints() for name in CODE_NAME.findall(hint)}
    assert {"GATES", "call_model", "MISSING_RESULT", "_parse_tool_call"} <= cited
    assert "REFUSALS" in CODE_NAME.findall("Compare REFUSALS and call_model in x.py")
    assert CODE_NAME.findall("reply.tool_calls, LLMResponse.should_run, f(sort_keys=True)") == []


@pytest.mark.parametrize(("language", "exercise", "hint"), hints(),
                         ids=[f"{lang}-{name[:3]}" for lang, name, _ in hints()])
def test_every_name_a_hint_cites_is_in_the_file_it_names(language, exercise, hint):
    for path in FILES.findall(hint):
        assert list(ROOT.glob(path)), f"hint {exercise} ({language}) names {path}: no such file"
    missing = missing_names(exercise, hint)
    assert not missing, (f"hint {exercise} ({language}) cites names its files do not hold: "
                         + "; ".join(missing))

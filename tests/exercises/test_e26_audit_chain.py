# Don't change the tests! They tell you when exercises/e26_audit_chain.py is done.
import hashlib
import json

import pytest
from exercise_support import need


def log(ex, n=5) -> list[str]:
    """A log of `n` calls, written by append."""
    append = need(ex, "append", "lines", "entry")
    lines = []
    for i in range(n):
        append(lines, {"turn": 1, "tool": "write_file", "args": {"path": f"f{i}.txt"},
                       "decision": "allow" if i % 2 else "deny", "by": "user"})
    assert len(lines) == n, "append adds the line to the log it is given"
    return lines


def first_break(ex, lines):
    return need(ex, "first_break", "lines")(lines)


def test_each_line_holds_the_sha256_of_the_line_before_as_it_is(ex):
    lines = log(ex, 3)
    prevs = [json.loads(line)["prev"] for line in lines]
    assert prevs[0] == ex.GENESIS, f"the first line's prev is GENESIS, got {prevs[0]!r}"
    for before, prev in zip(lines, prevs[1:], strict=False):
        expected = hashlib.sha256(before.encode("utf-8")).hexdigest()
        assert prev == expected, (
            "prev is hashlib.sha256(line_before.encode('utf-8')).hexdigest(): the line as it "
            f"is in the list, no newline added; expected {expected}, got {prev}")


def test_append_returns_the_line_and_leaves_the_entry_alone(ex):
    append = need(ex, "append", "lines", "entry")
    lines, entry = [], {"tool": "run", "args": {"command": "ls"}}
    line = append(lines, entry)
    assert lines == [line] and json.loads(line) == {**entry, "prev": ex.GENESIS}
    assert entry == {"tool": "run", "args": {"command": "ls"}}, (
        "append writes a copy: the caller's entry gets no 'prev' key")
    assert "\n" not in line


def test_an_intact_log_holds(ex):
    assert first_break(ex, log(ex)) is None
    assert first_break(ex, []) is None, "an empty log breaks nothing"


def edit(line: str, **changes) -> str:
    entry = json.loads(line)
    entry.update(changes)
    return json.dumps(entry, ensure_ascii=False)


@pytest.mark.parametrize(("change", "at", "what"), [
    (lambda ls: ls[:2] + ls[3:], 3, "line 3 removed: the new line 3 does not hold line 2"),
    (lambda ls: ls[1:], 1, "the first line removed: the new first line is not GENESIS"),
    (lambda ls: ls[:2] + [ls[1]] + ls[2:], 3, "line 2 copied after itself"),
    (lambda ls: ls[:1] + [edit(ls[1], decision="deny")] + ls[2:], 3,
     "line 2's decision edited: line 3 no longer holds its hash"),
    (lambda ls: ls[:1] + [edit(ls[1], by="policy")] + ls[2:], 3, "line 2's 'by' edited"),
    (lambda ls: ls[:1] + [ls[1].replace(": ", ":")] + ls[2:], 3,
     "line 2 re-spaced: the same JSON, other bytes"),
    (lambda ls: ls[:1] + ["not json"] + ls[2:], 2, "a line that is no JSON"),
    (lambda ls: ls[:1] + ["[1, 2]"] + ls[2:], 2, "JSON, but not an object"),
    (lambda ls: ls[:1] + [ls[1][:30]] + ls[2:], 2, "a line cut off"),
])
def test_a_change_shows_at_the_line_after_it(ex, change, at, what):
    got = first_break(ex, change(log(ex)))
    assert got == at, f"{what}: the first line that breaks the chain is {at}, got {got}"


def test_a_removal_patched_in_the_next_prev_still_shows(ex):
    lines = log(ex)
    patched = edit(lines[3], prev=hashlib.sha256(lines[1].encode()).hexdigest())
    got = first_break(ex, lines[:2] + [patched] + lines[4:])
    assert got == 4, (
        "line 3 removed and line 4's prev rewritten to follow line 2: the prev is part of "
        "line 4's bytes, so line 5 (now 4) no longer holds its hash. A chain that leaves "
        f"each line's own prev out of its hash misses this (got {got})")


def test_the_first_break_is_the_one_named(ex):
    lines = log(ex, 6)
    broken = lines[:1] + ["x"] + lines[2:4] + ["y"] + lines[5:]
    assert first_break(ex, broken) == 2

# Don't change the tests! They tell you when exercises/e22_edit_file.py is done.
import pytest
from exercise_support import need


def edit(ex, tmp_path, content: bytes, old, new, name="a.py"):
    """Write `content` to a file, edit it; (what edit_file returned or raised, the bytes after)."""
    path = tmp_path / name
    path.write_bytes(content)
    edit_file = need(ex, "edit_file", "path", "old", "new")
    try:
        outcome = edit_file(path, old, new)
    except ValueError as refused:
        outcome = refused
    return outcome, path.read_bytes()


def test_the_one_match_is_replaced_and_the_rest_stays(ex, tmp_path):
    before = b"def f():\n    x = 1\n    return x\n"
    outcome, after = edit(ex, tmp_path, before, "x = 1", "x = 2")
    assert outcome == "edited a.py: 1 replacement", (
        f"edit_file should return 'edited a.py: 1 replacement', got {outcome!r}")
    assert after == b"def f():\n    x = 2\n    return x\n", after


@pytest.mark.parametrize(("content", "old", "found", "why"), [
    (b"a = 1\nb = 1\n", "= 1", 2, "two matches: which one? never guess"),
    (b"a = 1\nb = 1\nc = 1\n", "= 1", 3, "three matches"),
    (b"a = 1\n", "= 2", 0, "no match: the model misremembers the file"),
    (b"x = 1\n", "X = 1", 0, "a match must be exact: case counts"),
    (b"aaa", "aa", 2, "overlapping matches count: 'aa' starts at 0 and at 1 in 'aaa'"),
    (b"a.b axb", "axb", 1, None),
    (b"a.b a.b", "a.b", 2, "the text is text, not a pattern: '.' is a dot"),
])
def test_anything_but_one_match_is_refused_with_the_count(ex, tmp_path, content, old, found,
                                                           why):
    outcome, after = edit(ex, tmp_path, content, old, "Z")
    if found == 1:
        assert outcome == "edited a.py: 1 replacement" and after == content.replace(
            old.encode(), b"Z"), f"{old!r} occurs once in {content!r}: {outcome!r}, {after!r}"
        return
    assert isinstance(outcome, ValueError), f"{why}: expected ValueError, got {outcome!r}"
    assert f"occurs {found} times" in str(outcome), (
        f"the message should say how many: 'occurs {found} times', got {str(outcome)!r}")
    assert after == content, f"a refused edit must leave the file as it was, it is {after!r}"


def test_an_empty_old_is_refused(ex, tmp_path):
    outcome, after = edit(ex, tmp_path, b"abc\n", "", "X")
    assert isinstance(outcome, ValueError), (
        f"an empty `old` matches everywhere and nowhere: ValueError, got {outcome!r}")
    assert after == b"abc\n"


def test_pattern_characters_are_plain_text(ex, tmp_path):
    outcome, after = edit(ex, tmp_path, b"print(f(x))\n", "f(x)", "g(x)")
    assert outcome == "edited a.py: 1 replacement" and after == b"print(g(x))\n", (
        f"'f(x)' is text to find, not a regular expression: {outcome!r}, {after!r}")


def test_windows_line_endings_stay(ex, tmp_path):
    outcome, after = edit(ex, tmp_path, b"one\r\ntwo\r\nthree\r\n", "two", "2")
    assert after == b"one\r\n2\r\nthree\r\n", (
        f"every other byte stays as it was, '\\r\\n' included; got {after!r}")


def test_an_old_that_spans_lines_and_accents_and_no_final_newline(ex, tmp_path):
    outcome, after = edit(ex, tmp_path, "é = 1\nà = 2".encode(), "1\nà", "3\nà")
    assert outcome == "edited a.py: 1 replacement", outcome
    assert after == "é = 3\nà = 2".encode(), (
        f"UTF-8 text, a match over a line break, and no newline added at the end: {after!r}")


def test_a_new_text_that_holds_the_old_one_is_one_replacement(ex, tmp_path):
    outcome, after = edit(ex, tmp_path, b"[x]\n", "x", "xx")
    assert after == b"[xx]\n" and outcome == "edited a.py: 1 replacement", (outcome, after)


def test_the_message_names_the_file_not_its_whole_path(ex, tmp_path):
    outcome, _ = edit(ex, tmp_path, b"k = 1\n", "k", "v", name="notes.txt")
    assert outcome == "edited notes.txt: 1 replacement", outcome
    refused, _ = edit(ex, tmp_path, b"k k\n", "k", "v", name="notes.txt")
    assert "notes.txt" in str(refused) and str(tmp_path) not in str(refused), (
        f"a refusal names the file the model knows, not where it lives: {refused}")


def test_the_new_text_goes_in_as_it_is_backslashes_too(ex, tmp_path):
    new = r"DIGITS = re.compile(r'\d+')  # C:\new\table"
    outcome, after = edit(ex, tmp_path, b"DIGITS = None\n", "DIGITS = None", new)
    assert outcome == "edited a.py: 1 replacement" and after == (new + "\n").encode(), (
        f"the new text is text: its backslashes stay backslashes, got {after!r}")

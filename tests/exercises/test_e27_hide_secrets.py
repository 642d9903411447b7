# Don't change the tests! They tell you when exercises/e27_hide_secrets.py is done.
import copy

import pytest
from exercise_support import need

KEY = "sk-ant-api03-Zq7xW9bLm2Pc4Ds8"


def hide(ex, value, secrets=(KEY,)):
    return need(ex, "hide", "value", "secrets")(value, list(secrets))


def test_a_key_split_between_two_arguments_is_hidden_in_both(ex):
    args = {"path": "notes.txt", "old": KEY[:12], "new": KEY[12:]}
    got = hide(ex, args)
    assert got == {"path": "notes.txt", "old": "*" * 12, "new": "*" * (len(KEY) - 12)}, (
        "each half is PIECE characters or more of the key: hide each, one * per character "
        f"(a search for the whole key finds neither half); got {got}")


def test_a_key_inside_a_longer_string_is_hidden_there_only(ex):
    got = hide(ex, {"command": f"curl -H 'x-api-key: {KEY}' https://example.org"})
    assert got == {"command": f"curl -H 'x-api-key: {'*' * len(KEY)}' https://example.org"}, got


@pytest.mark.parametrize(("text", "expected"), [
    (KEY[-8:], "*" * 8),  # exactly PIECE characters: hidden
    (KEY[-7:], KEY[-7:]),  # one fewer: could be any word
    ("end:" + KEY[-8:], "end:" + "*" * 8),  # a piece at the very end of a string
    (KEY[:8] + "|" + KEY[8:16], "*" * 8 + "|" + "*" * 8),  # two pieces, one apart
])
def test_pieces_of_exactly_piece_characters(ex, text, expected):
    assert ex.PIECE == 8
    got = hide(ex, text)
    assert got == expected, f"hide({text!r}) should be {expected!r}, got {got!r}"


def test_every_level_of_the_data_and_every_secret(ex):
    other = "ghp_1234567890abcdefXYZ"
    value = {"calls": [{"args": {"token": other}}, [KEY, 3]], "n": 2, "ok": True,
             "none": None, "x": 1.5}
    got = hide(ex, value, [KEY, other])
    assert got == {"calls": [{"args": {"token": "*" * len(other)}}, ["*" * len(KEY), 3]],
                   "n": 2, "ok": True, "none": None, "x": 1.5}, (
        f"lists and dicts at any depth, every secret given, other values as they are: {got}")


def test_keys_and_short_secrets_are_left_alone(ex):
    got = hide(ex, {KEY: "on and on", "on": "fine"}, [KEY, "on"])
    assert got == {KEY: "on and on", "on": "fine"}, (
        "dict keys are names, not secrets, and a secret shorter than PIECE ('on') would "
        f"hide ordinary words: nothing changes here; got {got}")


def test_the_value_given_is_not_changed(ex):
    value = {"args": {"old": KEY[:12], "new": KEY[12:]}, "list": [KEY]}
    kept = copy.deepcopy(value)
    hide(ex, value)
    assert value == kept, "hide returns a copy: the call's own arguments still run as given"

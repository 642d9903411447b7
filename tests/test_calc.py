"""The calculator: its limits sit exactly where its docstring says, and are checked up front.

The everyday arithmetic and refusals are in test_stages_04_06.py (the stage 06 tool's
view); these tests pin the edges a plausible wrong limit or a removed check would move.
Every test name says "calculator": benchmarks/mutation.py selects them by that word.
"""

from __future__ import annotations

import ast
import subprocess
import sys

import pytest
from helpers import ROOT, clean_env

from shared import calc
from shared.calc import MAX_DIGITS, MAX_LENGTH, CalcError, evaluate

NINES = "10 ** 299 * 9 + (10 ** 299 - 1)"  # 10**300 - 1, without passing through 10**300


@pytest.mark.parametrize(("expression", "value"), [
    (NINES, 10 ** 300 - 1),              # 300 digits: the most a whole number may have
    (f"-({NINES})", -(10 ** 300 - 1)),
    ("(10**150) * (10**149)", 10 ** 299),
    ("2 ** 996", 2 ** 996),              # the largest power of two under 301 digits
    ("1.001 ** 400", 1.001 ** 400),      # a big exponent on a small base is cheap
    ("0 ** 5", 0),                       # no logarithm of zero in the up-front check
    ("1 ** 10000", 1),                   # the exponent limit is inclusive
    ("2 ** -9999", 0.0),
    ("0.5 ** 5000", 0.0),                # a base under 1 only shrinks
    ("- - 3", 3),
    ("  1 + 2 \n", 3),                   # surrounding blanks are not a syntax error
    ("9" * 200, int("9" * 200)),         # exactly 200 characters
])
def test_calculator_allows_everything_up_to_its_limits(expression, value):
    assert evaluate(expression) == value, f"{expression} was refused or miscomputed"


@pytest.mark.parametrize(("expression", "message"), [
    ("10 ** 300", "more than 300 digits"),          # 301 digits
    ("(-10) ** 300", "more than 300 digits"),
    (f"-({NINES}) - 1", "more than 300 digits"),  # the size counts, not the sign
    ("(10**150) * (10**150)", "more than 300 digits"),
    ("10 ** 301", "more than 300 digits"),
    ("2 ** 997", "more than 300 digits"),
    ("1 ** 10001", "exponent too large"),
    ("2 ** -20000", "exponent too large"),
    ("1e308 * 10", "too large for a float"),
    ("7 % 0", "division by zero"),
    ("7 // 0", "division by zero"),
    ("True + 1", "not allowed"),         # a bool is not a number here
    ("1 + \x00", "not an arithmetic expression"),
    ("9" * 201, "longer than 200 characters"),
])
def test_calculator_refuses_past_its_limits_with_the_reason(expression, message):
    with pytest.raises(CalcError, match=message):
        evaluate(expression)


def test_calculator_limits_are_the_documented_ones():
    assert (MAX_LENGTH, MAX_DIGITS) == (200, 300), "update the tests' edge cases with the limits"


def test_calculator_refuses_what_is_not_a_string():
    with pytest.raises(CalcError, match="must be a string"):
        evaluate(12)


@pytest.mark.parametrize("expression", ["7 ** 400", "10 ** 301", "(-7) ** 400", "2 ** 1000",
                                        "1 ** 20000"])
def test_calculator_refuses_a_huge_power_before_computing_it(expression, monkeypatch):
    computed = []

    def spy(base, exponent):
        computed.append((base, exponent))
        return pow(base, exponent)

    monkeypatch.setitem(calc.OPERATORS, ast.Pow, spy)
    with pytest.raises(CalcError):
        evaluate(expression)
    assert not computed, f"{expression}: the power was computed, then refused (too late)"


def test_calculator_turns_any_overflow_into_a_refusal(monkeypatch):
    def overflowing(a, b):
        raise OverflowError("math range error")

    monkeypatch.setitem(calc.OPERATORS, ast.Mult, overflowing)
    with pytest.raises(CalcError, match="result too large"):
        evaluate("2 * 3")


def test_calculator_refuses_nine_to_the_nine_to_the_nine_in_a_blink():
    # run apart, with its own deadline: were the up-front check gone, 9**9**9 would
    # compute for hours in C, where no in-process timeout can stop it
    code = ("from shared.calc import evaluate, CalcError\n"
            "try:\n    evaluate('9**9**9')\nexcept CalcError as exc:\n    print(exc)\n")
    try:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              env=clean_env(), cwd=ROOT, timeout=10)
    except subprocess.TimeoutExpired:
        pytest.fail("9**9**9 was computed instead of refused up front (still busy after 10 s)")
    assert done.stdout.strip() == f"result would have more than {MAX_DIGITS} digits", done.stderr

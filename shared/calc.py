"""Arithmetic for the calculator tool, without `eval`.

The expression is parsed into a Python syntax tree and only numbers and arithmetic
operators are walked; anything else is refused. Size limits keep `9**9**9` or a
10,000-digit number from eating the machine: they are refused, quickly. A power is
judged before it is computed; every other result is checked exactly once it exists.
"""

from __future__ import annotations

import ast
import math
import operator

MAX_LENGTH = 200  # characters of expression
MAX_DIGITS = 300  # digits in any whole number, typed or computed
TOO_BIG = 10 ** MAX_DIGITS  # the smallest whole number with more than MAX_DIGITS digits

OPERATORS = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.Pow: operator.pow, ast.USub: operator.neg, ast.UAdd: operator.pos,
}


class CalcError(ValueError):
    """The expression is not arithmetic, or is too big to compute."""


def evaluate(expression: str) -> int | float:
    """The value of an arithmetic expression such as `12 * (3 + 4) / 2`."""
    if not isinstance(expression, str):
        raise CalcError("the expression must be a string")
    expression = expression.replace("^", "**").strip()
    if len(expression) > MAX_LENGTH:
        raise CalcError(f"expression longer than {MAX_LENGTH} characters")
    try:
        tree = ast.parse(expression, mode="eval")
    except (SyntaxError, ValueError) as exc:
        raise CalcError(f"not an arithmetic expression: {expression!r}") from exc
    return _walk(tree.body)


def _walk(node):
    """The value of one syntax-tree node, refusing anything but arithmetic."""
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return _checked(node.value)
    if isinstance(node, ast.UnaryOp) and type(node.op) in OPERATORS:
        return _checked(OPERATORS[type(node.op)](_walk(node.operand)))
    if isinstance(node, ast.BinOp) and type(node.op) in OPERATORS:
        left, right = _walk(node.left), _walk(node.right)
        if isinstance(node.op, ast.Pow):
            _check_power(left, right)
        try:
            return _checked(OPERATORS[type(node.op)](left, right))
        except ZeroDivisionError:
            raise CalcError("division by zero") from None
        except OverflowError:
            raise CalcError("result too large") from None
    raise CalcError(f"not allowed in arithmetic: {ast.unparse(node)!r}")


def _check_power(base, exponent) -> None:
    """Refuse a power whose result would have far more than MAX_DIGITS digits, before
    computing it; one near the limit is computed (cheaply) and `_checked` decides."""
    if abs(base) > 1 and exponent > 0 and exponent * math.log10(abs(base)) > MAX_DIGITS:
        raise CalcError(f"result would have more than {MAX_DIGITS} digits")
    if abs(exponent) > 10_000:
        raise CalcError("exponent too large")


def _checked(value):
    """The value itself, if it is a real number within the limits."""
    if isinstance(value, complex):
        raise CalcError("the result is not a real number")
    if isinstance(value, float) and not math.isfinite(value):
        raise CalcError("result too large for a float")
    if isinstance(value, int) and abs(value) >= TOO_BIG:
        raise CalcError(f"result would have more than {MAX_DIGITS} digits")
    return value

"""Exercise 27 (stage 13): secrets kept out of the audit log, even in pieces.

`hide(value, secrets)` returns a copy of `value`, JSON data (dicts, lists, strings,
numbers, True, False, None, nested as deep as they like), in which every character of
a string that is part of PIECE characters in a row that also appear, in a row, in one
of `secrets` is replaced by "*", one "*" for each. Everything else is kept as it is:
the rest of each string, dict keys, numbers, booleans, None. So a secret anywhere in a
longer string is hidden, and a key split between two arguments is hidden in each of
them (each piece PIECE characters long or more). A secret shorter than PIECE hides
nothing: it would hide ordinary words. `value` itself is never changed.

    hide({"old": "sk-abcdef123", "new": "456789xyz"}, ["sk-abcdef123456789xyz"])
    # -> {"old": "************", "new": "*********"}

Try it: `MY_API_KEY=... uv run stages/13_approval_audit/main.py --audit a.jsonl`, ask to
write the key to a file, and look for it in a.jsonl.
"""

PIECE = 8  # Don't change this line


def hide(value, secrets: list[str]):
    """`value` with every run of a secret's characters hidden."""
    # TODO: recurse into dicts and lists; in a string, mark every window of PIECE
    # characters that also appears in a secret
    raise NotImplementedError("exercise 27: hide")

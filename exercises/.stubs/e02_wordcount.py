"""Exercise 02 (stage 05): add a tool to stage 05's registry.

Write `wordcount`, a tool in stage 05's shape (an `args` dict in, a string out), and
`add_wordcount`, which returns a copy of a registry with it added. Done when
`uv run pytest tests/exercises/test_e02_wordcount.py` passes: the tests run stage 05's
own `agent_step`, unchanged, with your registry. Adding a tool needs no loop change.
"""


def wordcount(args: dict) -> str:
    """The number of words in args["text"], as a string: {"text": "a b  c"} -> "3"."""
    # TODO: split the text on whitespace and count the pieces
    raise NotImplementedError("exercise 02: wordcount")


def add_wordcount(tools: dict) -> dict:
    """A new registry: every tool in `tools`, plus "wordcount"; `tools` stays as it was."""
    # TODO: copy the dict, then add the tool under its name
    raise NotImplementedError("exercise 02: add_wordcount")

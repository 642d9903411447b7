"""Wrong on purpose (e02): the given dict is changed in place and returned."""


def wordcount(args: dict) -> str:
    """The number of words in args["text"], as a string: {"text": "a b  c"} -> "3"."""
    # split() with no argument splits on any run of whitespace and drops empty pieces
    return str(len(args["text"].split()))


def add_wordcount(tools: dict) -> dict:
    """A new registry: every tool in `tools`, plus "wordcount"; `tools` stays as it was."""
    # a copy, so the caller's registry is not changed behind its back
    tools["wordcount"] = wordcount
    return tools

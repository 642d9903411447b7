"""Exercise 22 (stage 11): an edit that changes one exact piece of a file, or nothing.

`edit_file(path, old, new)` replaces the text `old` by `new` in the file at `path` (a
Path, already checked to be in the workspace; the file is UTF-8) and returns
"edited <the file's name>: 1 replacement". `old` must occur exactly once. Count every
place where it starts, overlapping ones too: "aa" is in "aaa" twice. When it occurs 0
times, or 2 times or more, raise ValueError with the count in its message, such as
"'x = 1' occurs 2 times in a.py": the model then quotes more of the text around it. An
empty `old` is refused the same way. A refused edit leaves the file as it was; a done
edit leaves the rest of the file byte for byte as it was, its line endings ("\r\n"
too) and all.

    edit_file(Path("a.py"), "x = 1", "x = 2")   # -> "edited a.py: 1 replacement"

Try it: `uv run stages/11_workspace_files/main.py`, then ask to replace a word that
occurs twice in README.md.
"""

from pathlib import Path


def edit_file(path: Path, old: str, new: str) -> str:
    """Replace the one occurrence of `old` by `new` in the file; ValueError otherwise."""
    # TODO: count the matches (overlapping too), refuse unless exactly one, then replace
    raise NotImplementedError("exercise 22: edit_file")

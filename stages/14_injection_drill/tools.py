"""The tool registry, as native tool definitions.

Each tool is a `Tool(name, description, schema, run)` record: the JSON Schema tells
the model which arguments exist, and the provider sends it in the API's own `tools`
field. A tool may be `async` (it waits without blocking the others) or plain (the loop
gives it a thread), and READ_ONLY names the tools that only read, so calls to them may
run at the same time.
"""

import os
import re
from datetime import UTC, datetime
from pathlib import Path

import shell
import workspace

from shared.calc import evaluate
from shared.providers import Tool


def now(args: dict) -> str:
    """return the current UTC time. No arguments."""
    return datetime.now(UTC).isoformat()


def wordcount(args: dict) -> str:
    """count the words in `text`."""
    return str(len(args["text"].split()))


def calculator(args: dict) -> str:
    """work out an arithmetic `expression` such as "12 * (3 + 4)"."""
    return str(evaluate(args["expression"]))


MAX_READ = 1500  # characters of a file one read_file shows; it says where to go on
MAX_HITS = 40  # lines one grep shows; it says how many more matched
LINE = {"type": "integer", "description": "a line number; the first line is 1"}


def list_dir(args: dict) -> str:
    """list the files and folders in folder `path` (a folder ends with /)."""
    with os.scandir(workspace.inside(args.get("path") or ".")) as entries:
        names = sorted(e.name + "/" * e.is_dir(follow_symlinks=False) for e in entries)
    return "\n".join(names) or "(an empty folder)"


def read_file(args: dict) -> str:
    """lines `start` to `end` of file `path`, numbered, cut at MAX_READ characters."""
    text = workspace.inside(args["path"]).read_text(encoding="utf-8", errors="replace")
    lines = text.splitlines()
    start = max(int(args.get("start") or 1), 1)
    end = int(args.get("end") or len(lines))
    text = "\n".join(f"{n:>4}  {line}" for n, line in enumerate(lines, 1) if start <= n <= end)
    if len(text) > MAX_READ:  # say so: a cut the model cannot see reads as the whole file
        going_on = start + text[:MAX_READ].count("\n")
        return text[:MAX_READ] + f"\n[cut at {MAX_READ} characters: read on from line {going_on}]"
    return text or f"(no lines there: the file has {len(lines)})"


def grep(args: dict) -> str:
    """the lines that match regular expression `pattern` in file or folder `path`, capped."""
    pattern, where = re.compile(args["pattern"]), workspace.inside(args.get("path") or ".")
    found = [where] if where.is_file() else sorted(
        Path(folder, name) for folder, _, names in os.walk(where) for name in names)
    hits = []
    for path in found:  # as `grep -r` does: symlinks are not followed, and .git is left out
        shown = path.relative_to(workspace.ROOT)
        if path.is_symlink() or ".git" in shown.parts:
            continue
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        hits += [f"{shown}:{n}: {line}" for n, line in enumerate(lines, 1) if pattern.search(line)]
    more = [f"[{len(hits) - MAX_HITS} more matching lines not shown]"] * (len(hits) > MAX_HITS)
    return "\n".join(hits[:MAX_HITS] + more) or "(no line matches)"


def write_file(args: dict) -> str:
    """write `content` to file `path`: a new file, or a whole new version of one."""
    target = workspace.inside(args["path"], write=True)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(args["content"], encoding="utf-8")
    return f"wrote {len(args['content'])} characters to {args['path']}"


def edit_file(args: dict) -> str:
    """replace `old` by `new` in file `path`, where `old` occurs exactly once."""
    target = workspace.inside(args["path"], write=True)
    text = target.read_bytes().decode("utf-8")  # bytes: its line endings stay as they are
    found = len(re.findall(f"(?={re.escape(args['old'])})", text)) if args["old"] else 0
    if found != 1:  # 0: nothing to change; 2 or more: which one? Never guess
        raise ValueError(f"{args['old']!r} occurs {found} times in {args['path']}; it must "
                         "occur exactly once: quote more of the text around it")
    target.write_bytes(text.replace(args["old"], args["new"]).encode("utf-8"))
    return f"edited {args['path']}: 1 replacement"


def _text_arg(name: str, about: str) -> dict:
    """A JSON Schema for one required string argument."""
    return {"type": "object", "properties": {name: {"type": "string", "description": about}},
            "required": [name]}


def _args(*required: str, **described) -> dict:
    """A JSON Schema: each argument a string with its description, or its own schema."""
    return {"type": "object", "required": list(required), "properties": {
        name: about if isinstance(about, dict) else {"type": "string", "description": about}
        for name, about in described.items()}}


TOOLS = [
    Tool("now", "Return the current UTC time.", {"type": "object", "properties": {}}, now),
    Tool("wordcount", "Count the words in a text.",
         _text_arg("text", "the text whose words to count"), wordcount),
    Tool("calculator", "Work out an arithmetic expression such as 12 * (3 + 4).",
         _text_arg("expression", "numbers, + - * / // % ** and parentheses"), calculator),
    Tool("list_dir", "List the files and folders in a folder of the workspace.",
         _args(path="the folder, relative to the workspace (default: the workspace itself)"),
         list_dir),
    Tool("grep", "Find or search every line that matches a pattern, in a file or a folder.",
         _args("pattern", pattern="what to look for, in Python's re syntax: TODO|FIXME",
               path="the file or folder to look in (default: the whole workspace)"), grep),
    Tool("read_file", "Read a file of the workspace, its lines numbered.",
         _args("path", path="the file, relative to the workspace", start=LINE, end=LINE),
         read_file),
    Tool("write_file", "Write a file in the workspace: all of its content, new or not.",
         _args("path", "content", path="the file, relative to the workspace",
               content="everything the file will hold"), write_file),
    Tool("edit_file", "Edit a file: replace or change one exact piece of its text.",
         _args("path", "old", "new", path="the file, relative to the workspace",
               old="the text to replace; it must occur exactly once",
               new="what goes in its place"), edit_file),
]
READ_ONLY = {"now", "wordcount", "calculator", "list_dir", "read_file", "grep"}  # side by side
# offered only inside a wall, or with --unconfined (main.py adds it to TOOLS)
RUN = Tool("run", "Run a shell command (bash) in the workspace, inside a sandbox with no "
           "network: its exit code and output.",
           _args("command", command="the command line, such as: python3 -m unittest",
                 timeout={"type": "number", "description": f"seconds it may take (default "
                          f"{shell.TIMEOUT}, at most {shell.MAX_TIMEOUT})"}), shell.run)
TIMEOUTS = {"run": shell.MAX_TIMEOUT + 5}  # seconds the loop waits for a call, if not TIMEOUT


def find_tool(name: str) -> Tool | None:
    """The registered tool with this name, or None."""
    return next((tool for tool in TOOLS if tool.name == name), None)

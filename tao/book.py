"""`tao book`: the kit as a static site, in English and in French, read from the repository.

    tao book [--out DIR] [--open]

Pages: the stage map (index), one page per stage (its README, every code file
highlighted, the change from the stage before side by side, its golden transcript as the
terminal shows it), the exercises (stub, hints folded a rung at a time, the solution shut
until opened) and the comparison (stage 07's measured tables, and `tao compare`'s own
report on the offline model and on a recorded real model). Each page exists under `en/`
and `fr/`; a French page uses the `README.fr.md` beside a README when there is one, else
the English text under a one-line notice, and every page links to its twin.

The site opens from file:// with nothing fetched: one local stylesheet, no script, no
font. Libraries, all already installed with rich: markdown-it-py for the READMEs (the
same parser rich uses), pygments for the code, rich's own HTML export for transcripts.
Diffs and the compare report come from `tao diff`'s and `tao compare`'s own code.
"""

from __future__ import annotations

import functools
import html
import io
import os
import posixpath
import re
import shutil
import subprocess
import tempfile
import tomllib
import webbrowser
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.text import Text

from shared.printable import visible

from .i18n import LANGUAGES, MESSAGES
from .i18n import text as message  # `text` names a page's text here
from .repo import ROOT, CannotWrite, CLIError
from .stage_diff import CONTEXT, FileDiff, changed_files, text_of
from .stage_verbs import stage_summary

LANGS = ("en", "fr")
MARKER = ".tao-book"  # in a folder this command wrote: the only kind it will empty
COMMENT = re.compile(r"<!--(?:(?!-->).)*-->", re.S)  # one HTML comment, nothing after it
CSS = Path(__file__).with_name("book.css")
PYGMENTS_STYLE = "friendly"
# the kit's own file kinds, by name: finding a lexer by file name scans every plugin
SUFFIXES = {".py": "python", ".toml": "toml", ".md": "markdown", ".json": "json",
            ".txt": "text", ".sh": "bash"}

# The book's own words, by language: its entries of tao's one message table
# (tao/i18n.py), "book.NAME" there, TEXT[lang]["NAME"] here.
TEXT = {lang: {key.removeprefix("book."): entry.get(lang) or entry["en"]
               for key, entry in MESSAGES.items() if key.startswith("book.")}
        for lang in LANGUAGES}


@dataclass
class Stage:
    """One stage folder as the book shows it."""

    number: str
    folder: Path

    @property
    def page(self) -> str:
        """Its page, inside a language folder."""
        return f"stages/{self.folder.name}.html"

    def code_files(self, book: Book) -> list[Path]:
        """Every file of the stage the book may show but its pages (README, and the ones
        it links for the details, each a page of its own), by name (as `tao diff` lists
        them)."""
        return sorted(p for p in self.folder.rglob("*") if "__pycache__" not in p.parts
                      and p.suffix != ".md"
                      and book.shareable(p.relative_to(book.root).as_posix()))


@dataclass
class Book:
    """What one build reads (`root`) and what it has written so far (`pages`)."""

    root: Path
    comparisons: Callable[[Path], list[tuple[str, str]]]
    pages: dict[str, str] = field(default_factory=dict)  # site path -> html
    files: set[str] = field(default_factory=set)  # repo files linked to: each gets a page

    def stages(self) -> list[Stage]:
        """The stages, in order."""
        folders = sorted(p for p in (self.root / "stages").glob("[0-9][0-9]_*") if p.is_dir())
        return [Stage(p.name[:2], p) for p in folders]

    @functools.cached_property
    def tracked(self) -> set[str] | None:
        """The files git tracks under `root` (paths from it); None outside a git work
        tree (a kit unpacked from an archive) or without git."""
        try:
            done = subprocess.run(["git", "-C", str(self.root), "ls-files", "-z"],
                                  capture_output=True, timeout=60)
        except (OSError, subprocess.SubprocessError):
            return None
        if done.returncode:
            return None
        return set(os.fsdecode(name) for name in done.stdout.split(b"\0") if name)

    def shareable(self, path: str) -> bool:
        """True if the book may copy the file at `path` (from `root`) into a page: a file
        inside the repository, links resolved, and tracked by git (outside git: with no
        hidden part in its path, like .env)."""
        parts = posixpath.normpath(path).split("/")
        if path.startswith("/") or ".." in parts:
            return False
        full = self.root / path
        try:
            full.resolve().relative_to(self.root.resolve())
        except (ValueError, OSError):
            return False  # a link that leads out of the repository
        if not full.is_file():
            return False
        if self.tracked is None:
            return not any(part.startswith(".") for part in parts)
        return posixpath.normpath(path) in self.tracked

    def exercises(self) -> list[dict]:
        """exercises/info.toml's entries, each with its number."""
        path = self.root / "exercises" / "info.toml"
        if not path.exists():
            return []
        entries = tomllib.loads(path.read_text(encoding="utf-8")).get("exercises", [])
        return [{**entry, "number": n} for n, entry in enumerate(entries, 1)]


# ---------------------------------------------------------------- markdown, links, code


def slug(heading: str, seen: set[str]) -> str:
    """The id GitHub gives a heading (lower case, punctuation dropped, a dash per space),
    so that a README's `#anchor` links land on the book's page too."""
    base = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
    name, n = base, 0
    while name in seen:
        n += 1
        name = f"{base}-{n}"
    seen.add(name)
    return name


@functools.cache
def highlight(code: str, filename: str = "", lang: str = "") -> str:
    """`code` as highlighted HTML in a <pre class="hl">, plain when no lexer fits. Cached:
    both languages show the same code."""
    from pygments import highlight as pyg
    from pygments.formatters import HtmlFormatter

    lexer = _lexer(lang or Path(filename).suffix or Path(filename).name)
    if lexer is None:
        return f'<pre class="hl"><code>{html.escape(code)}</code></pre>'
    body = pyg(code, lexer, HtmlFormatter(nowrap=True))
    return f'<pre class="hl"><code>{body}</code></pre>'


@functools.cache
def _lexer(kind: str):
    """The pygments lexer for a fence's language or a file's suffix (".py"); None if none.
    Cached: finding a lexer by file name looks through all of them."""
    from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
    from pygments.util import ClassNotFound

    try:
        if kind in SUFFIXES:
            return get_lexer_by_name(SUFFIXES[kind])
        return (get_lexer_for_filename(f"x{kind}") if kind.startswith(".")
                else get_lexer_by_name(kind))
    except ClassNotFound:
        return None


def site_target(book: Book, repo_path: str) -> str | None:
    """The site page (and #id) that shows the repository file `repo_path`, or None when
    the site has nothing for it (a folder, a missing file)."""
    path, _, frag = repo_path.partition("#")
    # a twin (README.fr.md, SERVERS.fr.md) is its page's: each language shows its own text
    path = re.sub(r"\.(?:fr)\.md$", ".md", posixpath.normpath(path))
    stages = {s.folder.name: s for s in book.stages()}
    parts = path.split("/")
    if path in ("README.md", "."):
        return "index.html" + (f"#{frag}" if frag else "")
    if parts[0] == "stages" and len(parts) >= 2 and parts[1] in stages:
        stage = stages[parts[1]]
        if len(parts) == 2 or parts[2].startswith("README"):
            return stage.page + (f"#{frag}" if frag else "")
        if (stage.folder / "/".join(parts[2:])).is_file() and not path.endswith(".md"):
            return f"{stage.page}#file-{'/'.join(parts[2:])}"
    if parts[:2] == ["tests", "golden"] and len(parts) == 3:
        for stage in stages.values():
            if parts[2] == f"{stage.folder.name}.txt":
                return f"{stage.page}#transcript"
    names = {e["name"] for e in book.exercises()}
    if parts[0] == "exercises":
        if len(parts) == 2 and parts[1].startswith("README"):
            return "exercises.html" + (f"#{frag}" if frag else "")
        if parts[-1].removesuffix(".py") in names:
            return f"exercises.html#{parts[-1].removesuffix('.py')}"
    if book.shareable(path):
        book.files.add(path)
        return f"files/{path}.html"
    return None


def markdown(book: Book, source: str, text: str, page: str) -> str:
    """A README (repo path `source`) as HTML for `page`: GitHub's heading ids, tables,
    fences highlighted, and every link into the repository pointed at the site page that
    shows it (or left as plain text when the site has nothing for it)."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"highlight": lambda code, lang, _: highlight(code, "", lang)
                                   if lang else ""}).enable(["table", "strikethrough"])
    tokens = md.parse(text)
    seen: set[str] = set()
    for index, token in enumerate(tokens):
        if token.type == "heading_open":
            token.attrSet("id", slug(tokens[index + 1].content, seen))
        for child in token.children or []:
            if child.type == "link_open":
                child.attrSet("href", _link(book, source, str(child.attrGet("href")), page))
            elif child.type == "image":  # a link to it: the page fetches nothing
                child.attrSet("src", _link(book, source, str(child.attrGet("src")), page))
    for kind in ("html_block", "html_inline"):
        md.add_render_rule(kind, _raw_html)
    md.add_render_rule("image", _image)
    links = md.renderer.rules.get("link_open")
    closes = md.renderer.rules.get("link_close")
    open_dropped: list[bool] = []

    def link_open(self, tokens, idx, options, env):
        dropped = tokens[idx].attrGet("href") == ""
        open_dropped.append(dropped)
        return "" if dropped else (links(tokens, idx, options, env) if links
                                   else self.renderToken(tokens, idx, options, env))

    def link_close(self, tokens, idx, options, env):
        if open_dropped and open_dropped.pop():
            return ""
        return (closes(tokens, idx, options, env) if closes
                else self.renderToken(tokens, idx, options, env))

    md.add_render_rule("link_open", link_open)
    md.add_render_rule("link_close", link_close)
    return md.renderer.render(tokens, md.options, {})


def _raw_html(self, tokens, idx, options, env) -> str:
    """A README's raw HTML, shown as the text it is: nothing runs, nothing is fetched. A
    comment alone (stage 07's `<!-- tao compare ... -->` markers) is dropped."""
    raw = tokens[idx].content
    return "" if COMMENT.fullmatch(raw.strip()) else html.escape(raw)


def _image(self, tokens, idx, options, env) -> str:
    """A picture as a link to it, named by its alt text: the book fetches nothing."""
    alt, src = html.escape(tokens[idx].content or "image"), tokens[idx].attrGet("src")
    return f'<a href="{html.escape(str(src))}">{alt}</a>' if src else alt


def _link(book: Book, source: str, href: str, page: str) -> str:
    """`href` as written in the README at `source`, as seen from `page` ("" = no link)."""
    if re.match(r"^[a-z][a-z0-9+.-]*:", href, re.I) or href.startswith("#"):
        return href  # another site (the reader follows it; nothing is fetched), or this page
    target = site_target(book, posixpath.join(posixpath.dirname(source), href))
    lang = page.split("/", 1)[0]
    return relative(page, f"{lang}/{target}") if target else ""


def relative(page: str, target: str) -> str:
    """The link from site path `page` to site path `target` (which may carry a #id)."""
    path, _, frag = target.partition("#")
    here = page.partition("#")[0]
    rel = "" if path in ("", here) else posixpath.relpath(path, posixpath.dirname(here) or ".")
    if not rel and not frag:
        rel = posixpath.basename(here)
    return rel + (f"#{frag}" if frag else "")


def readme(book: Book, folder: Path, lang: str, name: str = "README.md") -> tuple[str, str, bool]:
    """(repo path, text, translated) of the README (or the page `name` beside it) the page
    in `lang` shows: its twin (README.fr.md) when there is one."""
    stem = name.removesuffix(".md")
    if lang != "en" and (folder / f"{stem}.{lang}.md").exists():
        path, translated = folder / f"{stem}.{lang}.md", True
    else:
        path, translated = folder / name, lang == "en"
    if not path.exists():
        return str(path.relative_to(book.root)), "", translated
    return str(path.relative_to(book.root)), path.read_text(encoding="utf-8"), translated


# ---------------------------------------------------------------- pieces of a stage page


def side_by_side(diff: FileDiff, old: str, new: str) -> str:
    """One file's change as a two-column table, changed rows marked (+/- and colour) and
    three lines of context, as `tao diff --side` shows it; never wider than the page."""
    import difflib

    rows = [f'<tr><th colspan="2">{html.escape(old)}/{html.escape(diff.name)}</th>'
            f'<th colspan="2">{html.escape(new)}/{html.escape(diff.name)}</th></tr>']
    matcher = difflib.SequenceMatcher(None, diff.old, diff.new, autojunk=False)
    for group in matcher.get_grouped_opcodes(CONTEXT):
        rows.append(f'<tr class="hunk"><td colspan="4">@@ {group[0][1] + 1} │ '
                    f'{group[0][3] + 1}</td></tr>')
        for tag, i1, i2, j1, j2 in group:
            left, right = diff.old[i1:i2], diff.new[j1:j2]
            for row in range(max(len(left), len(right))):
                cells = []
                for lines, start, kind, side in ((left, i1, "del", "old"),
                                                 (right, j1, "add", "new")):
                    if row < len(lines):
                        mark = "same" if tag == "equal" else kind
                        cells.append(f'<td class="n">{start + row + 1}</td><td class="{side} '
                                     f'{mark}">{html.escape(lines[row].rstrip(chr(10)))}</td>')
                    else:
                        cells.append(f'<td class="n"></td><td class="{side} none"></td>')
                rows.append("<tr>" + "".join(cells) + "</tr>")
    # on a phone both halves are as wide as the longest line of either (monospace: ch) and
    # the box scrolls; on a laptop the box takes the window's width and long lines wrap
    # in their column, so the new code is never cut off (book.css, --wide)
    longest = max((len(line.rstrip()) for line in diff.old + diff.new), default=0) + 3
    cols = "<colgroup>" + '<col class="n"><col>' * 2 + "</colgroup>"
    return (f'<div class="diff"><table style="--wide:{2 * longest + 10}ch">'
            + cols + "".join(rows) + "</table></div>")


def diff_section(book: Book, stage: Stage, previous: Stage | None, lang: str) -> str:
    """The change from the previous stage: the changed files with counts, then each code
    file side by side, then (folded) the README's own change."""
    t = TEXT[lang]
    if previous is None:
        return f'<h2 id="changes">{t["changed"].format(prev="…")}</h2><p>{t["first"]}</p>'
    diffs = changed_files(previous.folder, stage.folder)  # code first, as `tao diff`
    out = [f'<h2 id="changes">{t["changed"].format(prev=previous.number)}</h2>',
           f'<p class="muted"><code>uv run tao diff {stage.number}</code></p>']
    if not diffs:
        return "".join(out) + f"<p>{t['identical']}</p>"
    added = removed = 0
    stat = []
    for diff in diffs:
        plus, minus = diff.counts()
        if not diff.is_doc:
            added, removed = added + plus, removed + minus
        stat.append(f"<tr><td><code>{html.escape(diff.name)}</code></td><td>+{plus}</td>"
                    f"<td>−{minus}</td></tr>")
    code_lines = t["code_lines"].format(total=added + removed, added=added, removed=removed)
    out.append(f'<table class="stat" aria-label="{t["changed_files"]}">{"".join(stat)}</table>'
               f'<p><strong>{code_lines}</strong></p>')
    for diff in diffs:
        if not diff.text:
            out.append(f'<p class="muted">{t["not_text"].format(file=html.escape(diff.name))}'
                       "</p>")
            continue
        table = side_by_side(diff, previous.folder.name, stage.folder.name)
        if diff.is_doc:
            out.append(f"<details><summary>{t['readme_diff']} ({html.escape(diff.name)})"
                       f"</summary>{table}</details>")
        else:
            out.append(f'<h3 id="diff-{html.escape(diff.name)}">{html.escape(diff.name)}'
                       f"</h3>{table}")
    return "".join(out)


def transcript(book: Book, stage: Stage, lang: str) -> str:
    """The golden transcript's screen as the terminal shows it: rich records it and
    exports HTML, with a few of the trace's colours put back (it is stored plain)."""
    t = TEXT[lang]
    name = f"tests/golden/{stage.folder.name}.txt"
    head = f'<h2 id="transcript">{t["transcript"]}</h2>'
    path = book.root / name
    if not path.exists():
        return head + f"<p>{t['no_transcript']}</p>"
    stored = path.read_text(encoding="utf-8")
    screen, _, stderr = stored.partition("\n--- stderr\n")
    screen = screen.split("--- stdout\n", 1)[-1]
    text = Text(screen + (stderr and f"\n{stderr}"))
    for pattern, style in ((r"(?m)^you>", "bold cyan"), (r"[─│╭╮╰╯]+", "grey50"),
                           (r"(?m)^tao ", "bold green"), (r"(?m)^turn: .*(\n\S.*)?", "grey62"),
                           (r"(?m)^(model|bye) .*", "grey62"),
                           (r"\b(think|act|observe)\b", "bold yellow")):
        text.highlight_regex(pattern, style)
    width = max(80, *(len(line) for line in text.plain.splitlines()))
    console = Console(record=True, width=width, file=io.StringIO(), force_terminal=True,
                      color_system="truecolor")
    console.print(text, soft_wrap=True)
    from rich.terminal_theme import MONOKAI

    shown = console.export_html(theme=MONOKAI, inline_styles=True, code_format=(
        '<pre class="terminal" style="color:{foreground};background:{background}">'
        "<code>{code}</code></pre>"))
    return head + f'<p class="muted">{t["transcript_note"].format(file=name)}</p>' + shown


# ---------------------------------------------------------------- pages


def frame(book: Book, lang: str, page: str, title: str, body: str) -> str:
    """A whole page: the bar (home, stages, exercises, comparison, the EN/FR switch)."""
    t = TEXT[lang]
    here = f"{lang}/{page}"
    links = [("index.html", t["book"], "home"), ("index.html#map", t["stages"], ""),
             ("exercises.html", t["exercises"], ""), ("compare.html", t["compare"], "")]
    bar = "".join(f'<a class="{cls}" href="{relative(here, f"{lang}/{target}")}">{label}</a>'
                  for target, label, cls in links)
    switch = " · ".join(f'<strong lang="{other}">{other.upper()}</strong>' if other == lang
                        else f'<a lang="{other}" hreflang="{other}" href="'
                             f'{relative(here, f"{other}/{page}")}">{other.upper()}</a>'
                        for other in LANGS)
    return (f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{html.escape(title)} · {t['book']}</title>"
            f'<link rel="stylesheet" href="{relative(here, "book.css")}"></head><body>'
            f'<header><div class="bar">{bar}<span class="lang">{switch}</span></div></header>'
            f"<main>{body}</main></body></html>")


def notice(lang: str, translated: bool) -> str:
    """The one-line "not yet translated" notice, when the page shows the English text."""
    return "" if translated else f'<p class="notice" lang="{lang}">{TEXT[lang]["untranslated"]}</p>'


def index_page(book: Book, lang: str) -> str:
    """The stage map (each stage: its title and motto, from its README), then the top
    README: how to run the kit."""
    t, items = TEXT[lang], []
    for stage in book.stages():
        _, text, _ = readme(book, stage.folder, lang)
        title, motto = _title_and_motto(text)
        if not title:
            title, motto = stage_summary(stage.folder)
        items.append(f'<li><a href="{stage.page}"><span class="num">{stage.number}</span>'
                     f"{html.escape(title)}</a><br><span>{html.escape(motto)}</span></li>")
    source, text, translated = readme(book, book.root, lang)
    extra = (f'<li><a href="exercises.html">{t["exercises"]}</a></li>'
             f'<li><a href="compare.html">{t["compare"]}</a></li>')
    body = (f'{notice(lang, translated)}<h1>{t["book"]}</h1>'
            f'<h2 id="map">{t["map"]}</h2><ol class="map">{"".join(items)}{extra}</ol>'
            f'<h2 id="run">{t["run"]}</h2>'
            + markdown(book, source, _drop_title(text), f"{lang}/index.html")
            + f'<p class="muted">{t["built"].format(command="<code>uv run tao book</code>")}</p>')
    return frame(book, lang, "index.html", t["book"], body)


def stage_page(book: Book, lang: str, stage: Stage, previous: Stage | None,
               following: Stage | None) -> str:
    """A stage: README, code, the change since the stage before, the transcript."""
    t, page = TEXT[lang], stage.page
    source, text, translated = readme(book, stage.folder, lang)
    readme_html = markdown(book, source, _breadcrumb(text, book.stages()), f"{lang}/{page}")
    code = [f'<h2 id="code">{t["code"]}</h2>']
    for path in stage.code_files(book):
        name, source_text = str(path.relative_to(stage.folder)), text_of(path)
        if source_text is None:  # a picture, say: named, not shown
            code.append(f'<p class="muted">{t["not_text"].format(file=html.escape(name))}</p>')
            continue
        code.append(f'<h3 id="file-{html.escape(name)}"><code>{html.escape(name)}</code></h3>'
                    + highlight(source_text, path.name))
    steps = []
    for other, label in ((previous, t["previous"]), (following, t["next"])):
        name = other and html.escape(f"{other.number} {other.folder.name[3:]}")
        steps.append(f'<a href="{posixpath.basename(other.page)}">{label.format(stage=name)}'
                     "</a>" if other else "<span></span>")
    nav = f'<nav class="steps">{"".join(steps)}</nav>'
    body = (notice(lang, translated) + nav.replace("steps", "steps top", 1) + readme_html
            + "".join(code) + diff_section(book, stage, previous, lang)
            + transcript(book, stage, lang) + nav)
    title, _ = _title_and_motto(text)
    return frame(book, lang, page, title or stage.folder.name, body)


def exercises_page(book: Book, lang: str) -> str:
    """The exercises README, then each exercise: its stage, its stub, its hints folded
    one rung at a time (each rung inside the one before), and the solution, shut."""
    t = TEXT[lang]
    source, text, translated = readme(book, book.root / "exercises", lang)
    out = [notice(lang, translated), markdown(book, source, text, f"{lang}/exercises.html")]
    stages = {s.number: s for s in book.stages()}
    for entry in book.exercises():
        name, number = entry["name"], entry["number"]
        stage = stages.get(str(entry.get("stage", "")).zfill(2))
        where = (f' · <a href="{stage.page}">{t["stage"].format(n=stage.number)}</a>'
                 if stage else "")
        out.append(f'<h2 id="{name}">{number:02d} · {html.escape(entry.get("title", name))}'
                   f"</h2><p><code>exercises/{name}.py</code>{where}</p>")
        stub = book.root / "exercises" / ".stubs" / f"{name}.py"
        stub = stub if stub.exists() else book.root / "exercises" / f"{name}.py"
        if stub.exists():
            out.append(f"<h3>{t['stub']}</h3>" + highlight(stub.read_text(encoding="utf-8"),
                                                            stub.name))
        rungs = [r.strip() for r in re.split(r"\n\s*\n", entry.get("hint", "")) if r.strip()]
        folded = ""
        for n in range(len(rungs), 0, -1):  # innermost (last rung) first
            label = t["hint"] if n == 1 else t["more_hint"]
            folded = (f"<details><summary>{label.format(n=n)}</summary>"
                      f"<p>{html.escape(rungs[n - 1])}</p>{folded}</details>")
        out.append(folded)
        solution = book.root / "exercises" / "solutions" / f"{name}.py"
        if solution.exists():
            out.append(f'<details class="solution"><summary>{t["solution"]}</summary>'
                       + highlight(solution.read_text(encoding="utf-8"), solution.name)
                       + "</details>")
    return frame(book, lang, "exercises.html", t["exercises"], "".join(out))


def compare_page(book: Book, lang: str, reports: list[tuple[str, str]]) -> str:
    """Stage 07's "Text or native? Measured" section and MEASURED.md, then `tao compare`'s
    own reports."""
    t = TEXT[lang]
    stage07 = next((s for s in book.stages() if s.number == "07"), None)
    out = [f"<h1>{t['compare']}</h1>"]
    if stage07 is not None:
        source, text, translated = readme(book, stage07.folder, lang)
        english = readme(book, stage07.folder, "en")[1]
        section = _section(text, _section_index(english, "Text or native? Measured"))
        out += [notice(lang, translated),
                markdown(book, source, section, f"{lang}/compare.html")]
        source, text, _ = readme(book, stage07.folder, lang, "MEASURED.md")
        if text:  # the tables one link away from the README: here in full
            out.append(markdown(book, source, _drop_title(text.split("\n", 1)[-1]),
                                f"{lang}/compare.html"))
    for key, report in reports:
        out.append(f'<h2 id="{key}">{t[key]}</h2><div class="report">{report}</div>')
    return frame(book, lang, "compare.html", t["compare"], "".join(out))


def file_page(book: Book, lang: str, path: str) -> str:
    """A repository file a README links to: highlighted (a Markdown file, rendered)."""
    page = f"files/{path}.html"
    if path.endswith(".md"):  # another folder's README, a page beside one: in `lang` too
        source, text, translated = readme(book, (book.root / path).parent, lang,
                                          posixpath.basename(path))
        body = notice(lang, translated) + markdown(book, source, text, f"{lang}/{page}")
    else:
        text = (book.root / path).read_text(encoding="utf-8", errors="replace")
        body = f"<h1><code>{html.escape(path)}</code></h1>" + highlight(text, path)
    return frame(book, lang, page, path, body)


def offline_comparisons(root: Path, tasks: Path | None = None) -> list[tuple[str, str]]:
    """`tao compare`'s HTML report (chart and tables: compare's own code) for the offline
    model on `tasks` (the kit's 32), and for the recorded SmolLM2 run on its 4."""
    from shared.providers import build_provider
    from shared.providers.replay import ReplayProvider

    from . import compare

    reports = []
    runs = [("measured", lambda: build_provider("offline"), tasks or compare.TASKS)]
    recording = root / "tests" / "recordings" / "local_smollm2.json"
    if recording.exists():
        runs.append(("recorded", lambda: ReplayProvider.from_recording(str(recording)),
                     recording.with_name("local_smollm2_tasks.toml")))
    for key, provider, tasks in runs:
        model = provider()
        results = compare.compare(model, ["text", "native"], compare.load_tasks(tasks))
        title = f"tao compare · {model.describe()} · {tasks.name}"
        page = compare.html_report(compare.summarise(results), results, title)
        reports.append((key, page.split("</style>", 1)[-1]))  # its body, inside our page
    return reports


# ---------------------------------------------------------------- the build


def plan(book: Book) -> list[tuple[str, Callable[[], None]]]:
    """Every step of a build, in order, as (what it does, do it): `tao book` shows them
    as progress; each writes pages into book.pages."""
    stages = book.stages()
    if not stages:
        raise CLIError(message("error.book_no_stages", folder=book.root / "stages"))
    reports: list[tuple[str, str]] = []
    steps = [("comparing text and native (tao compare, offline)",
              lambda: reports.extend(book.comparisons(book.root)))]
    for lang in LANGS:
        steps.append((f"{lang}: index", lambda lang=lang: _put(book, lang, "index.html",
                                                                  index_page(book, lang))))
        for i, stage in enumerate(stages):
            prev, nxt = (stages[i - 1] if i else None), (stages[i + 1] if i + 1 < len(stages)
                                                          else None)
            steps.append((f"{lang}: stage {stage.number}",
                          lambda lang=lang, s=stage, p=prev, n=nxt: _put(
                              book, lang, s.page, stage_page(book, lang, s, p, n))))
        steps.append((f"{lang}: exercises", lambda lang=lang: _put(
            book, lang, "exercises.html", exercises_page(book, lang))))
        steps.append((f"{lang}: comparison", lambda lang=lang: _put(
            book, lang, "compare.html", compare_page(book, lang, reports))))
    steps.append(("linked files", lambda: _file_pages(book)))
    return steps


def _put(book: Book, lang: str, page: str, text: str) -> None:
    book.pages[f"{lang}/{page}"] = text


def _file_pages(book: Book) -> None:
    """A page per repository file a README linked to (in both languages: the switch)."""
    done: set[str] = set()
    while book.files - done:  # a linked Markdown file may link to more
        for path in sorted(book.files - done):
            done.add(path)
            for lang in LANGS:
                _put(book, lang, f"files/{path}.html", file_page(book, lang, path))


def finish(book: Book) -> None:
    """The last touches, over all pages: a #fragment that names no id on its page is
    dropped (the link still opens the page), and the root page sends to English."""
    ids = {page: set(re.findall(r'\sid="([^"]+)"', text)) for page, text in book.pages.items()}

    def check(match: re.Match, page: str) -> str:
        href = html.unescape(match.group(1))
        path, _, frag = href.partition("#")
        if not frag or re.match(r"^[a-z][a-z0-9+.-]*:", href, re.I):
            return match.group(0)
        target = posixpath.normpath(posixpath.join(posixpath.dirname(page), path)) if path \
            else page
        if frag in ids.get(target, ()):
            return match.group(0)
        return f'href="{html.escape(path or posixpath.basename(page))}"'

    for page, text in book.pages.items():
        book.pages[page] = re.sub(r'href="([^"]*)"', lambda m, p=page: check(m, p), text)
    book.pages["index.html"] = (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta '
        'http-equiv="refresh" content="0; url=en/index.html"><title>tao, the book</title>'
        '</head><body><p><a href="en/index.html">English</a> · <a href="fr/index.html">'
        "Français</a></p></body></html>")


def check_out(out: Path) -> None:
    """CLIError unless a book can be written at `out`: a new folder where one can be made,
    an empty one, or a book this command built (which it empties). Asked before the build."""
    if out.is_symlink():
        raise CLIError(message("error.book_out_link", out=out))
    if out.exists() and not out.is_dir():
        raise CLIError(message("error.book_out_file", out=out))
    if out.exists() and any(out.iterdir()) and not (out / MARKER).exists():
        raise CLIError(message("error.book_out_not_empty", out=out))
    there = out.parent
    while not there.exists() and there != there.parent:  # the folder it would be made in
        there = there.parent
    if not there.is_dir():
        raise CLIError(message("error.book_out_under_file", out=out, file=there))
    try:  # the one sure test: make a folder there (and remove it)
        os.rmdir(tempfile.mkdtemp(prefix=".tao-book-", dir=there))
    except OSError as exc:
        raise CLIError(message("error.book_out_unwritable", out=out,
                               why=exc.strerror or exc)) from None


def write(book: Book, out: Path) -> None:
    """Write every page and the stylesheet into a folder beside `out`, then put it in
    place of `out` (a book built there before, the only kind it empties): a failed write
    leaves the old book as it was."""
    check_out(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = out.with_name(f".{out.name}.{os.getpid()}.part")
    shutil.rmtree(staging, ignore_errors=True)  # left by a build that was killed
    try:
        _write_pages(book, staging)
        if out.exists():
            shutil.rmtree(out)
        os.replace(staging, out)
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise CannotWrite(message("error.book_out_unwritable", out=out,
                                  why=exc.strerror or exc)) from None


def _write_pages(book: Book, folder: Path) -> None:
    """The marker, the stylesheet and every page, under `folder`."""
    folder.mkdir()
    (folder / MARKER).write_text("built by `tao book`: it empties this folder on each build\n")
    from pygments.formatters import HtmlFormatter

    css = CSS.read_text(encoding="utf-8") + HtmlFormatter(style=PYGMENTS_STYLE).get_style_defs(
        ".hl")
    (folder / "book.css").write_text(css, encoding="utf-8")
    for page, text in book.pages.items():
        target = folder / page
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


def build(out: Path, root: Path = ROOT, comparisons=offline_comparisons,
          progress: Callable[[str], None] | None = None) -> Book:
    """Build the whole book from `root` into `out`; `progress(step)` hears each step."""
    check_out(Path(out))  # before the work, not after it
    book = Book(Path(root), comparisons)
    for label, step in plan(book):
        if progress:
            progress(label)
        step()
    finish(book)
    write(book, Path(out))
    return book


def cmd_book(args, console: Console) -> int:
    """`tao book`: build, with a progress bar on a terminal; say where it is."""
    out = Path(args.out).absolute() if args.out else ROOT / "book"  # file:// needs it whole
    try:
        import markdown_it  # noqa: F401  (rich's dependency; a broken install lacks it)
        import pygments  # noqa: F401
    except ImportError as exc:
        raise CLIError(message("error.book_missing", name=exc.name)) from None
    from rich.progress import Progress

    with Progress(console=console, transient=True, disable=not console.is_terminal) as bar:
        job = bar.add_task("tao book", total=len(plan(Book(ROOT, offline_comparisons))))

        def step(label: str) -> None:
            bar.update(job, advance=1, description=label)

        book = build(out, ROOT, progress=step)
    start = out / "index.html"
    console.print(visible(message("book_verb.done", pages=len(book.pages), out=out,
                                  start=start.as_uri())),
                  markup=False, highlight=False)
    if args.open:
        webbrowser.open(start.as_uri())
    return 0


# ---------------------------------------------------------------- small readers


def _title_and_motto(text: str) -> tuple[str, str]:
    """A stage README's title (after the dash of its H1) and its italic motto line."""
    title = next((line[2:] for line in text.splitlines() if line.startswith("# ")), "")
    title = re.split(r"\s[—–-]\s", title, maxsplit=1)[-1].strip()
    motto = next((line.strip("* ") for line in text.splitlines()
                  if re.fullmatch(r"\*[^*].*\*", line.strip())), "")
    return title, motto


def _breadcrumb(text: str, stages: list[Stage]) -> str:
    """The README's breadcrumb line (`01 → 02 → **[03]** → 04`) with each other stage's
    number a link to its README, which the book turns into a link to its page."""
    folders = {s.number: s.folder.name for s in stages}

    def crumbs(line: re.Match) -> str:
        return re.sub(r"(?<![\[\d])\b(\d\d)\b(?!\])", lambda m: f"[{m[1]}](../{folders[m[1]]}"
                      "/README.md)" if m[1] in folders else m[1], line[0])

    return re.sub(r"(?m)^[\d*\[\] →]+$", crumbs, text, count=1)


def _drop_title(text: str) -> str:
    """The top README without its H1 (the index has its own)."""
    return re.sub(r"\A#\s.*\n", "", text.lstrip())


def _section_index(text: str, heading: str) -> int:
    """Which `## ` section (0-based) is `heading` in `text`; -1 if none."""
    names = [line[3:].strip() for line in text.splitlines() if line.startswith("## ")]
    return names.index(heading) if heading in names else -1


def _section(text: str, index: int) -> str:
    """The `index`th `## ` section of `text`, heading included, up to the next `## `
    (a twin README keeps the same sections in the same order, so the index finds it)."""
    if index < 0:
        return ""
    parts = re.split(r"(?m)^(?=## )", text)[1:]
    return parts[index] if index < len(parts) else ""

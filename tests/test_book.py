"""`tao book`, built once into tmp_path from a small copy of the repository (stages 06
and 07, two exercises, the golden transcripts, the recorded SmolLM2 run) with one French
twin added, then read back with the stdlib's HTML parser: every internal link resolves,
nothing is fetched, the diff and transcript are there, the French side switches.
tests/browser/ opens the real book in a real browser.

What a reader of the book sees, each held by a test below:
- every internal link lands on a page, and on an id there; nothing comes from another site;
- a heading gets the id GitHub gives it, a repeated one `-1`, `-2`... as GitHub counts,
  so a README's `#anchor` lands on the same heading in the book;
- a README link to a repository file opens a page showing it; a file linked from such a
  page gets its page too; a link to a folder or to nothing becomes plain text;
- only the repository's own files are copied: not a file above it (`../..`), not one a
  link leads out to, not one git does not track, and outside git no hidden file (.env);
- raw HTML in a README is shown as text, never run; a comment is dropped;
- the French side switches page for page; a bad or full `--out` is one line.
"""

from __future__ import annotations

import posixpath
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

import pytest
from helpers import ROOT, run_tao

from tao import book as builder

FRENCH_06 = """# Étape 06 — un registre d'outils

*Un registre d'outils, et une boucle qui corrige un appel mal écrit.*

## Le problème

Voir [la boucle](loop.py), [le fournisseur](../../shared/providers/base.py),
[un dossier](../../tests/) et [rien](nowhere.py).

```bash
uv run tao diff 06
```
"""

TWO_TASKS = """[[task]]
id = "greeting"
kind = "no_tool"
prompt = "Hello! Who are you?"

[[task]]
id = "multiply"
kind = "one_call"
prompt = "What is 17 * 23?"
tools = ["calculator"]
answer = ["391"]
"""


class Page(HTMLParser):
    """What a test reads of a page: ids, links, fetched sources, and some text."""

    def __init__(self, text: str):
        super().__init__()
        self.ids, self.links, self.fetched, self.tags = set(), [], [], []
        self.details_open = []
        # highlighted code, diffs and transcripts are escaped text in spans and cells, with
        # no link, id or source in them: skipped, which makes parsing a page fast
        self.feed(re.sub(r'<pre class="(hl|terminal)".*?</pre>|<div class="diff">.*?</div>',
                         "", text, flags=re.S))

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append(tag)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        if tag == "a" and "href" in attrs:
            self.links.append(attrs["href"])
        if tag in ("link", "script", "img", "iframe", "source") or (
                tag != "a" and ("src" in attrs or "href" in attrs)):
            self.fetched += [attrs.get("src") or attrs.get("href") or ""]
        if tag == "details":
            self.details_open.append("open" in attrs)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> tuple[Path, builder.Book]:
    """A book built from a small copy of the repository with one French twin."""
    repo = tmp_path_factory.mktemp("repo")
    for name in ("README.md", "stages/06_tool_registry", "stages/07_native_tools",
                 "tests/golden/06_tool_registry.txt", "tests/golden/07_native_tools.txt",
                 "tests/recordings", "exercises/README.md", "shared/providers/base.py"):
        source, target = ROOT / name, repo / name
        target.parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
         if source.is_dir() else shutil.copy(source, target))
    (repo / "tests" / "recordings" / "two.toml").write_text(TWO_TASKS)
    info = (ROOT / "exercises" / "info.toml").read_text().split("[[exercises]]")
    (repo / "exercises" / "info.toml").write_text("[[exercises]]".join(info[:3]))
    for name in ("e01_strict_parser", "e02_wordcount"):  # the shipped stub, solved or not
        for folder in ("exercises/.stubs", "exercises/solutions"):
            (repo / folder).mkdir(parents=True, exist_ok=True)
            shutil.copy(ROOT / folder / f"{name}.py", repo / folder / f"{name}.py")
    (repo / "stages" / "06_tool_registry" / "README.fr.md").write_text(FRENCH_06)
    # stage 07 stands for a README not translated yet
    (repo / "stages" / "07_native_tools" / "README.fr.md").unlink(missing_ok=True)
    out = tmp_path_factory.mktemp("book") / "book"

    def comparisons(root):
        return builder.offline_comparisons(root, root / "tests" / "recordings" / "two.toml")

    return out, builder.build(out, repo, comparisons)


_parsed: dict[Path, dict[str, Page]] = {}


def pages(out: Path) -> dict[str, Page]:
    """Every HTML page of the book, parsed (once a module), by its path inside the book."""
    if out not in _parsed:
        _parsed[out] = {str(p.relative_to(out)): Page(p.read_text(encoding="utf-8"))
                        for p in out.rglob("*.html")}
    return _parsed[out]


def test_every_internal_link_resolves_to_a_page_and_an_id_on_it(site):
    out, _ = site
    parsed = pages(out)
    checked = 0
    for name, page in parsed.items():
        for href in page.links:
            if re.match(r"^[a-z]+:", href):
                continue  # another site: the reader follows it, nothing fetches it
            path, _, frag = unquote(href).partition("#")
            target = posixpath.normpath(posixpath.join(posixpath.dirname(name), path)) \
                if path else name
            assert target in parsed, f"{name}: {href} -> no page {target}"
            assert not frag or frag in parsed[target].ids, f"{name}: {href}: no id {frag}"
            checked += 1
    assert checked > 100


def test_nothing_is_fetched_from_another_site(site):
    out, _ = site
    for name, page in pages(out).items():
        assert all(not re.match(r"^(https?:)?//", src) for src in page.fetched), name
        assert "script" not in page.tags, name
    assert "http" not in (out / "book.css").read_text().replace("http://www.w3.org", "")


def test_a_stage_page_has_its_code_its_diff_side_by_side_and_its_transcript(site):
    out, _ = site
    text = (out / "en/stages/07_native_tools.html").read_text(encoding="utf-8")
    page = Page(text)
    assert {"file-loop.py", "file-tools.py", "changes", "transcript"} <= page.ids
    diff = text[text.index('id="changes"'):text.index('id="transcript"')]
    assert diff.index('id="diff-loop.py"') < diff.index("<details>")  # code first, as tao diff
    assert '<td class="old del">' in diff and '<td class="new add">' in diff
    screen = text[text.index('id="transcript"'):]
    assert 'class="terminal"' in screen and "you&gt;" in screen and "observe" in screen
    assert "previous: 06" in text and "next:" not in text  # the last stage of this copy


def test_readme_links_go_to_what_shows_the_file_or_become_plain_text(site):
    out, _ = site
    page = out / "fr/stages/06_tool_registry.html"
    text = page.read_text(encoding="utf-8")
    assert 'href="#file-loop.py"' in text  # a stage file: its highlighted copy on the page
    assert 'href="../files/shared/providers/base.py.html"' in text
    assert (out / "fr/files/shared/providers/base.py.html").exists()
    assert "un dossier" in text and "rien" in text  # nothing to show: plain text, no link
    assert not re.search(r"<a [^>]*>(un dossier|rien)</a>", text)
    assert 'href="../../tests/' not in text and "nowhere.py" not in text


def test_a_french_twin_is_used_and_every_page_switches_to_its_twin(site):
    out, _ = site
    french = (out / "fr/stages/06_tool_registry.html").read_text(encoding="utf-8")
    untranslated = (out / "fr/stages/07_native_tools.html").read_text(encoding="utf-8")
    assert "Étape 06" in french and 'class="notice"' not in french
    assert 'class="notice"' in untranslated and "Stage 07" in untranslated
    assert 'class="notice"' not in (out / "en/stages/07_native_tools.html").read_text()
    for name, page in pages(out).items():
        if name == "index.html":
            continue
        lang, rest = name.split("/", 1)
        other = "fr" if lang == "en" else "en"
        twin = posixpath.relpath(f"{other}/{rest}", posixpath.dirname(name))
        assert twin in page.links, f"{name} has no switch to {twin}"


def test_hints_fold_one_rung_at_a_time_and_the_solution_stays_shut(site):
    out, _ = site
    text = (out / "en/exercises.html").read_text(encoding="utf-8")
    page = Page(text)
    assert {"e01_strict_parser", "e02_wordcount"} <= page.ids
    assert page.details_open and not any(page.details_open)
    one = text[text.index('id="e02_wordcount"'):]
    hint1, hint2 = one.index("Hint 1"), one.index("Hint 2")
    assert one.index("<details>") < hint1 < one.index("<details>", hint1) < hint2
    assert one.index("NotImplementedError") < one.index('class="solution"')
    assert "def wordcount" in re.sub("<[^>]+>", "", one[one.index('class="solution"'):])


def test_the_comparison_page_has_the_readme_tables_and_compares_chart(site):
    out, _ = site
    text = (out / "en/compare.html").read_text(encoding="utf-8")
    assert 'id="text-or-native-measured"' in text and "<table" in text
    assert text.count("<svg") == 2  # the offline run and the recorded SmolLM2 run
    assert "replay" in text and "offline" in text


def test_a_page_beside_a_stage_readme_is_a_page_of_its_own_in_each_language(site):
    # stage 07's README sends the server-by-server detail to SERVERS.md: rendered, in the
    # reader's language, and never listed with the stage's code
    out, _ = site
    stage = (out / "en/stages/07_native_tools.html").read_text(encoding="utf-8")
    assert 'href="../files/stages/07_native_tools/SERVERS.md.html"' in stage
    assert "file-SERVERS.md" not in stage and "file-MEASURED.md" not in stage
    english = (out / "en/files/stages/07_native_tools/SERVERS.md.html").read_text("utf-8")
    french = (out / "fr/files/stages/07_native_tools/SERVERS.md.html").read_text("utf-8")
    assert "<h2" in english and "Pitfalls</h2>" in english
    assert "Pièges</h2>" in french and 'class="notice"' not in french


def test_the_comparison_page_has_the_tables_measured_one_link_from_the_readme(site):
    out, _ = site
    text = (out / "en/compare.html").read_text(encoding="utf-8")
    assert "`none`" not in text and "<code>own_observation</code>" in text  # --quirk all
    assert "SmolLM2-135M" in text


def test_tao_book_refuses_a_folder_it_did_not_make_in_one_line(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    out = run_tao("book", "--out", str(tmp_path))
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "not empty" in out.stderr
    assert (tmp_path / "notes.txt").exists()
    file = tmp_path / "notes.txt"
    out = run_tao("book", "--out", str(file))
    assert out.returncode == 2 and "Traceback" not in out.stderr


def test_every_language_has_every_label_of_the_book():
    english = builder.TEXT["en"]
    for lang in builder.LANGS:
        assert builder.TEXT[lang].keys() == english.keys(), lang
        for key, text in builder.TEXT[lang].items():  # the same {fields} to fill in
            assert set(re.findall(r"{(\w+)}", text)) == set(re.findall(r"{(\w+)}",
                                                                       english[key])), key


def test_a_heading_gets_the_id_github_gives_it():
    seen: set[str] = set()
    assert builder.slug("Text or native? Measured", seen) == "text-or-native-measured"
    assert builder.slug("Texte ou natif ? Mesuré", seen) == "texte-ou-natif--mesuré"
    assert builder.slug("Text or native? Measured", seen) == "text-or-native-measured-1"


def test_a_heading_repeated_three_times_gets_three_ids():
    # GitHub's ids for "## Run it" three times on one page: run-it, run-it-1, run-it-2
    seen: set[str] = set()
    assert [builder.slug("Run it", seen) for _ in range(3)] == ["run-it", "run-it-1", "run-it-2"]


# ---------------------------------------------------------------- issue 32: the book copies
# only the repository's own files, lets no HTML through, and checks --out first


def small_repo(tmp_path: Path, readme_extra: str = "") -> Path:
    """A copy of the repository with one stage (06), its README with `readme_extra`
    added at the end."""
    repo = tmp_path / "repo"
    for name in ("README.md", "stages/06_tool_registry", "shared/providers/base.py"):
        source, target = ROOT / name, repo / name
        target.parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
         if source.is_dir() else shutil.copy(source, target))
    readme = repo / "stages" / "06_tool_registry" / "README.md"
    readme.write_text(readme.read_text() + "\n" + readme_extra + "\n")
    return repo


def no_comparisons(root):
    """The comparison page's reports, skipped: these tests are about the READMEs."""
    return []


def test_a_readme_link_copies_only_files_of_the_repository_that_git_tracks(tmp_path):
    import subprocess

    if shutil.which("git") is None:
        pytest.skip("needs git")
    secret = tmp_path / "secret.txt"
    secret.write_text("SECRET of the machine")
    links = (f"[a]({secret}) [b](/{secret}) [c](../../../secret.txt) [d](private.txt) "
             "[e](outside.txt) [f](../../shared/providers/base.py)")
    repo = small_repo(tmp_path, links)
    stage = repo / "stages" / "06_tool_registry"
    (stage / "private.txt").write_text("SECRET not tracked")
    (stage / "outside.txt").symlink_to(secret)  # tracked, but it points out of the repo
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(["git", "-C", str(repo), "add", "."], check=True)
    subprocess.run(["git", "-C", str(repo), "rm", "-q", "--cached",
                    "stages/06_tool_registry/private.txt"], check=True)
    out = tmp_path / "book"
    builder.build(out, repo, no_comparisons)
    every_page = "".join(p.read_text(encoding="utf-8") for p in out.rglob("*.html"))
    assert "SECRET" not in every_page
    assert (out / "en" / "files" / "shared" / "providers" / "base.py.html").exists()


HOSTILE = """
<script>document.title = "script ran"</script>
<img src="https://example.invalid/pixel.png" onerror="document.title = 'ran'">
<iframe src="https://example.invalid/frame"></iframe>
<style>body { background: url(https://example.invalid/bg.png) }</style>
<link rel="stylesheet" href="https://example.invalid/x.css">
A line with <span style="background:url(https://example.invalid/s.png)">inline HTML</span>.

![a remote picture](https://example.invalid/picture.png)

<!-- a marker, as stage 07's tables have -->
"""


def test_raw_html_in_a_readme_is_shown_as_text_and_a_comment_is_dropped(tmp_path):
    repo = small_repo(tmp_path, HOSTILE)
    out = tmp_path / "book"
    builder.build(out, repo, no_comparisons)
    text = (out / "en" / "stages" / "06_tool_registry.html").read_text(encoding="utf-8")
    page = Page(text)
    assert not {"script", "iframe", "style", "img"} & set(page.tags), page.tags
    assert "example.invalid" not in "".join(page.fetched)
    assert "&lt;script&gt;" in text  # shown, never run
    assert "a remote picture" in text  # a remote picture is a link to it, not fetched
    assert "a marker" not in text and "&lt;!--" not in text


def test_stage_07s_table_markers_do_not_show_in_the_book(site):
    out, _ = site
    text = (out / "en" / "stages" / "07_native_tools.html").read_text(encoding="utf-8")
    readme = text[:text.index('id="code"')]  # (the README's diff below shows its source)
    assert "Measured" in readme and "| text | native |" not in readme  # a table, rendered
    assert "&lt;!--" not in readme and "<!-- tao compare" not in readme


@pytest.mark.parametrize("where", ["under_a_file", "a_symlink", "proc"])
def test_a_bad_out_is_one_line_before_the_build(where, tmp_path):
    import os

    (tmp_path / "file.txt").write_text("mine")
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    out = {"under_a_file": tmp_path / "file.txt" / "book", "a_symlink": tmp_path / "link",
           "proc": "/proc/book"}[where]
    if where == "proc" and not os.path.isdir("/proc"):
        pytest.skip("no /proc here")
    done = run_tao("book", "--out", str(out))
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "--out" in done.stderr
    assert (tmp_path / "file.txt").read_text() == "mine" and not any((tmp_path / "real").iterdir())


def test_a_file_that_is_not_text_in_a_stage_folder_is_skipped_and_named(tmp_path):
    repo = small_repo(tmp_path)
    (repo / "stages" / "06_tool_registry" / "diagram.png").write_bytes(b"\x89PNG\r\n\x00\xff")
    out = tmp_path / "book"
    builder.build(out, repo, no_comparisons)
    text = (out / "en" / "stages" / "06_tool_registry.html").read_text(encoding="utf-8")
    assert "diagram.png" in text and "not text" in text


def test_a_full_disk_is_one_line_and_leaves_the_book_there_before_as_it_was(tmp_path):
    import subprocess
    import sys

    from helpers import clean_env, file_limit

    out = tmp_path / "book"
    (out / "en").mkdir(parents=True)
    (out / builder.MARKER).write_text("built by `tao book`\n")  # a book built before
    (out / "en" / "index.html").write_text("the old book")
    done = subprocess.run([sys.executable, "-m", "tao", "book", "--out", str(out)], cwd=ROOT,
                          env=clean_env(), capture_output=True, text=True, timeout=300,
                          preexec_fn=file_limit(2000))
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert "File too large" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert (out / "en" / "index.html").read_text() == "the old book"
    assert [p.name for p in tmp_path.iterdir()] == ["book"]  # nothing half-built beside it


def test_a_file_linked_from_a_linked_page_gets_a_page_too(tmp_path):
    repo = small_repo(tmp_path, "See [the notes](../../notes/NOTES.md).")
    notes = repo / "notes"
    notes.mkdir()
    (notes / "NOTES.md").write_text("# Notes\n\nThe [sample](sample.txt) and [more](MORE.md).\n")
    (notes / "MORE.md").write_text("# More\n\nAnd [the last one](last.txt).\n")
    (notes / "sample.txt").write_text("a sample line\n")
    (notes / "last.txt").write_text("the last line\n")
    out = tmp_path / "book"
    builder.build(out, repo, no_comparisons)
    files = out / "en" / "files" / "notes"
    for name in ("NOTES.md", "MORE.md", "sample.txt", "last.txt"):  # two links deep, and three
        assert (files / f"{name}.html").exists(), name
    assert "the last line" in (files / "last.txt.html").read_text(encoding="utf-8")


def test_outside_git_a_hidden_file_is_never_copied(tmp_path):
    # a kit unpacked from an archive: no git to say what is tracked
    repo = small_repo(tmp_path, "[the settings](.env) and [the loop](loop.py)")
    settings = repo / "stages" / "06_tool_registry" / ".env"
    settings.write_text("OPENAI_API_KEY=sk-hidden-value-7q2\n")
    out = tmp_path / "book"
    builder.build(out, repo, no_comparisons)
    every_page = "".join(p.read_text(encoding="utf-8") for p in out.rglob("*.html"))
    leak = every_page.find("hidden-value-7q2")
    assert leak < 0, every_page[leak - 300:leak + 50]
    assert "near_misses" in every_page  # the stage's own code is shown

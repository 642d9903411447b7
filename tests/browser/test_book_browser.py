"""`tao book` in a real browser: the whole book, built once into tmp_path, every page
opened from file:// in headless Chromium at a laptop's width (1280 px) and a phone's
(390 px). No console error, no request that is not a local file, every link and #id
found, nothing wider than the window, the side-by-side diff and the transcript on each
stage page, hints that open one rung at a time. Screenshots are kept (the path is
printed): look at them after a change to the book's pages or stylesheet.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

CHROMIUM = "/usr/bin/chromium"
HOW = ("needs Debian's Chromium and Playwright: apt-get install chromium, then "
       "uv sync --group browser")
try:
    from playwright.sync_api import sync_playwright
except ImportError:
    pytest.skip(f"no playwright: {HOW}", allow_module_level=True)
if not os.access(CHROMIUM, os.X_OK):
    pytest.skip(f"no {CHROMIUM}: {HOW}", allow_module_level=True)

from tao import book as builder  # noqa: E402
from tao.repo import ROOT  # noqa: E402

# what works on this machine; without the background-networking ones the browser's own
# connections (updates, sync) are refused by the sandbox, en masse
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
WIDTHS = {"laptop": 1280, "phone": 390}
SHOTS = ROOT / "tests" / "browser" / "screenshots"  # git ignores it: test artifacts


@pytest.fixture(scope="module")
def book(tmp_path_factory) -> Path:
    """The real book, built from this repository."""
    out = tmp_path_factory.mktemp("book") / "book"
    builder.build(out)
    return out


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """Headless Chromium with a fresh profile, and a record of every console error and
    every request it made."""
    shutil.rmtree(SHOTS, ignore_errors=True)
    SHOTS.mkdir(parents=True)
    with sync_playwright() as driver:
        context = driver.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("profile")), executable_path=CHROMIUM, args=FLAGS,
            headless=True)
        page = context.new_page()
        page.errors, page.requests = [], []
        page.on("console", lambda m: m.type == "error" and page.errors.append(m.text))
        page.on("pageerror", lambda e: page.errors.append(str(e)))
        page.on("requestfailed", lambda r: page.errors.append(f"failed: {r.url}"))
        page.on("request", lambda r: page.requests.append(r.url))
        yield page
        context.close()
    print(f"\nbook screenshots: {SHOTS}")


def visit(page, url: str, width: int) -> dict:
    """Open `url` at `width`; what the page shows: its ids, links, and widths."""
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(url)
    return page.evaluate("""() => ({
        ids: [...document.querySelectorAll('[id]')].map(e => e.id),
        links: [...document.querySelectorAll('a[href]')].map(a => a.href),
        scroll: document.documentElement.scrollWidth, inner: window.innerWidth})""")


@pytest.mark.timeout(240)
def test_every_page_loads_clean_fits_both_widths_and_every_link_resolves(book, browser):
    browser.goto((book / "index.html").as_uri())  # the root page sends on to English
    browser.wait_for_url("**/en/index.html")
    pages = sorted(p for p in book.rglob("*.html") if p != book / "index.html")
    seen: dict[str, dict] = {(book / "index.html").as_uri(): {"ids": [], "links": []}}
    for path in pages:
        for width in WIDTHS.values():
            shown = visit(browser, path.as_uri(), width)
            assert shown["scroll"] <= shown["inner"], f"{path}: wider than {width} px"
            seen[path.as_uri()] = shown
        assert not browser.errors, f"{path}: {browser.errors}"
    assert all(url.startswith("file://") for url in browser.requests), (
        [u for u in browser.requests if not u.startswith("file://")])
    followed = 0
    for url, shown in seen.items():
        for link in shown["links"]:
            parts = urlsplit(link)
            if parts.scheme != "file":
                continue  # another site: followed by the reader, never fetched here
            target = parts._replace(fragment="").geturl()
            assert target in seen, f"{url}: {link} -> no such page"
            frag = unquote(parts.fragment)
            assert not frag or frag in seen[target]["ids"], f"{url}: {link}: no #{frag}"
            followed += 1
    assert len(pages) > 30 and followed > 400


@pytest.mark.timeout(120)
def test_stage_pages_show_the_diff_side_by_side_in_its_own_box_and_the_transcript(book,
                                                                                   browser):
    for lang in builder.LANGS:
        for path in sorted((book / lang / "stages").glob("*.html")):
            visit(browser, path.as_uri(), WIDTHS["phone"])
            assert browser.locator("pre.terminal").first.is_visible(), path
            if path.name.startswith("01_"):
                continue  # the first stage: nothing to compare with
            box = browser.locator(".diff").first
            assert box.is_visible(), path
            columns = box.evaluate("b => [...b.querySelector('tr:nth-child(3)').children]"
                                   ".filter(td => !td.classList.contains('n')).length")
            assert columns == 2, path  # old | new
            wide = box.evaluate("b => b.scrollWidth > b.clientWidth")
            assert wide, f"{path}: at 390 px the diff should scroll inside its box"
    browser.locator('[id="changes"]').scroll_into_view_if_needed()
    browser.screenshot(path=SHOTS / "stage-10-diff-390.png")
    browser.locator('[id="transcript"]').scroll_into_view_if_needed()
    browser.screenshot(path=SHOTS / "stage-10-transcript-390.png")


@pytest.mark.timeout(120)
def test_at_a_laptops_width_the_new_code_is_whole_on_screen(book, browser):
    # at 1280 px the "after" column, the new code, was cut off and needed scrolling
    for lang in builder.LANGS:
        for path in sorted((book / lang / "stages").glob("*.html"))[1:]:
            shown = visit(browser, path.as_uri(), WIDTHS["laptop"])
            boxes = browser.locator(".diff").evaluate_all("""boxes => boxes.map(b => ({
                scrolls: b.scrollWidth > b.clientWidth,
                right: b.getBoundingClientRect().right,
                cut: [...b.querySelectorAll('td.new, td.old')].filter(
                    td => td.scrollWidth > td.clientWidth + 1).length}))""")
            assert boxes, path
            for box in boxes:
                assert not box["scrolls"] and not box["cut"], f"{path}: {box}"
                assert box["right"] <= shown["inner"], f"{path}: the box leaves the window"
    browser.locator('[id="changes"]').scroll_into_view_if_needed()
    browser.screenshot(path=SHOTS / "stage-10-diff-1280.png")


@pytest.mark.timeout(60)
def test_hints_open_one_rung_at_a_time_and_the_solution_only_when_asked(book, browser):
    visit(browser, (book / "en" / "exercises.html").as_uri(), WIDTHS["laptop"])
    exercise = browser.locator('[id="e02_wordcount"] ~ details').first
    first = exercise.locator("> summary")
    second = exercise.locator("> details > summary")
    assert first.is_visible() and not second.is_visible()
    first.click()
    assert second.is_visible()
    solution = browser.locator("details.solution").first
    assert not solution.locator("pre").is_visible()
    solution.locator("summary").click()
    assert solution.locator("pre").is_visible()
    browser.screenshot(path=SHOTS / "exercises-1280.png")


@pytest.mark.timeout(60)
def test_screenshots_of_the_main_pages(book, browser):
    """Not a check: the pictures a person looks at (index, a stage, the comparison, in
    both languages, at both widths)."""
    for lang in builder.LANGS:
        for page in ("index.html", "stages/05_react_loop.html", "compare.html"):
            for name, width in WIDTHS.items():
                visit(browser, (book / lang / page).as_uri(), width)
                stem = page.replace("/", "-").removesuffix(".html")
                browser.screenshot(path=SHOTS / f"{lang}-{stem}-{name}.png",
                                   full_page=page == "index.html")
    assert len(list(SHOTS.glob("*.png"))) >= 12


@pytest.mark.timeout(120)
def test_a_readme_that_tries_to_load_remote_things_makes_no_request_leave_the_disk(
        tmp_path, browser):
    """A README with a script, remote pictures (HTML and Markdown), a frame, a remote
    stylesheet and remote url()s: the book shows them as text or links, and the browser,
    opening every page of it, asks for nothing that is not a local file."""
    from test_book import HOSTILE, no_comparisons, small_repo  # the hostile README's text

    out = tmp_path / "book"
    builder.build(out, small_repo(tmp_path, HOSTILE), no_comparisons)
    first = len(browser.requests)
    for path in sorted(p for p in out.rglob("*.html") if p != out / "index.html"):
        visit(browser, path.as_uri(), WIDTHS["laptop"])  # (index.html: a redirect)
        assert browser.title() != "script ran", path
    asked = browser.requests[first:]
    assert asked and all(url.startswith("file://") for url in asked), (
        [url for url in asked if not url.startswith("file://")])
    browser.errors.clear()  # a page of this book, not of the real one

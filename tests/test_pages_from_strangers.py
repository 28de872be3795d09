"""Pages made from files a stranger wrote: a study file, a trace and a game record are shared, and whoever
opens the page they make did not write them.

Every text field of a study is hostile here (script elements, event attributes, ``javascript:`` and ``data:``
links, Markdown and HTML mixed); its page and the edition's index, and a game page whose trace names hostile
strategies, are read as text and opened in headless Chromium: no script of the file runs, no dialog opens, no
live link leads anywhere but a relative, ``http`` or ``https`` target, and the Markdown holds no raw HTML.
The pages a reader opens (a study's, a game page, a review page) also show no internal value (``nan``,
``None``...): a forced choice says "forced". The browser part is skipped when no Chromium is found, except
under ``RAMI_REQUIRE_BROWSER=1``.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import sim
from experiments import report
from sim.analysis import write_html
from sim.analysis.page import write_review_html
from sim.game_record import parse_record, write_record

sys.path.insert(0, str(Path(__file__).parent))
import browser as browser_lib  # noqa: E402
import page_scan  # noqa: E402

BROWSER, DRIVER, needs_browser = browser_lib.required()

# Each payload, if it ran, would set window.pwned or open a dialog.
HOSTILE = [
    "<script>window.pwned = 1; alert(1)</script>",
    "<img src=x onerror=\"window.pwned = 2; alert(2)\">",
    "[click me](javascript:window.pwned=3;alert(3))",
    "[data](data:text/html;base64,PHNjcmlwdD5hbGVydCg0KTwvc2NyaXB0Pg==)",
    "`code` **bold** <b onmouseover=alert(5)>html</b> [ok](https://example.org)",
    "<svg onload=alert(6)>",
    "x](javascript:alert(7))[y",
    "<a href='javascript:alert(8)'>a</a>",
    "line one\n\n<iframe src=javascript:alert(9)></iframe>\n[r]: javascript:alert(10)\n[r]",
    "&lt;script&gt;alert(11)&lt;/script&gt; \\<script\\>",
]


def _toml_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


@pytest.fixture(scope="module")
def hostile_study(tmp_path_factory) -> Path:
    """A report edition holding the page of a study whose every text is hostile; returns the edition."""
    folder = tmp_path_factory.mktemp("strangers")
    file = folder / "hostile.toml"
    arms = "\n".join(f"{_toml_string(text[:40] + str(k))} = [\"{'expert' if k else 'greedy'}\", \"greedy\"]"
                     for k, text in enumerate(HOSTILE[:3]))
    file.write_text(f"title = {_toml_string(' '.join(HOSTILE))}\nabout = {_toml_string(chr(10).join(HOSTILE))}\n"
                    f"game = \"basic\"\nseeds = [1, 2]\ngames = 2\n\n[arms]\n{arms}\n", encoding="utf-8")
    edition = folder / "edition"
    report.run_study(file, out=edition, games=2, workers=1)
    return edition


def _pages(edition: Path) -> list[Path]:
    return [edition / "index.html", edition / "hostile" / "index.html"]


def test_a_hostile_study_is_text_on_every_page(hostile_study):
    for page in _pages(hostile_study):
        text = page.read_text(encoding="utf-8")
        tags = re.findall(r"<[A-Za-z][^>]*>", text)
        assert not [t for t in tags if re.match(r"<(script|svg|iframe|b\b)", t, re.I)], page
        # The page's own figures are its only images, embedded as PNG.
        assert all("src='data:image/png;base64," in t for t in tags if t.lower().startswith("<img")), page
        assert not [t for t in tags if re.search(r"\son\w+\s*=", t, re.I)], page
        for href in re.findall(r"href\s*=\s*['\"]?([^'\" >]+)", text):
            assert not re.match(r"\s*(javascript|data|vbscript):", href, re.I), (page, href)
        assert "window.pwned" in text  # the payloads are there, as text
    for page in [hostile_study / "index.md", hostile_study / "hostile" / "index.md"]:
        text = page_scan.visible_text(page.read_text(encoding="utf-8"), is_html=False)
        outside_code = re.sub(r"`[^`\n]*`", "", text)
        assert not re.search(r"(?<!\\)<[A-Za-z/!]", outside_code), page  # no raw HTML for a Markdown reader
        assert not re.search(r"(?<!\\)\]\((?:javascript|data):", outside_code, re.I), page


def test_a_hostile_studys_pages_show_no_internal_value(hostile_study):
    assert page_scan.scan(hostile_study) == []


@pytest.fixture(scope="module")
def driver() -> Iterator[Any]:
    chrome = browser_lib.start(BROWSER, DRIVER, width=1280, height=900)
    try:
        yield chrome
    finally:
        chrome.quit()


_LIVE = """
return {
  pwned: window.pwned === undefined ? null : String(window.pwned),
  scripts: Array.from(document.scripts).map((s) => s.id || s.type || 'inline'),
  links: Array.from(document.querySelectorAll('[href],[src],[action],[formaction]'))
    .map((e) => (e.href || e.src || e.action || '') + '')
    .filter((u) => !/^(https?:|file:|data:image\\/png;base64,)/.test(u)),
  handlers: Array.from(document.querySelectorAll('*')).flatMap((e) =>
    Array.from(e.attributes).filter((a) => a.name.startsWith('on')).map((a) => e.tagName + ' ' + a.name)),
  iframes: document.querySelectorAll('iframe, object, embed').length,
};
"""


def _no_dialog(driver: Any) -> bool:
    from selenium.common.exceptions import NoAlertPresentException

    try:
        driver.switch_to.alert.dismiss()
    except NoAlertPresentException:
        return True
    return False


@needs_browser
def test_a_hostile_studys_pages_run_nothing_in_a_browser(hostile_study, driver):
    for page in _pages(hostile_study):
        driver.get(page.as_uri())
        assert _no_dialog(driver), page
        live = driver.execute_script(_LIVE)
        assert live == {"pwned": None, "scripts": [], "links": [], "handlers": [], "iframes": 0}, (page, live)
        # Every link left is relative or to the web, and every table fits the page at 1280 px.
        assert driver.execute_script("return document.documentElement.scrollWidth") <= 1280
        for link in driver.find_elements("css selector", "a"):
            assert link.get_attribute("href").split(":")[0] in ("file", "http", "https")


def _hostile_trace() -> list[dict]:
    events = sim.play_traced("basic", ["greedy", "random"], seed=5, max_rounds=1)
    events[0] = {**events[0], "strategies": [HOSTILE[0], HOSTILE[1]]}
    return events


@needs_browser
def test_a_trace_naming_hostile_strategies_makes_a_page_that_runs_only_its_own_script(driver, tmp_path):
    path = tmp_path / "game.html"
    write_html(_hostile_trace(), path)
    text = path.read_text(encoding="utf-8")
    assert text.count("<script") == 2 and "<img src=x" not in text  # the page's data and its own script
    driver.get(path.as_uri())
    assert _no_dialog(driver)
    live = driver.execute_script(_LIVE)
    assert live["pwned"] is None and live["handlers"] == [] and live["links"] == [] and live["iframes"] == 0
    assert "window.pwned = 1" in driver.find_element("id", "caption").text  # the name shown, as text


@pytest.fixture(scope="module")
def review_page(tmp_path_factory) -> Path:
    """The review page of a short record, every decision valued (forced ones among them)."""
    folder = tmp_path_factory.mktemp("review")
    events = sim.play_traced("rami51", ["expert"] * 3, seed=13, max_rounds=1)
    record = parse_record(write_record(events, 1))
    reviewed = sim.review(record, trials=4, seed=5, width=None, workers=1)
    assert any(len(d.candidates) == 1 for d in reviewed.decisions), "the record has a forced decision"
    path = folder / "review.html"
    write_review_html(record, reviewed, path)
    return path


def test_a_forced_choice_says_forced_and_no_page_shows_an_internal_value(review_page, tmp_path):
    assert page_scan.internal_values(review_page) == []
    assert ">forced</td>" in review_page.read_text(encoding="utf-8")
    game = tmp_path / "game.html"
    write_html(_hostile_trace(), game)
    assert page_scan.internal_values(game) == []


@needs_browser
def test_every_decisions_choices_fit_their_panel_at_1280_px(review_page, driver):
    driver.get(review_page.as_uri())
    decisions = driver.find_elements("css selector", "article.decision")
    assert decisions
    for k in range(len(decisions)):
        driver.execute_script("document.querySelectorAll('article.decision').forEach((a, i) => a.hidden = i !== "
                              "arguments[0]);", k)
        wide = driver.execute_script("""
            const panel = document.getElementById('decisions');
            return [panel.scrollWidth, panel.clientWidth, document.documentElement.scrollWidth];""")
        assert wide[0] <= wide[1] + 1 and wide[2] <= 1280, (k, wide)

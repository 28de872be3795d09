"""Make docs/game_page.png: the game page at an analysed decision, as headless Chromium draws it.

Run from the project's root: python docs/make_screenshot.py

The analysis is the small real one the page's tests draw
(tests/game_page_analysis.py: a traced Rami 51 game, a few decisions of its
first round valued by belief rollouts of 60 trials each); the picture shows
its worst marked decision in the seat to move's view.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import browser  # noqa: E402
import game_page_analysis  # noqa: E402
from sim.analysis import write_html  # noqa: E402
from sim.analysis.page import decision_step  # noqa: E402


def main() -> None:
    chromium, driver_path, why_not = browser.find_chromium()
    if why_not:
        sys.exit(f"cannot make the screenshot: {why_not}")
    analysis = game_page_analysis.small_analysis(n=60, wanted=5)
    marked = [d for d in analysis.decisions if d.mark] or list(analysis.decisions)
    worst = max(marked, key=lambda d: d.loss)
    out = ROOT / "docs" / "game_page.png"
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "game.html"
        write_html(analysis, page)
        driver = browser.start(chromium, driver_path, width=1400, height=1150)
        try:
            driver.get(f"{page.as_uri()}#{decision_step(analysis.events, worst)}")
            driver.save_screenshot(str(out))
        finally:
            driver.quit()
    print(f"wrote {out.relative_to(ROOT)}: seat {worst.seat}'s {worst.kind} at event {worst.event} ({worst.mark})")


if __name__ == "__main__":
    main()

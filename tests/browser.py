"""Headless Chromium for the tests that open a page, through selenium.

:func:`find_chromium` looks for the browser and its driver (``RAMI_CHROMIUM``
and ``RAMI_CHROMEDRIVER`` name them when they are elsewhere than on the
path); :func:`start` opens one.
"""

from __future__ import annotations

import os
import shutil
from typing import Any

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def find_chromium() -> tuple[str | None, str | None, str]:
    """``(browser, driver, why not)``: the paths found, or ``None`` and the reason in words."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return None, None, "selenium is not installed (pip install -e '.[dev]')"
    browser = os.environ.get("RAMI_CHROMIUM") or next(filter(None, map(shutil.which, BROWSERS)), None)
    driver = os.environ.get("RAMI_CHROMEDRIVER") or shutil.which("chromedriver")
    if not browser:
        return None, driver, "no Chromium found (apt-get install chromium, or set RAMI_CHROMIUM)"
    if not driver:
        return browser, None, "no chromedriver found (apt-get install chromium-driver, or set RAMI_CHROMEDRIVER)"
    return browser, driver, ""


def start(browser: str, driver: str, width: int = 1400, height: int = 1000) -> Any:
    """A headless Chromium driven by selenium, its window ``width`` x ``height``."""
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = browser
    # --no-sandbox: CI runs as root in a container, where Chromium's sandbox cannot start.
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                 f"--window-size={width},{height}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(driver), options=options)


def required() -> tuple[str | None, str | None, Any]:
    """``(browser, driver, mark)`` for a test module that opens pages: ``mark`` skips it when no Chromium is
    found, except under ``RAMI_REQUIRE_BROWSER=1`` (CI), where a missing browser fails at once."""
    import pytest

    browser, driver, why = find_chromium()
    if why and os.environ.get("RAMI_REQUIRE_BROWSER") == "1":
        raise RuntimeError(f"RAMI_REQUIRE_BROWSER=1 but {why}")
    return browser, driver, pytest.mark.skipif(bool(why), reason=why or "")

"""Headless Chromium for the page tests (the ``chromium`` fixture, tests/conftest.py)."""

from __future__ import annotations

from pathlib import Path


def start_chromium(profile: Path, width: int, height: int):
    """Headless Chromium (through chromedriver) with its profile in ``profile``, its window
    ``width`` x ``height``."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--mute-audio",
                 "--autoplay-policy=no-user-gesture-required",
                 f"--user-data-dir={profile}",
                 f"--window-size={width},{height}"):
        opts.add_argument(flag)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)
    driver.set_window_size(width, height)
    return driver

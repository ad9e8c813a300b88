"""Driving the review page in Debian's headless Chromium (through Selenium): the browser, sign-in,
clicks that wait for the next page, and screenshots of what a person sees."""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

from tests.server.conftest import CallTool, HttpServer, caller, http_mcp

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
WAIT_S = 60
DESKTOP = (1100, 900)
PHONE = (390, 844)
# A screenshot is of the whole page, cut at this height (the rest of a long page repeats itself).
SHOT_MAX_HEIGHT = 1800


@pytest.fixture(scope="module")
def browser() -> Iterator[WebDriver]:
    missing = [str(path) for path in (CHROMIUM, CHROMEDRIVER) if not path.exists()]
    if missing:
        pytest.fail(
            f"The review page tests need Debian's chromium and chromium-driver ({', '.join(missing)} "
            "missing): `make test` installs them as root, or run `apt-get install chromium chromium-driver`."
        )
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    size = f"--window-size={DESKTOP[0]},{DESKTOP[1]}"
    # Scrollbars drawn over the page, as on a phone, so the page has the window's whole width.
    arguments = ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--hide-scrollbars", size)
    for argument in arguments:
        options.add_argument(argument)
    # An explicit driver path keeps Selenium Manager from trying to download one.
    driver = webdriver.Chrome(options=options, service=Service(str(CHROMEDRIVER)))
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def page(browser: WebDriver) -> WebDriver:
    browser.delete_all_cookies()
    browser.set_window_size(*DESKTOP)
    return browser


@pytest.fixture
async def call(http_server: HttpServer) -> AsyncIterator[CallTool]:
    """Tool calls to the page's own server. Never to one in this process: Selenium blocks the
    event loop, and a server on it would hold its transaction open while the page's write
    waited on its locks (a deadlock across processes; one CI run's accept_claim ran out 15 s)."""
    async with http_mcp(http_server, http_server.write_token) as client:
        yield caller(client)


def screenshot(browser: WebDriver, folder: Path, name: str) -> Path:
    """The page as laid out at the window's width, from its top down to SHOT_MAX_HEIGHT."""
    folder.mkdir(parents=True, exist_ok=True)
    width, height = browser.execute_script(
        "return [document.documentElement.clientWidth, document.documentElement.scrollHeight]"
    )
    clip = {"x": 0, "y": 0, "width": width, "height": min(height, SHOT_MAX_HEIGHT), "scale": 1}
    shot = browser.execute_cdp_cmd(
        "Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True, "clip": clip}
    )
    path = folder / f"{name}.png"
    path.write_bytes(base64.b64decode(shot["data"]))
    return path


def sign_in(browser: WebDriver, server: HttpServer, token: str) -> None:
    browser.get(f"{server.base}/review")
    enter_token(browser, token)


def enter_token(browser: WebDriver, token: str) -> None:
    """Sign in on the page the browser shows (the review page's own, or on a connector's way)."""
    field = waiting(browser).until(expected_conditions.presence_of_element_located((By.ID, "token")))
    field.send_keys(token)
    click_through(browser, "main form button")


def open_consent(browser: WebDriver, authorization_url: str, token: str) -> None:
    """Follow a connector's authorization URL as a person does, signing in on the way with
    `token` unless the browser still is, until the consent page shows its Allow button."""
    browser.get(authorization_url)
    allow = expected_conditions.presence_of_element_located((By.CSS_SELECTOR, "button[value=allow]"))
    sign_in_form = expected_conditions.presence_of_element_located((By.ID, "token"))
    if waiting(browser).until(expected_conditions.any_of(allow, sign_in_form)).get_attribute("id") == "token":
        enter_token(browser, token)
        waiting(browser).until(allow)


def text_of(browser: WebDriver) -> str:
    return str(browser.find_element(By.TAG_NAME, "main").text)


def waiting(browser: WebDriver) -> WebDriverWait[WebDriver]:
    # Mid-navigation, chromedriver can answer with errors other than a stale element.
    return WebDriverWait(browser, WAIT_S, ignored_exceptions=(WebDriverException,))


def click_through(browser: WebDriver, selector: str, by: str = By.CSS_SELECTOR) -> None:
    """Click and wait until the next page has replaced this one and finished loading."""
    browser.execute_script("window.reverieLeaving = true")
    browser.find_element(by, selector).click()
    waiting(browser).until(
        lambda loaded: loaded.execute_script(
            "return !window.reverieLeaving && document.readyState === 'complete'"
        )
    )


def press(browser: WebDriver, decision: str) -> None:
    click_through(browser, f"button[name=decision][value={decision}]")

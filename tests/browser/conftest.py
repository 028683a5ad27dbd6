"""A real headless Chromium (Debian's chromium + chromedriver) driven by selenium against a live server.

The server is pytest-django's `live_server` (the project's WSGI app in a thread, static files served by
staticfiles' handler), so test data made with the services is what the browser sees. Chromium resolves no
host but the loopback ones (--host-resolver-rules), so a page that reaches for a CDN fails the tests
instead of passing on a machine that happens to be online. A failing test leaves a screenshot and the
page's HTML in its tmp_path.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.service import Service

from tests.browser.browser_support import Browser

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome")
INSTALL_HINT = "sudo apt-get install chromium chromium-driver (.ci/run installs them when missing)"
# Every name resolves nowhere except the loopback host the live server listens on: the network is cut.
OFFLINE_RULES = "MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1"


def _binary(names: tuple[str, ...]) -> str:
    for name in names:
        found = shutil.which(name)
        if found:
            return found
    pytest.fail(f"the browser tests need {' or '.join(names)} on PATH: {INSTALL_HINT}", pytrace=False)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[Any]:
    # Keep each phase's report on the item, so the browser fixture knows at teardown if the test failed.
    outcome: Any = yield
    report = outcome.get_result()
    setattr(item, f"report_{report.when}", report)


@pytest.fixture(scope="session")
def chromium() -> tuple[str, str]:
    return _binary(CHROMIUM_NAMES), _binary(("chromedriver",))


@pytest.fixture
def browser(
    chromium: tuple[str, str], live_server: Any, request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[Browser]:
    binary, driver_path = chromium
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for argument in (
        "--headless=new",
        "--no-sandbox",  # runs as root in CI containers
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-default-apps",
        "--disable-sync",
        f"--host-resolver-rules={OFFLINE_RULES}",
        "--window-size=1400,1000",
    ):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    # An explicit chromedriver: selenium-manager would otherwise try to download one.
    service = Service(executable_path=driver_path, log_output=str(tmp_path / "chromedriver.log"))
    try:
        driver = webdriver.Chrome(options=options, service=service)
    except WebDriverException as error:
        pytest.fail(f"chromium did not start ({error.msg}): {INSTALL_HINT}", pytrace=False)
    driver.set_page_load_timeout(60)
    try:
        yield Browser(driver, live_server.url)
    finally:
        failed = any(
            getattr(getattr(request.node, f"report_{when}", None), "failed", False)
            for when in ("setup", "call")
        )
        if failed:
            driver.save_screenshot(str(tmp_path / "failure.png"))
            (tmp_path / "failure.html").write_text(driver.page_source, encoding="utf-8")
        driver.quit()

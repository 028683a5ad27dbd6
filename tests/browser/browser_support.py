"""The browser the page tests drive (tests/browser/conftest.py makes it)."""

from __future__ import annotations

from typing import Any

from selenium import webdriver


class Browser:
    """The driver plus the live server's URL and the checks every page test makes."""

    def __init__(self, driver: webdriver.Chrome, base_url: str) -> None:
        self.driver = driver
        self.base_url = base_url

    def open(self, path: str, *, width: int = 1400, height: int = 1000) -> None:
        self.driver.set_window_size(width, height)
        self.driver.get(self.base_url + path)

    def console_errors(self) -> list[dict[str, Any]]:
        """Console messages at SEVERE level (script errors, failed loads, CSP refusals) since last asked."""
        return [entry for entry in self.driver.get_log("browser") if entry.get("level") == "SEVERE"]

    def overflow(self) -> tuple[int, int]:
        """(document width, viewport width): the page scrolls sideways when the first is larger."""
        return self.driver.execute_script(
            "return [document.scrollingElement.scrollWidth, window.innerWidth];"
        )  # type: ignore[no-any-return]

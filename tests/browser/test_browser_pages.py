"""What a person sees, in a real headless Chromium against a live server: the directory, the agent page
at desktop and phone widths, Swagger UI with the network cut off, and the admin's provider page."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import Select, WebDriverWait

from attestations.models import AgentRegistrationStatus, ScorePublication
from attestations.services.registrations import agent_registration_fetch, agent_uri_set
from registry import views
from registry.models import Agent, FeedbackEntry, Provider
from registry.services.agents import agent_register
from registry.services.providers import provider_create
from registry.services.summaries import summaries_ingest
from signing.chain.registration import REGISTRATION_TYPE
from signing.chain.settings import ChainSettings
from tests.browser.browser_support import Browser

pytestmark = pytest.mark.browser

IDENTITY = "0x8004A169FB4a3325136EB29fA0ceB6D2e539a432"
# Page loads and rendering get this long; the checks themselves are about content, never speed.
WAIT_SECONDS = 30


def _summary(agent: str, block_rate: float, checks: int = 60) -> dict[str, Any]:
    return {
        "agent": agent,
        "allowRate": round(1 - block_rate, 4),
        "blockRate": block_rate,
        "avgConfidence": 0.8,
        "totalChecks": checks,
    }


@pytest.fixture
def onchain_agent(transactional_db: None) -> Agent:
    """An ERC-8004 agent with a score history, a registration file, feedback and a publication.

    Long unbroken strings (a 66-character transaction hash, URLs, a data: URI) are what push a narrow
    page sideways, so the agent has all of them.
    """
    subject = f"eip155:8453:{IDENTITY}:42"
    agent = agent_register(
        subject_id=subject, name="Flight scout", registry="erc-8004", chain_id=8453, erc8004_agent_id=42
    )
    first, _ = provider_create(name="First verifier", slug="first")
    second, _ = provider_create(name="Second verifier", slug="second")
    # Three scores over time, so the chart has a line.
    summaries_ingest(provider=first, bodies=[_summary(subject, 0.1)])
    summaries_ingest(provider=second, bodies=[_summary(subject, 0.3, checks=90)])
    summaries_ingest(provider=first, bodies=[_summary(subject, 0.05, checks=120)])

    chain = ChainSettings.for_network("local", chain_id=8453, identity_registry=IDENTITY)
    document = {
        "type": REGISTRATION_TYPE,
        "name": "Flight scout",
        "description": "Finds flights. " * 20,
        "image": "https://scout.example/" + "very-long-path-segment/" * 8 + "logo.png",
        "services": [
            {"name": "MCP", "endpoint": "https://mcp.scout.example/" + "x" * 120, "version": "2025-06-18"},
            {"name": "A2A", "endpoint": "https://scout.example/.well-known/agent-card.json"},
        ],
        "registrations": [{"agentId": 42, "agentRegistry": f"eip155:8453:{IDENTITY}"}],
    }
    uri = "data:application/json;base64," + base64.b64encode(json.dumps(document).encode()).decode()
    registration = agent_uri_set(agent=agent, chain=chain, uri=uri, block=1)
    fetched = agent_registration_fetch(registration_id=registration.pk, uri=uri)
    assert fetched is not None and fetched.status == AgentRegistrationStatus.FETCHED, fetched

    # The indexer writes feedback and the publisher publications (both need a node, tests/attestations
    # covers them); here they are rows, to see how the page lays them out.
    for index, value in enumerate((87, 92, 40), start=1):
        FeedbackEntry.objects.create(
            agent=agent,
            client_address="0x" + f"{index:02x}" * 20,
            feedback_index=1,
            value=value,
            tag1="starred",
        )
    agent.refresh_from_db()
    assert agent.latest_score is not None
    ScorePublication.objects.create(
        score=agent.latest_score,
        agent=agent,
        chain_id=8453,
        status="confirmed",
        tx_hash="0x" + "ab" * 32,
        block_number=123456,
        value=9000,
        feedback_uri="http://127.0.0.1:8000/api/v1/feedback/1",
    )
    return agent


@pytest.mark.parametrize("width", [1400, 390])
def test_it_shows_the_agent_page_with_its_chart_and_no_sideways_scrolling(
    browser: Browser, onchain_agent: Agent, width: int
) -> None:
    browser.open(f"/agents/{onchain_agent.subject_id}", width=width, height=900)
    driver = browser.driver
    assert driver.find_element(By.TAG_NAME, "h1").text == "Flight scout"

    chart = driver.find_element(By.CSS_SELECTOR, "svg.chart")
    assert chart.is_displayed() and chart.size["width"] > 0
    points = chart.find_element(By.TAG_NAME, "polyline").get_attribute("points") or ""
    assert len(points.split()) >= 2
    assert chart.size["width"] <= driver.execute_script("return window.innerWidth;")

    page = driver.find_element(By.TAG_NAME, "body").text
    for shown in (
        "Registration file",
        "mcp.scout.example",
        "On-chain feedback",
        "Published scores",
        "ab" * 32,
    ):
        assert shown in page
    scroll_width, viewport = browser.overflow()
    assert viewport <= width  # the layout really is the phone's (or the desktop's) width
    assert scroll_width <= viewport, f"the page is {scroll_width} px wide in a {viewport} px window"
    assert browser.console_errors() == []
    # The measure itself notices a page that is too wide.
    # (CSSOM, which the CSP allows, unlike a style attribute.)
    driver.execute_script(
        "const wide = document.createElement('div'); wide.style.width = '2000px';"
        " wide.style.height = '1px'; document.body.append(wide);"
    )
    wide, _ = browser.overflow()
    assert wide > viewport


def test_it_searches_filters_and_pages_the_directory(browser: Browser, transactional_db: None) -> None:
    per_page = getattr(views, "AGENTS_PER_PAGE", 25)
    for number in range(per_page + 3):
        agent_register(
            subject_id=f"dir-agent-{number:03d}", name=f"Directory agent {number:03d}", registry="hcs-10"
        )
    agent_register(subject_id="needle-agent", name="Needle in the haystack", registry="erc-8004")
    driver = browser.driver

    browser.open("/agents/", width=390)
    scroll_width, viewport = browser.overflow()
    assert scroll_width <= viewport, f"the directory is {scroll_width} px wide in a {viewport} px window"

    # Paging: the next page shows agents the first did not.
    browser.open("/agents/")
    first_page = {a.text for a in driver.find_elements(By.CSS_SELECTOR, "table a")}
    first_url = driver.current_url
    driver.find_element(By.CSS_SELECTOR, "a[rel~=next]").click()
    WebDriverWait(driver, WAIT_SECONDS).until(ec.url_changes(first_url))
    second_page = {a.text for a in driver.find_elements(By.CSS_SELECTOR, "table a")}
    assert second_page and not (second_page & first_page)

    # Search: type into the search box and submit.
    browser.open("/agents/")
    box = driver.find_element(By.CSS_SELECTOR, "input[type=search]")
    box.send_keys("haystack")
    box.submit()
    WebDriverWait(driver, WAIT_SECONDS).until(ec.url_contains("haystack"))
    assert [a.text for a in driver.find_elements(By.CSS_SELECTOR, "table a")] == ["Needle in the haystack"]

    # A filter: only the ERC-8004 registry.
    browser.open("/agents/")
    Select(driver.find_element(By.NAME, "registry")).select_by_value("erc-8004")
    driver.find_element(By.CSS_SELECTOR, "form button[type=submit], form input[type=submit]").click()
    WebDriverWait(driver, WAIT_SECONDS).until(ec.url_contains("registry=erc-8004"))
    assert [a.text for a in driver.find_elements(By.CSS_SELECTOR, "table a")] == ["Needle in the haystack"]
    assert browser.console_errors() == []


def test_it_renders_swagger_ui_from_our_own_files_with_the_network_cut_off(
    browser: Browser, transactional_db: None
) -> None:
    browser.open("/api/docs/")
    driver = browser.driver
    # Swagger UI builds the operation list from the schema in the browser: it rendered if they appear.
    WebDriverWait(driver, WAIT_SECONDS).until(
        ec.presence_of_element_located((By.CSS_SELECTOR, ".swagger-ui .opblock"))
    )
    assert len(driver.find_elements(By.CSS_SELECTOR, ".swagger-ui .opblock")) > 10
    assert "trust-score" in driver.find_element(By.CSS_SELECTOR, ".swagger-ui").text
    assert browser.console_errors() == []
    loaded: list[str] = driver.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name);"
    )
    assert loaded and all(url.startswith(browser.base_url) for url in loaded), loaded

    # And the network really is cut: a CDN's name does not even resolve for this browser.
    with pytest.raises(WebDriverException, match="ERR_NAME_NOT_RESOLVED"):
        driver.get("https://cdn.jsdelivr.net/npm/swagger-ui-dist@5/swagger-ui-bundle.js")


def test_it_logs_into_the_admin_and_suspends_a_provider_from_its_page(
    browser: Browser, transactional_db: None
) -> None:
    get_user_model().objects.create_superuser("auditor", "auditor@example.org", "correct horse battery")
    provider, _ = provider_create(name="Suspicious verifier", slug="suspicious")
    driver = browser.driver

    browser.open("/admin/login/?next=/admin/")
    driver.find_element(By.NAME, "username").send_keys("auditor")
    driver.find_element(By.NAME, "password").send_keys("correct horse battery")
    driver.find_element(By.CSS_SELECTOR, "input[type=submit], button[type=submit]").click()
    WebDriverWait(driver, WAIT_SECONDS).until(ec.url_to_be(browser.base_url + "/admin/"))

    browser.open(f"/admin/registry/provider/{provider.pk}/change/")
    assert "Suspicious verifier" in driver.find_element(By.TAG_NAME, "body").text
    scroll_width, viewport = browser.overflow()
    assert scroll_width <= viewport, f"the provider page is {scroll_width} px wide in a {viewport} px window"

    driver.find_element(By.PARTIAL_LINK_TEXT, "Suspend").click()
    WebDriverWait(driver, WAIT_SECONDS).until(ec.presence_of_element_located((By.NAME, "reason")))
    driver.find_element(By.NAME, "reason").send_keys("Allows everything it is shown.")
    # The submit button of the form that holds the reason (the header's log-out button is a form too).
    driver.find_element(By.XPATH, "//*[@name='reason']/ancestor::form//*[@type='submit']").click()
    WebDriverWait(driver, WAIT_SECONDS).until(
        ec.url_contains(f"/admin/registry/provider/{provider.pk}/change/")
    )

    provider.refresh_from_db()
    assert provider.status == Provider.Status.SUSPENDED
    assert "Allows everything it is shown." in driver.find_element(By.TAG_NAME, "body").text
    assert browser.console_errors() == []


@pytest.mark.parametrize("width", [1400, 390])
def test_it_shows_a_providers_calibration_without_sideways_scrolling(
    browser: Browser, transactional_db: None, width: int
) -> None:
    from datetime import UTC, datetime, timedelta

    from registry.models import CheckOutcome
    from registry.services.audit import provider_audit_refresh

    agent = agent_register(subject_id="calibrated-agent", name="Calibrated agent", registry="other")
    sure, _ = provider_create(name="Sure of itself", slug="sure")
    other, _ = provider_create(name="Other verifier", slug="other")
    summaries_ingest(provider=sure, bodies=[_summary(agent.subject_id, 0.9)])
    summaries_ingest(provider=other, bodies=[_summary(agent.subject_id, 0.25)])
    for index, (verdict, confidence) in enumerate([("BLOCK", 0.95), ("BLOCK", 0.92), ("ALLOW", 0.55)]):
        CheckOutcome.objects.create(
            provider=sure,
            agent=agent,
            outcome_id=f"o-{index}",
            verdict=verdict,
            reported_verdict=verdict,
            confidence=confidence,
            checked_at=datetime.now(UTC) - timedelta(hours=1),
            body_digest="sha256:" + "0" * 64,
        )
    provider_audit_refresh()

    browser.open("/providers/sure", width=width, height=900)
    driver = browser.driver
    assert driver.find_element(By.TAG_NAME, "h1").text == "Sure of itself"
    page = driver.find_element(By.TAG_NAME, "body").text
    assert "Calibration of its confidence" in page and "Expected calibration error" in page
    assert "0.9–1.0" in page and "0.5–0.6" in page
    scroll_width, viewport = browser.overflow()
    assert viewport <= width
    assert scroll_width <= viewport, f"the page is {scroll_width} px wide in a {viewport} px window"
    assert browser.console_errors() == []

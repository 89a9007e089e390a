"""The playground in a real browser: a real `focal serve` process, Debian's headless Chromium driven
through chromium-driver (selenium).

The chat runs as customer c-100 through a trusted backend key (the retail tools act on the
customer's own orders only): a refund of A1002 ($75) is offered, the offer is BLOCKED by the GLOBAL
`refund_cap` and replaced. The answer must be marked red with the rule, the trace panels must show it;
"save as test" must give a suite that loads and passes. A second conversation waits for an approval
that is denied from the page; the live flow panel shows its current step and slot. On the card-support
example an action a guard blocks is marked on the answer with the tool and the guard.

Chromium is not skipped when missing: `make test` installs it (`make browser`), so its absence is a
failure with the command to run. Screenshots go to test-artifacts/screenshots/ (git-ignored).
"""

from __future__ import annotations

import os
import queue
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
AGENT = ROOT / "examples" / "retail" / "agent.yaml"
CARDS = ROOT / "examples" / "cards" / "agent.yaml"
RED = "rgba(180, 35, 24, 1)"  # style.css: #b42318, the colour of what was blocked
SHOTS = ROOT / "test-artifacts" / "screenshots"
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1600,1300")
WAIT_S = 90  # a turn on 2 busy cores (the embedding model loads on the first one)
STAGES = ("sensor", "retrieve", "route", "tools", "generate", "enforce", "persist")
TOKEN_SECRET = "browser-test-customer-token-secret"  # the tenant's secret the served page's tokens are signed with


def _browser_paths() -> tuple[str, str]:
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    driver = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    missing = [p for p in (chromium, driver) if not os.access(p, os.X_OK)]
    if missing:
        pytest.fail(f"headless Chromium is required for the playground test but {', '.join(missing)} is missing: "
                    "run `make browser` (apt-get install chromium chromium-driver)", pytrace=False)
    try:
        import selenium  # noqa: F401
    except ImportError:
        pytest.fail("selenium is missing: pip install -e '.[dev]'", pytrace=False)
    return chromium, driver


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """`focal serve` as its own process on an ephemeral port, with a trusted backend key (chat, approve)."""
    from focal.adapters.sqlite_api_keys import SqliteApiKeyStore

    folder = tmp_path_factory.mktemp("playground")
    db = folder / "focal.db"
    key, _ = SqliteApiKeyStore(str(db)).create("acme", ["chat", "approve"], label="browser test", trusted_backend=True)
    # A developer's key that is no trusted backend: it may read traces, but not name the customer it chats as.
    admin_key, _ = SqliteApiKeyStore(str(db)).create("acme", ["admin"], label="browser test, untrusted")
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "HF_HUB_OFFLINE": "1",
           "FOCAL_SECRET_CUSTOMER_TOKEN_SECRET": TOKEN_SECRET}
    env.pop("FOCAL_MODEL", None)
    proc = subprocess.Popen([sys.executable, "-m", "focal.main", "serve", "--agent", str(AGENT), "--agent", str(CARDS), "--db", str(db),
                             "--port", "0", "--quiet"], cwd=folder, env=env, stderr=subprocess.PIPE, text=True)
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in proc.stderr], daemon=True).start()  # type: ignore[union-attr]
    deadline, url, seen = time.monotonic() + 120, None, []
    while url is None and time.monotonic() < deadline and proc.poll() is None:
        try:
            line = lines.get(timeout=0.5)
        except queue.Empty:
            continue
        seen.append(line)
        if m := re.search(r"Uvicorn running on (http://127\.0\.0\.1:\d+)", line):
            url = m.group(1)
    if url is None:
        proc.kill()
        pytest.fail("focal serve did not start:\n" + "".join(seen[-20:]))
    yield url, key, admin_key
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    chromium, driver_path = _browser_paths()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in (*FLAGS, f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(executable_path=driver_path, log_output=subprocess.DEVNULL))
    driver.set_script_timeout(WAIT_S)
    SHOTS.mkdir(parents=True, exist_ok=True)
    for old in SHOTS.glob("playground-*.png"):  # only this run's pictures
        old.unlink()
    yield driver
    for entry in driver.get_log("browser"):  # the page's console: a script error shows here (-rA or on failure)
        print("browser console:", entry.get("level"), entry.get("message"))
    driver.quit()


def wait_for(driver, what: str, check, timeout: float = WAIT_S):
    from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
    from selenium.webdriver.support.ui import WebDriverWait

    try:  # a list the page re-renders meanwhile (sessions, approvals) leaves stale elements: look again
        return WebDriverWait(driver, timeout, poll_frequency=0.1,
                             ignored_exceptions=[StaleElementReferenceException]).until(lambda d: check(d))
    except TimeoutException:
        shot(driver, "timeout")
        raise AssertionError(f"timed out waiting for {what}") from None


def css(driver, selector: str):
    from selenium.webdriver.common.by import By

    return driver.find_elements(By.CSS_SELECTOR, selector)


def shot(target, name: str) -> Path:
    path = SHOTS / f"playground-{name}.png"
    target.screenshot(str(path)) if hasattr(target, "tag_name") else target.save_screenshot(str(path))
    print(f"screenshot: {path}")
    return path


def say(driver, message: str, turns_after: int) -> None:
    box = css(driver, "#message-input")[0]
    box.send_keys(message)
    css(driver, "#send")[0].click()
    wait_for(driver, f"turn {turns_after}", lambda d: css(d, "#transcript")[0].get_attribute("data-turns") == str(turns_after)
             and css(d, "#status")[0].get_attribute("data-state") == "idle")


def open_page(driver, url: str, key: str) -> None:
    """Load the page; give the key when it asks (once per tab: it stays in sessionStorage)."""
    driver.get(url + "/")
    def agents_listed(d) -> bool:
        return any(o.get_attribute("value") == "retail" for o in css(d, "#agent-select option"))

    def asked(d) -> bool:
        return css(d, "#key-dialog")[0].get_attribute("open") is not None

    wait_for(driver, "the key dialog or the agent list", lambda d: asked(d) or agents_listed(d))
    if asked(driver):
        css(driver, "#key-input")[0].send_keys(key)
        css(driver, "#key-save")[0].click()
    wait_for(driver, "the agent list", lambda d: agents_listed(d) and not asked(d))


def new_session(driver, customer: str, token: str | None = None) -> None:
    """A new conversation, with the customer id (and customer token) fields filled in."""
    css(driver, "#new-session")[0].click()
    for field, value in (("#customer-id", customer), ("#customer-token", token)):
        if value is not None:
            box = css(driver, field)[0]
            box.clear()
            box.send_keys(value)


def panel_text(driver, name: str) -> str:
    return css(driver, f"#panel-{name}")[0].text


def flow_current_step(driver) -> list[str]:
    return [li.get_attribute("data-step") for li in css(driver, "#flow-view ol.steps li.current")]


def flow_slot(driver, name: str) -> str | None:
    found = css(driver, f"#flow-view dd[data-slot='{name}']")
    return found[0].text if found else None


def open_mark(driver, mark) -> str:
    """Expand a mark's line (a <details>) and give its text, the reasons included."""
    if mark.get_attribute("open") is None:
        mark.find_element("css selector", "summary").click()
    wait_for(driver, "the mark's reasons", lambda d: mark.get_attribute("open") is not None)
    return mark.text


def test_refund_blocked_by_the_cap_shows_in_every_panel_and_saves_as_a_passing_test(server, browser, tmp_path):
    url, key, _ = server
    driver = browser
    open_page(driver, url, key)
    assert "Acme Retail Support" in css(driver, "#transcript")[0].text  # the agent's greeting
    session = css(driver, "#session-id")[0].text
    css(driver, "#customer-id")[0].send_keys("c-100")
    say(driver, "I want a refund for my order", 1)
    assert "order number" in css(driver, ".msg.agent[data-turn='0']")[0].text
    assert flow_current_step(driver) == ["collect_order"] and "Refund an order" in css(driver, "#flow-view")[0].text
    first = css(driver, ".msg.agent[data-turn='0']")[0]
    assert not css(driver, ".msg.agent[data-turn='0'] .mark") and "replaced" not in first.get_attribute("class")
    say(driver, "It's A1002", 2)
    shot(driver, "refund-blocked")

    message = css(driver, ".msg.agent[data-turn='1']")[0]
    answer = message.text
    assert "need a review" in answer and "$75" not in answer
    # the answer replaced a blocked draft: marked red, with the rule in the line and the reason in the tooltip
    [mark] = css(driver, ".msg.agent[data-turn='1'] details.replaced-mark")
    assert "replaced" in message.get_attribute("class") and mark.get_attribute("data-rules") == "refund_cap"
    summary = mark.find_element("css selector", "summary")
    assert "REPLACED" in summary.text and "refund_cap" in summary.text
    assert summary.find_element("css selector", ".badge").value_of_css_property("background-color") == RED
    assert mark.value_of_css_property("color") == RED
    assert "refund_amount" in mark.get_attribute("title") and "regenerated" in mark.get_attribute("title")
    assert "refund_amount <= 50" in open_mark(driver, mark)
    shot(message, "replaced-answer")
    assert flow_slot(driver, "order_id") == "A1002"  # the blocked offer ended the flow; the slot stays

    timeline = {el.get_attribute("data-stage"): el.text for el in css(driver, "#panel-timeline [data-stage]")}
    assert tuple(timeline) == STAGES, timeline
    for stage in STAGES[:-1]:
        assert re.search(r"\d+\.\d ms", timeline[stage]), (stage, timeline[stage])
    assert "writes this record" in timeline["persist"]

    blocked = css(driver, "#panel-enforcement li[data-lane='deterministic'][data-rule='refund_cap']")
    assert blocked and "BLOCKED" in blocked[0].text and "refund_amount" in blocked[0].text
    drafts = css(driver, "#panel-enforcement li.draft")
    assert "BLOCKED" in drafts[0].text and "$75" in drafts[0].text and "draft blocked" in drafts[0].get_attribute("class")
    assert "SHOWN" in drafts[-1].text and "need a review" in drafts[-1].text
    assert "regenerations 1" in panel_text(driver, "enforcement")
    shot(css(driver, "#panel-enforcement")[0], "enforcement-panel")

    for tool in ("lookup_order", "check_refund_eligibility"):
        call = css(driver, f"#panel-tools [data-tool='{tool}']")
        assert call and call[0].get_attribute("data-status") == "ok" and "A1002" in call[0].text, tool
    assert "75" in css(driver, "#panel-tools [data-tool='lookup_order']")[0].text  # its output, the order total
    shot(css(driver, "#panel-tools")[0], "tools-panel")

    assert css(driver, "#panel-commands [data-command='SetSlot']")
    before, after = (css(driver, f"#panel-flow [data-when='{w}']")[0].text for w in ("before", "after"))
    assert "refund/collect_order" in before and "A1002" in after
    assert css(driver, "#panel-rules tr[data-rule='refund_cap']")
    assert "no model calls" in panel_text(driver, "models") and "cost $0.000000" in panel_text(driver, "models")
    assert "refund" in panel_text(driver, "intent")

    css(driver, "#refresh-sessions")[0].click()
    wait_for(driver, "the session list", lambda d: any("2 turn(s)" in li.text for li in css(d, f"#sessions li[data-session='{session}']")))

    css(driver, "#save-test")[0].click()
    wait_for(driver, "the saved test", lambda d: css(d, "#test-yaml")[0].get_attribute("data-ready") == "yes")
    suite = tmp_path / "tests.yaml"
    suite.write_text(css(driver, "#test-yaml")[0].get_attribute("value"), encoding="utf-8")
    assert css(driver, "#test-download")[0].get_attribute("download") == f"retail-{session}.tests.yaml"
    shot(driver, "saved-test")

    from focal.cli.conversation_tests import load_suite, run_suite
    from focal.config.loader import load_agent

    [conversation] = load_suite(suite, load_agent(AGENT))
    assert conversation.customer_id == "c-100" and [t.user for t in conversation.turns] == ["I want a refund for my order", "It's A1002"]
    second = conversation.turns[1].expect
    assert second["violations"] == ["refund_cap"] and second["regenerations"] == 1
    assert second["tool_calls"] == [{"lookup_order": {"order_id": "A1002"}}, {"check_refund_eligibility": {"order_id": "A1002"}}]
    assert not [t for t in conversation.turns if "matched_rules" in t.expect]  # rules by inclusion only
    report = run_suite(AGENT, suite)
    assert report.passed, [c.failures for c in report.conversations]


def test_a_pending_approval_is_listed_and_denied_from_the_page(server, browser):
    url, key, _ = server
    driver = browser
    open_page(driver, url, key)
    new_session(driver, "c-300")
    say(driver, "I want a refund for my order", 1)
    say(driver, "A1006", 2)
    assert flow_current_step(driver) == ["confirm_refund"] and flow_slot(driver, "order_id") == "A1006"
    assert css(driver, "#flow-view")[0].get_attribute("data-turns") == "2"
    shot(css(driver, "#flow-live")[0], "flow-panel")
    # an unsure yes (affirmed only at the exemplar-similarity threshold) waits for a person; a clear yes to the
    # $49.99 the look-up returned runs, being under the guard's $50 exactly (focal.dialogue.confidence)
    say(driver, "that should be fine", 3)
    assert "approval" in css(driver, ".msg.agent[data-turn='2']")[0].text
    text = wait_for(driver, "the pending approval", lambda d: [li.text for li in css(d, "#approvals li[data-approval]")])[0]
    assert "issue_refund" in text and "A1006" in text and "refund_guard: passed" in text
    shot(driver, "approval-pending")
    wait_for(driver, "the deny button", lambda d: css(d, "#approvals li[data-approval] button.deny")[0].click() or True)
    wait_for(driver, "the approval to be answered",
             lambda d: not css(d, "#approvals li[data-approval]") and "denied" in css(d, "#status")[0].text)
    shot(driver, "approval-denied")


def test_a_session_replays_as_the_same_customer_with_the_same_answers(server, browser):
    url, key, _ = server
    driver = browser
    open_page(driver, url, key)
    new_session(driver, "c-100")
    say(driver, "How much did I pay for order A1001?", 1)
    say(driver, "And how much did I pay for order A1002?", 2)
    assert "$75.00" in css(driver, ".msg.agent[data-turn='1']")[0].text
    session = css(driver, "#session-id")[0].text
    css(driver, "#refresh-sessions")[0].click()
    wait_for(driver, "the replay button", lambda d: css(d, f"#sessions li[data-session='{session}'] button.replay")[0].click() or True)
    rows = wait_for(driver, "the replay's verdicts",
                    lambda d: css(d, "#replay-result li") if len(css(d, "#replay-result li")) == 2 else None)
    assert [r.get_attribute("class") for r in rows] == ["same", "same"], [r.text for r in rows]
    replayed = css(driver, "#session-id")[0].text
    assert replayed != session and f"Replay of {session} → {replayed}" in css(driver, "#replay-result")[0].text
    assert css(driver, "#customer-id")[0].get_attribute("value") == "c-100"  # the same customer: the same orders
    shot(driver, "replay")


def test_with_an_untrusted_key_the_token_not_the_typed_id_decides_whose_orders_are_read(server, browser):
    """A key that is no trusted backend: the typed customer id is only a claim and is ignored; the signed
    token in the customer-token field names the customer; a forged one is refused."""
    from focal.customer_tokens import issue

    url, _, untrusted = server
    driver = browser
    open_page(driver, url, untrusted)
    css(driver, "#forget-key")[0].click()  # this tab held the trusted key: use the untrusted one instead
    open_page(driver, url, untrusted)

    def ask_as(token: str, claimed: str, turns_after: int = 1) -> None:
        new_session(driver, claimed, token)
        if turns_after:
            say(driver, "How much did I pay for order A1001?", turns_after)

    ask_as(issue("c-100", "acme", TOKEN_SECRET), claimed="c-200")  # A1001 is c-100's order
    assert "$30.00" in css(driver, ".msg.agent[data-turn='0']")[0].text
    shot(driver, "customer-token")

    ask_as(issue("c-200", "acme", TOKEN_SECRET), claimed="c-100")  # not c-200's: the claim does not help
    answer = css(driver, ".msg.agent[data-turn='0']")[0].text
    assert "$30.00" not in answer and "Wireless mouse" not in answer

    ask_as(issue("c-100", "acme", "a-secret-that-is-not-the-tenants"), claimed="c-100", turns_after=0)
    css(driver, "#message-input")[0].send_keys("How much did I pay for order A1001?")
    css(driver, "#send")[0].click()
    error = wait_for(driver, "the refusal", lambda d: [e.text for e in css(d, "#transcript .msg.error")])
    assert "customer token refused" in error[0] and "$30.00" not in css(driver, "#transcript")[0].text


def test_an_action_a_guard_blocked_is_marked_on_the_answer(server, browser):
    """The card-support example: an unverified customer says yes to a replacement card; `verified_only` stops the
    order before it runs, and the answer says which tool and which guard."""
    from selenium.webdriver.support.ui import Select

    url, key, _ = server
    driver = browser
    open_page(driver, url, key)
    css(driver, "#forget-key")[0].click()  # the tab may hold another test's key: the trusted one names the customer
    open_page(driver, url, key)
    Select(css(driver, "#agent-select")[0]).select_by_value("cards")
    wait_for(driver, "the cards agent's greeting", lambda d: "card" in css(d, "#transcript")[0].text.lower())
    new_session(driver, "c-unverified")
    say(driver, "I left my wallet on the bus", 1)
    say(driver, "5678", 2)
    assert flow_current_step(driver) == ["confirm_replacement"]
    say(driver, "yes", 3)
    [mark] = css(driver, ".msg.agent[data-turn='2'] details.blocked-action[data-tool='order_replacement_card']")
    assert "verified_only" in mark.get_attribute("data-rules").split() and mark.value_of_css_property("color") == RED
    assert "ACTION BLOCKED" in mark.text and "order_replacement_card" in mark.text
    assert "verified_only: " in open_mark(driver, mark)
    shot(css(driver, ".msg.agent[data-turn='2']")[0], "blocked-action")

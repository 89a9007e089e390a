"""PII at rest on DynamoDB (moto) and in the logs, as a deployment runs: the stage Lambda handlers
(Powertools Logger, `deps_from_env` with FOCAL_STORE=dynamodb), a stage failure caught into the
fallback handler. Every item of the sessions and turns tables (turn records and episodes) is read raw:
no full card number, no `pii: true` value, the last four digits kept; nothing of it in the logs either,
even with POWERTOOLS_LOGGER_LOG_EVENT=true.
"""

from __future__ import annotations

import importlib
import io
import json
import logging
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from handler_walk import run_turn as walk

from focal.turn.definition import STAGE_NAMES

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "functional"))
from store_fixtures import TABLES, mocked_dynamodb  # noqa: E402

BILLING = HERE / "pii_agent" / "agent.yaml"
PHONE = "+1 (555) 867-5309"
CONVERSATIONS = [  # (session, message, failing stage)
    ("d1", "I want to pay my invoice", None),
    ("d1", "my card is 4242-4242-4242-4242", None),
    ("d2", "Please call me back", None),
    ("d2", PHONE, None),
    ("d2", "tomorrow at 10am", None),
    ("d3", "Please call me back", None),
    ("d3", f"{PHONE}, or charge 4242 4242 4242 4242", "generate"),
]


class Ctx:
    function_name, memory_limit_in_mb, aws_request_id = "focal-stage", 1024, "req-pii"
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:focal-stage"


@pytest.fixture
def dynamo_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    from focal import settings as settings_module
    from focal import wiring

    with mocked_dynamodb(monkeypatch) as client:
        for key, value in {"FOCAL_STORE": "dynamodb", "FOCAL_CONFIG_SOURCE": "file", "FOCAL_AGENT_FILE": str(BILLING),
                           "FOCAL_SESSIONS_TABLE": TABLES["sessions"], "FOCAL_PROFILES_TABLE": TABLES["profiles"],
                           "FOCAL_TURNS_TABLE": TABLES["turns"], "POWERTOOLS_LOGGER_LOG_EVENT": "true",
                           "POWERTOOLS_SERVICE_NAME": "focal"}.items():
            monkeypatch.setenv(key, value)
        settings_module.get_settings.cache_clear()
        wiring.deps_from_env.cache_clear()
        for name in (*STAGE_NAMES, "fallback"):  # the handlers' Powertools Logger exists before logs are captured
            importlib.import_module(f"handlers.{name}")
        yield client
        settings_module.get_settings.cache_clear()
        wiring.deps_from_env.cache_clear()


@pytest.fixture
def log_streams() -> Iterator[io.StringIO]:
    """Every StreamHandler already in the logging tree (Powertools' JSON handler included) writes here."""
    from _pytest.logging import LogCaptureHandler

    buffer = io.StringIO()
    loggers = [logging.getLogger(), *(lg for lg in logging.Logger.manager.loggerDict.values() if isinstance(lg, logging.Logger))]
    swapped = [(h, h.setStream(buffer)) for lg in loggers for h in lg.handlers
               if isinstance(h, logging.StreamHandler) and not isinstance(h, (LogCaptureHandler, logging.FileHandler))]
    yield buffer
    for handler, stream in swapped:
        handler.setStream(stream)


def run_turn(n: int, session: str, message: str, failing: str | None) -> dict[str, Any]:
    """One turn through the stage handlers as the state machine runs them (Catch → fallback handler)."""
    return walk({"tenant_id": "acme", "agent_id": "billing", "session_id": session, "customer_id": "cust-1",
                 "turn_id": f"t-{n}", "message": message}, failing, Ctx())


def _items(client: Any, table: str) -> list[dict[str, Any]]:
    return [item for page in client.get_paginator("scan").paginate(TableName=table) for item in page["Items"]]


def _leaks(text: str) -> list[str]:
    joined = re.sub(r"(?<=\d)(?:[ ./-]|  )(?=\d)", "", text)
    return [name for name, found in (("card", "4242424242424242" in joined),
                                      ("phone", re.search(r"555\D{0,3}867\D{0,3}5309", text) is not None)) if found]


def test_dynamodb_items_and_logs_hold_no_card_number_and_no_pii_value(dynamo_env, log_streams, capfd, caplog) -> None:
    caplog.set_level(logging.DEBUG, logger="focal")
    caplog.set_level(logging.INFO)
    capfd.readouterr()
    results = [run_turn(n, session, message, failing) for n, (session, message, failing) in enumerate(CONVERSATIONS)]
    out, err = capfd.readouterr()

    # The conversations happened, with the clear values in the live turns.
    assert results[1]["response"] == "Card 4242-4242-4242-4242: accepted."
    assert results[1]["tool_calls"][0]["arguments"] == {"card_number": "4242-4242-4242-4242"}
    assert results[3]["response"] == f"We'll call {PHONE}. When suits you best?"
    assert results[4]["response"] == "Booked: we'll call you tomorrow at 10am."
    assert results[6]["execution_path"] == "fallback"

    sessions = {json.loads(i["doc"]["S"])["session_id"]: json.loads(i["doc"]["S"]) for i in _items(dynamo_env, TABLES["sessions"])}
    assert sessions["d1"]["slots"] == {"card_number": "**** **** **** 4242"}
    assert sessions["d2"]["slots"] == {"phone": "[redacted:phone]", "callback_time": "tomorrow at 10am"}
    assert sessions["d3"]["history"][2]["text"] == "[redacted:phone], or charge **** **** **** 4242"

    turns = [i for i in _items(dynamo_env, TABLES["turns"]) if i["sk"]["S"].startswith("TURN#")]
    episodes = [i for i in _items(dynamo_env, TABLES["turns"]) if i["sk"]["S"].startswith("EPISODE#")]
    assert len(turns) == len(CONVERSATIONS) and len(episodes) == len(CONVERSATIONS) - 1  # no episode for the failed turn
    record = next(json.loads(i["doc"]["S"]) for i in turns if i["sk"]["S"] == "TURN#t-1")
    assert record["state"]["request"]["message"] == "my card is **** **** **** 4242"
    assert record["result"]["tool_calls"][0]["arguments"] == {"card_number": "**** **** **** 4242"}
    assert sorted(json.loads(i["doc"]["S"])["asked"] for i in episodes)[0] == "I want to pay my invoice"

    stored = json.dumps([_items(dynamo_env, t) for t in TABLES.values()])
    assert _leaks(stored) == [] and "**** **** **** 4242" in stored and "[redacted:phone]" in stored

    logs = "\n".join([log_streams.getvalue(), out, err, caplog.text,
                      *(json.dumps(r.__dict__, default=str) for r in caplog.records)])
    assert "turn caught into the fallback" in logs  # the capture does see the handlers' logs
    # the card's last four as a number of their own: a thread id such as 140424261643136 holds "4242" by chance
    assert _leaks(logs) == [] and not re.search(r"(?<!\d)4242(?!\d)", logs) and "tomorrow at 10am" not in logs


def test_a_card_sent_in_two_halves_is_masked_in_every_dynamodb_item_of_both_turns(dynamo_env) -> None:
    """The earlier half's turn record and episode are already written when the later half completes the card:
    persist masks them again (`DynamoTurnStore.remask`, `DynamoEpisodeStore.remask`)."""
    halves = [("h1", "I want to pay my invoice"), ("h1", "my card is 5105 1051"), ("h1", "0510 5100 thanks")]
    for n, (session, message) in enumerate(halves):
        run_turn(n, session, message, None)

    turns = {i["sk"]["S"]: json.loads(i["doc"]["S"]) for i in _items(dynamo_env, TABLES["turns"]) if i["sk"]["S"].startswith("TURN#")}
    assert turns["TURN#t-1"]["state"]["request"]["message"] == "my card is ****"
    assert turns["TURN#t-2"]["state"]["request"]["message"] == "**** **** **** 5100 thanks"
    episodes = [json.loads(i["doc"]["S"])["asked"] for i in _items(dynamo_env, TABLES["turns"]) if i["sk"]["S"].startswith("EPISODE#")]
    assert sorted(episodes) == ["**** **** **** 5100 thanks", "I want to pay my invoice", "my card is ****"]
    [session] = [json.loads(i["doc"]["S"]) for i in _items(dynamo_env, TABLES["sessions"])]
    assert [h["text"] for h in session["history"] if h["role"] == "user"][1:] == ["my card is ****", "**** **** **** 5100 thanks"]
    texts = json.dumps([{k: v for k, v in json.loads(i["doc"]["S"]).items() if k != "embedding"}
                        for t in TABLES.values() for i in _items(dynamo_env, t) if "doc" in i])
    leaked = [m.group(0) for m in re.finditer(r"(?<![\d.])(?:5105|1051|0510)(?![\d.])", texts)]
    assert leaked == []

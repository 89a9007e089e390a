"""How much work one agent file can cause is bounded: by its expanded size, and per value.

A 948 KB file holding one 900 KB text and twelve thousand aliases to it passed `focal validate` (aliases were
capped by node count only) and expanded to 12,004 entry examples of 900 KB each; a file of many small distinct
values is as much work without any alias. The loader now measures the characters the aliases expand to before
anything is constructed, and caps each text's length, each list's entries (rules, scenarios, steps, entry
examples, tools, any other list) and the texts to embed (focal.config.limits). A file over a limit is refused
with a problem naming the field and the limit — by `focal validate`, by the loader, and by the publish route
(400 `invalid_agent`, nothing stored). Every shipped example and test agent still loads.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from focal.config.limits import AGENT_FILE_LIMITS as LIMITS
from focal.config.loader import AgentConfigInvalid, load_agent, load_agent_file, parse_agent_text
from focal.main import main

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "functional"))
from store_fixtures import TABLES, mocked_dynamodb  # noqa: E402

HEAD = "id: shop\nname: Shop\n"
STEP = "    entry_step_id: ask\n    steps:\n      - id: ask\n        instructions: Ask what they need.\n"


def scenario(examples: str, sid: str = "help") -> str:
    return f"  - id: {sid}\n    name: Help\n" + STEP + f"    entry_examples: {examples}\n"


# One 10,000-character text aliased 300 times: a 13 KB file, 3,000,000 characters once expanded.
TEXT_BOMB = (HEAD + "persona: &long " + json.dumps("word " * 2_000) + "\nscenarios:\n"
             + scenario("[" + ", ".join(["*long"] * 300) + "]"))


def rules(count: int) -> str:
    return "rules:\n" + "".join(f"  - id: r{i}\n    condition_text: the customer asks about topic {i}\n"
                                 f"    action_text: answer about topic {i}\n" for i in range(count))


def rule_examples(count: int, per: int) -> str:
    """`count` rules with `per` distinct examples each."""
    return "rules:\n" + "".join(f"  - id: r{i}\n    condition_text: the customer asks about topic {i}\n"
                                 f"    action_text: answer about topic {i}\n    examples: "
                                 + json.dumps([f"question {j} about topic {i}" for j in range(per)]) + "\n"
                                 for i in range(count))


def examples(count: int, per: int) -> str:
    """`count` distinct entry examples, `per` to a scenario."""
    out = "scenarios:\n"
    for s in range(0, count, per):
        out += scenario(json.dumps([f"I need help with request {i}" for i in range(s, min(count, s + per))]), f"s{s}")
    return out


# Wide files just over one limit each, written out in full (no alias), and what the refusal says.
WIDE = {
    "rules": (HEAD + rules(LIMITS.rules + 1), "rules", f"{LIMITS.rules + 1} rules; the limit is {LIMITS.rules}"),
    "entry examples in a scenario": (
        HEAD + examples(LIMITS.entry_examples + 1, LIMITS.entry_examples + 1), "scenarios[0].entry_examples",
        f"{LIMITS.entry_examples + 1} entry examples in a scenario; the limit is {LIMITS.entry_examples}"),
    "texts to embed": (
        HEAD + examples(LIMITS.embedded_texts + 1, LIMITS.entry_examples), "<root>",
        f"the agent has {LIMITS.embedded_texts + 1} texts to embed (rules, rule examples, entry examples, extra exemplars); "
        f"the limit is {LIMITS.embedded_texts}"),
    "examples of a rule": (
        HEAD + rule_examples(1, LIMITS.rule_examples + 1), "rules[0].examples",
        f"{LIMITS.rule_examples + 1} examples of a rule; the limit is {LIMITS.rule_examples}"),
    "texts to embed, rule examples included": (  # every example is embedded and indexed like a condition
        HEAD + rule_examples(LIMITS.embedded_texts // LIMITS.rule_examples, LIMITS.rule_examples), "<root>",
        f"the agent has {LIMITS.embedded_texts // LIMITS.rule_examples * (LIMITS.rule_examples + 1)} texts to embed "
        f"(rules, rule examples, entry examples, extra exemplars); the limit is {LIMITS.embedded_texts}"),
    "one text": (HEAD + "persona: " + "x" * (LIMITS.text_chars + 1) + "\n", "persona",
                 f"this text has {LIMITS.text_chars + 1} characters; the limit is {LIMITS.text_chars}"),
    "any other list": (HEAD + "languages: " + json.dumps(["en"] * (LIMITS.items + 1)) + "\n", "languages",
                       f"{LIMITS.items + 1} entries in one list or mapping; the limit is {LIMITS.items}"),
}
ALL = {"alias text bomb": (TEXT_BOMB, "<yaml>", "the document expands to 30##### characters through aliases; "
                                                f"the limit is {LIMITS.expanded_chars}: use fewer or smaller aliases"),
       **WIDE}


def said(message: str, expected: str) -> bool:
    """`expected` with each # standing for a digit (the bomb's exact size counts its keys too), and its line."""
    pattern = re.escape(expected).replace("\\#", r"\d").replace("#", r"\d") + r"( \(line \d+\))?"
    return re.fullmatch(pattern, message) is not None


def test_the_bomb_is_small_and_each_wide_file_is_under_the_file_size_limit():
    assert len(TEXT_BOMB) < 15_000
    assert all(len(text.encode()) < LIMITS.file_bytes for text, _, _ in ALL.values())


@pytest.mark.parametrize(("text", "path", "message"), list(ALL.values()), ids=list(ALL))
def test_the_loader_refuses_it_naming_the_field_and_the_limit(text, path, message):
    loaded = parse_agent_text(text, "agent.yaml")
    assert loaded.config is None and loaded.raw is None  # nothing more is read from it
    [problem] = loaded.problems
    assert problem.path == path and said(problem.message, message), problem


@pytest.mark.parametrize(("text", "path", "message"), list(ALL.values()), ids=list(ALL))
def test_focal_validate_and_load_agent_refuse_it_naming_the_file(tmp_path, capsys, text, path, message):
    agent = tmp_path / "agent.yaml"
    agent.write_text(text, encoding="utf-8")
    assert main(["validate", str(agent)]) == 1
    out = capsys.readouterr().out
    assert f"{agent}: 1 problem(s)" in out, out
    assert any(line.startswith(f"  {path}: ") and said(line.split(": ", 1)[1], message) for line in out.splitlines()), out
    with pytest.raises(AgentConfigInvalid) as refused:
        load_agent(agent)
    [problem] = refused.value.problems
    assert str(agent) in str(refused.value) and problem.path == path and said(problem.message, message)


def test_a_file_at_the_limits_still_loads():
    text = HEAD + rules(50) + examples(LIMITS.entry_examples, LIMITS.entry_examples)
    text += "persona: " + "x" * LIMITS.text_chars + "\n"
    loaded = parse_agent_text(text, "agent.yaml")
    assert loaded.problems == [] and loaded.config is not None
    assert len(loaded.config.scenarios[0].entry_examples) == LIMITS.entry_examples
    # aliases that stay under the expanded size are still fine
    shared = HEAD + "persona: &p " + json.dumps("word " * 100) + "\ngreeting: *p\nout_of_scope_message: *p\n"
    assert parse_agent_text(shared).config is not None


def test_every_shipped_example_and_test_agent_loads():
    agents = [*ROOT.glob("examples/*/agent.yaml"), *ROOT.glob("tests/**/agent.yaml")]
    assert len(agents) >= 10
    for path in agents:
        problems = [str(p) for p in load_agent_file(path).problems]
        assert not any("limit" in p for p in problems), (path, problems)


# --- the publish route: the real handler, the DynamoDB config table under moto -----------------------------------


class Ctx:
    function_name, memory_limit_in_mb, aws_request_id = "agents", 1024, "req-1"
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:agents"


@pytest.fixture
def publish(monkeypatch):
    from focal import settings as settings_module
    from focal import wiring

    with mocked_dynamodb(monkeypatch) as ddb:
        for key, value in {"FOCAL_STORE": "dynamodb", "FOCAL_CONFIG_SOURCE": "dynamodb", "FOCAL_TENANT": "acme",
                           "FOCAL_SESSIONS_TABLE": TABLES["sessions"], "FOCAL_PROFILES_TABLE": TABLES["profiles"],
                           "FOCAL_TURNS_TABLE": TABLES["turns"], "FOCAL_CONFIG_TABLE": TABLES["config"],
                           "FOCAL_AGENTS_ROOT": str(ROOT / "examples")}.items():
            monkeypatch.setenv(key, value)
        settings_module.get_settings.cache_clear()
        wiring.deps_from_env.cache_clear()
        from handlers.agents import handler

        def put(body: str) -> tuple[int, dict[str, Any]]:
            event = {"resource": "/v1/agents/{agent_id}", "path": "/v1/agents/shop", "httpMethod": "PUT",
                     "headers": {"content-type": "application/yaml"}, "multiValueHeaders": {},
                     "queryStringParameters": None, "multiValueQueryStringParameters": None,
                     "pathParameters": {"agent_id": "shop"}, "stageVariables": None, "isBase64Encoded": False,
                     "body": body, "requestContext": {"resourcePath": "/v1/agents/{agent_id}", "httpMethod": "PUT",
                                                      "stage": "live", "requestId": "r1",
                                                      "authorizer": {"tenant_id": "acme"}}}
            response = handler(event, Ctx())
            return response["statusCode"], json.loads(response["body"])

        yield put, ddb
        settings_module.get_settings.cache_clear()
        wiring.deps_from_env.cache_clear()


@pytest.mark.parametrize("case", ["alias text bomb", "entry examples in a scenario", "one text"])
def test_the_publish_route_answers_a_structured_400_and_stores_nothing(publish, case):
    put, ddb = publish
    text, path, message = ALL[case]
    status, body = put(text)
    assert status == 400, body
    assert body["success"] is False and body["error"]["code"] == "invalid_agent", body
    [problem] = body["error"]["problems"]
    assert problem.startswith(f"{path}: ") and said(problem.split(": ", 1)[1], message), problem
    assert ddb.scan(TableName=TABLES["config"])["Items"] == []

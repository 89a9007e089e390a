"""A chat request's customer comes from the caller, never from the body.

- A customer token (HS256 JWT signed with the tenant's secret) names the customer; a forged, expired,
  wrong-audience or alg=none token is refused (401), a valid one's `sub` is the customer.
- Otherwise the customer is anonymous and the body's `customer_id` is ignored, unless the key is a
  trusted backend key: the turn mapping template (API Gateway) uses the body's value only when the
  authorizer says `trusted_backend == "true"`.
- An anonymous session gets no profile and recalls no memory of the customer it claimed to be.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import shutil
import sys
import time
from pathlib import Path

import boto3
import pytest

from focal import customer_tokens
from focal.auth import CustomerTokenRefused, Principal, chat_customer, with_customer_token

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT / "infra") not in sys.path:
    sys.path.insert(0, str(ROOT / "infra"))

SECRET = "s3cret-of-acme-0123456789abcdef"
TURN_ARN = "arn:aws:execute-api:us-east-1:123456789012:abc123/live/POST/v1/agents/retail/sessions/s1/turns"


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def forge(header: dict, claims: dict, secret: str = SECRET, signature: str | None = None) -> str:
    head, body = b64(json.dumps(header).encode()), b64(json.dumps(claims).encode())
    sig = signature if signature is not None else b64(hmac.new(secret.encode(), f"{head}.{body}".encode(), hashlib.sha256).digest())
    return f"{head}.{body}.{sig}"


NOW = int(time.time())


@pytest.fixture(autouse=True)
def held_clock(monkeypatch):
    """Every token here is judged at NOW, however long the suite took to reach this module."""
    monkeypatch.setattr(customer_tokens, "clock", lambda: NOW)


GOOD = {"sub": "c-100", "aud": "acme", "exp": NOW + 600, "iat": NOW}
HS256 = {"alg": "HS256", "typ": "JWT"}
BAD_TOKENS = {
    "forged": forge(HS256, GOOD, secret="another-secret-0123456789"),
    "expired": forge(HS256, {**GOOD, "exp": NOW - 120}),
    "no exp": forge(HS256, {k: v for k, v in GOOD.items() if k != "exp"}),
    "wrong audience": forge(HS256, {**GOOD, "aud": "globex"}),
    "no audience": forge(HS256, {k: v for k, v in GOOD.items() if k != "aud"}),
    "alg none": forge({"alg": "none", "typ": "JWT"}, GOOD, signature=""),
    "alg none, signed": forge({"alg": "none"}, GOOD),
    "alg HS512": forge({"alg": "HS512"}, GOOD),
    "tampered sub": (lambda t: t[0] + "." + b64(json.dumps({**GOOD, "sub": "c-200"}).encode()) + "." + t[2])(
        forge(HS256, GOOD).split(".")),
    "bad sub": forge(HS256, {**GOOD, "sub": "c-1\"} ,"}),
    "garbage": "not.a.token",
}


@pytest.mark.parametrize("name", sorted(BAD_TOKENS))
def test_bad_tokens_are_refused(name):
    with pytest.raises(customer_tokens.InvalidCustomerToken):
        customer_tokens.verify(BAD_TOKENS[name], SECRET, audience="acme")
    with pytest.raises(CustomerTokenRefused):
        with_customer_token(Principal("acme", frozenset({"chat"})), {"X-Focal-Customer-Token": BAD_TOKENS[name]},
                            lambda tenant: SECRET)


def test_a_valid_token_names_the_customer_and_no_secret_means_refused():
    token = customer_tokens.issue("c-100", "acme", SECRET, ttl_s=300)
    assert forge(HS256, GOOD).count(".") == 2 and customer_tokens.verify(forge(HS256, GOOD), SECRET, "acme")["sub"] == "c-100"
    principal = with_customer_token(Principal("acme", frozenset({"chat"})), {"x-focal-customer-token": token}, lambda t: SECRET)
    assert principal.customer_id == "c-100" and chat_customer(principal, "c-200") == "c-100"  # the body cannot override
    with pytest.raises(CustomerTokenRefused):  # a tenant without a secret accepts no token
        with_customer_token(Principal("acme"), {"X-Focal-Customer-Token": token}, lambda t: None)
    assert with_customer_token(Principal("acme"), {}, lambda t: SECRET).customer_id == "anonymous"


def _malleated(token: str) -> str:
    """The same token with its signature's last character swapped for one that decodes to the same bytes
    (a 32-byte HMAC is 43 base64url characters: the last one carries 2 unused bits)."""
    head, body, sig = token.split(".")
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    twin = alphabet[alphabet.index(sig[-1]) ^ 1]
    return f"{head}.{body}.{sig[:-1]}{twin}"


HELD_BAD_TOKENS = {
    "crit header": forge({**HS256, "crit": ["exp"]}, GOOD),
    "crit b64 without detached payload": forge({**HS256, "crit": ["b64"]}, GOOD),
    "typ not JWT": forge({"alg": "HS256", "typ": "JWE"}, GOOD),
    "iat in the future": forge(HS256, {**GOOD, "iat": NOW + 3600}),
    "nbf in the future": forge(HS256, {**GOOD, "nbf": NOW + 3600}),
    "exp as text": forge(HS256, {**GOOD, "exp": str(NOW + 600)}),
    "exp infinite": forge(HS256, {**GOOD, "exp": float("inf")}),
    "exp NaN": forge(HS256, {**GOOD, "exp": float("nan")}),
    "aud list of another tenant": forge(HS256, {**GOOD, "aud": ["globex", "initech"]}),
    "sub not text": forge(HS256, {**GOOD, "sub": 100}),
    "no sub": forge(HS256, {k: v for k, v in GOOD.items() if k != "sub"}),
    "signature re-encoded": _malleated(forge(HS256, GOOD)),
    "padded segments": ".".join(part + "=" * (-len(part) % 4) for part in forge(HS256, GOOD).split(".")),
    "two dots only": "..",
    "four parts": forge(HS256, GOOD) + ".x",
}


@pytest.mark.parametrize("name", sorted(HELD_BAD_TOKENS))
def test_every_rule_of_the_token_format_refuses(name):
    """Only HS256, `typ` JWT when present, no `crit`, times as numbers judged by the module's clock, the tenant as
    audience, a customer id as subject, and one canonical encoding of each token (no re-encoded twin)."""
    with pytest.raises(customer_tokens.InvalidCustomerToken):
        customer_tokens.verify(HELD_BAD_TOKENS[name], SECRET, audience="acme")


def test_the_times_are_judged_by_the_modules_clock(monkeypatch):
    then = NOW - 86_400  # a day ago: the token had a minute left; by the system clock it expired long since
    token = forge(HS256, {**GOOD, "iat": then, "exp": then + 60})
    monkeypatch.setattr(customer_tokens, "clock", lambda: then)
    assert customer_tokens.verify(token, SECRET, "acme")["sub"] == "c-100"
    monkeypatch.setattr(customer_tokens, "clock", lambda: then + 60 + customer_tokens.LEEWAY_S)
    with pytest.raises(customer_tokens.InvalidCustomerToken, match="expired"):
        customer_tokens.verify(token, SECRET, "acme")
    future = forge(HS256, {**GOOD, "iat": then, "nbf": then + 120, "exp": then + 600})
    monkeypatch.setattr(customer_tokens, "clock", lambda: then)
    with pytest.raises(customer_tokens.InvalidCustomerToken, match="nbf"):
        customer_tokens.verify(future, SECRET, "acme")
    assert customer_tokens.verify(future, SECRET, "acme", now=then + 120)["sub"] == "c-100"


def test_a_list_audience_holding_the_tenant_and_an_issued_token_verify():
    assert customer_tokens.verify(forge(HS256, {**GOOD, "aud": ["globex", "acme"]}), SECRET, "acme")["aud"] == ["globex", "acme"]
    token = customer_tokens.issue("c-100", "acme", SECRET, ttl_s=60)
    assert customer_tokens.verify(token, SECRET, "acme")["exp"] == NOW + 60
    with pytest.raises(customer_tokens.InvalidCustomerToken):  # no audience asked for: nothing verifies
        customer_tokens.verify(token, SECRET, "")
    with pytest.raises(customer_tokens.InvalidCustomerToken):  # a secret too short to be the tenant's
        customer_tokens.verify(forge(HS256, GOOD, secret="short"), "short", "acme")


# --- the API Gateway authorizer ------------------------------------------------------------------

@pytest.fixture
def aws(keys_table):
    boto3.client("secretsmanager", region_name="us-east-1").create_secret(
        Name="focal/acme/customer_token_secret", SecretString=SECRET)
    return keys_table


def authorize(key: str, token: str | None = None):
    from handlers import authorizer

    headers = {"x-api-key": key, **({"X-Focal-Customer-Token": token} if token else {})}
    return authorizer.handler({"type": "REQUEST", "methodArn": TURN_ARN, "httpMethod": "POST",
                               "resource": "/v1/agents/{agent_id}/sessions/{session_id}/turns", "headers": headers}, None)


def test_authorizer_passes_a_valid_tokens_customer(aws, caplog):
    key = aws.create("acme", ["chat"])[0]
    token = customer_tokens.issue("c-100", "acme", SECRET)
    context = authorize(key, token)["context"]
    assert context["customer_id"] == "c-100" and context["trusted_backend"] == "false"
    assert token not in caplog.text and SECRET not in caplog.text and "c-100" not in caplog.text


@pytest.mark.parametrize("name", ["forged", "expired", "wrong audience", "alg none", "tampered sub"])
def test_authorizer_refuses_a_bad_token(aws, name):
    key = aws.create("acme", ["chat"])[0]
    with pytest.raises(Exception, match="^Unauthorized$"):
        authorize(key, BAD_TOKENS[name])


def test_authorizer_refuses_another_tenants_token(aws):
    key = aws.create("acme", ["chat"])[0]
    with pytest.raises(Exception, match="^Unauthorized$"):
        authorize(key, customer_tokens.issue("c-100", "globex", SECRET))


# --- the turn mapping template -------------------------------------------------------------------

def mapped_customer(authorizer_context: dict[str, str], body: dict[str, str]) -> str:
    """The customer the mapping template puts in the execution input. API Gateway's VTL cannot run
    here: the template must hold exactly these lines, whose meaning is emulated below."""
    from focal_infra.api_mapping import CUSTOMER_LINES, request_template

    template = request_template("arn:aws:states:us-east-1:1:stateMachine:x")
    assert all(line in template for line in CUSTOMER_LINES)
    assert "$input.path('$.customer_id')" not in template.replace(CUSTOMER_LINES[1], "")  # read nowhere else
    assert "context.authorizer.trusted_backend\" == \"true\")" in CUSTOMER_LINES[1]
    customer = authorizer_context.get("customer_id", "")
    if authorizer_context.get("trusted_backend", "") == "true" and body.get("customer_id"):
        customer = body["customer_id"]
    return customer or "anonymous"


def test_the_body_customer_is_ignored_unless_the_key_is_a_trusted_backend(aws):
    chat_key = aws.create("acme", ["chat"])[0]
    backend_key = aws.create("acme", ["chat"], trusted_backend=True)[0]
    body = {"message": "hi", "customer_id": "c-100"}
    assert mapped_customer(authorize(chat_key)["context"], body) == "anonymous"
    assert mapped_customer(authorize(backend_key)["context"], body) == "c-100"
    token = customer_tokens.issue("c-200", "acme", SECRET)
    assert mapped_customer(authorize(chat_key, token)["context"], body) == "c-200"  # the token, not the body
    assert chat_customer(Principal("acme", frozenset({"chat"})), "c-100") == "anonymous"


# --- an anonymous session knows nothing of the customer it claimed to be -------------------------

def test_an_untrusted_claim_gets_no_profile_and_no_memory(aws, tmp_path):
    from focal.models.session import CustomerProfile
    from focal.models.turn import TurnRecord, TurnRequest
    from focal.pipeline.runner import LocalRunner
    from focal.wiring import local_deps

    folder = tmp_path / "retail"
    shutil.copytree(ROOT / "examples" / "retail", folder, ignore=shutil.ignore_patterns("tests.yaml", "__pycache__"))
    deps = local_deps(folder / "agent.yaml", tmp_path / "focal.db")
    runner = LocalRunner(deps)
    deps.profiles.save(CustomerProfile(tenant_id="acme", agent_id="retail", customer_id="c-100", fields={"is_premium": True}))

    def turn(session: str, customer: str, n: int) -> TurnRecord:
        runner.turn(TurnRequest(tenant_id="acme", agent_id="retail", session_id=session, customer_id=customer,
                                turn_id=f"t{n}", message="Where is my order A1001?"))
        return deps.turns.list_for_session("acme", "retail", session)[-1]

    turn("earlier", "c-100", 0)  # c-100's own conversation: an episode to remember
    trusted = turn("trusted", mapped_customer(authorize(aws.create("acme", ["chat"], trusted_backend=True)[0])["context"],
                                              {"customer_id": "c-100"}), 1)
    claimed = turn("claimed", mapped_customer(authorize(aws.create("acme", ["chat"])[0])["context"],
                                              {"customer_id": "c-100"}), 2)
    # the trusted backend's customer is c-100: profile and memory are there (so the check below can fail)
    assert trusted.customer_id == "c-100" and trusted.state["profile"]["fields"].get("is_premium") is True
    assert trusted.state["retrieve"]["episodes"] and "Wireless mouse" in trusted.state["response"]
    # the body's claim from a chat key: anonymous, no profile fields, no episodes, no order
    assert claimed.customer_id == "anonymous"
    assert not (claimed.state.get("profile") or {}).get("fields") and claimed.state["retrieve"]["episodes"] == []
    assert "Wireless mouse" not in claimed.state["response"]

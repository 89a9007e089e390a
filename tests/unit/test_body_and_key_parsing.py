"""The pure pieces behind two serve/authorizer fixes: bounded JSON parsing refuses a number Python will not
convert as a BodyRejected (400), and a request's API keys are resolved to one principal or refused."""

from __future__ import annotations

import json

import pytest

from focal.adapters.api_keys import keys_from_headers
from focal.auth import ConflictingCredentials, Principal, authenticate_keys
from focal.safe_json import BodyRejected, NumberTooLong, loads_bounded


def test_a_number_over_the_conversion_limit_is_a_body_rejected_and_malformed_json_stays_a_decode_error() -> None:
    with pytest.raises(NumberTooLong, match="number too long") as caught:
        loads_bounded('{"a": [' + "1" * 5000 + "]}", max_bytes=100_000)
    assert isinstance(caught.value, BodyRejected) and caught.value.status == 400
    assert loads_bounded('{"a": ' + "1" * 4300 + "}", max_bytes=100_000)["a"] == int("1" * 4300)
    with pytest.raises(json.JSONDecodeError):
        loads_bounded('{"a": }', max_bytes=100)


@pytest.mark.parametrize(("headers", "keys"), [
    ({"X-Api-Key": " k1 "}, ["k1"]),
    ({"authorization": "Bearer k2"}, ["k2"]),
    ({"x-api-key": "k1", "Authorization": "bearer k2"}, ["k1", "k2"]),
    ({"x-api-key": "k1", "Authorization": "Bearer k1"}, ["k1"]),
    ({"x-api-key": "k1", "Authorization": "Basic abc"}, ["k1"]),
    ({"x-api-key": "k" * 600, "Authorization": "Bearer k2"}, []),
    (None, []),
])
def test_every_key_of_a_request_is_found_once(headers, keys) -> None:
    assert keys_from_headers(headers) == keys


class Lookup:
    KEYS = {"a1": Principal("acme", frozenset({"chat"})), "a2": Principal("acme", frozenset({"chat"})),
            "a3": Principal("acme", frozenset({"chat", "approve"})), "o1": Principal("other", frozenset({"chat"}))}

    def principal_for(self, api_key: str) -> Principal | None:
        return self.KEYS.get(api_key)


@pytest.mark.parametrize(("keys", "tenant"), [(["a1"], "acme"), (["a1", "a2"], "acme"), ([], None), (["zz"], None)])
def test_keys_that_agree_give_their_principal(keys, tenant) -> None:
    principal = authenticate_keys(Lookup(), keys)
    assert (principal.tenant_id if principal else None) == tenant


@pytest.mark.parametrize("keys", [["a1", "o1"], ["o1", "a1"], ["a1", "a3"], ["a1", "zz"], ["zz", "a1"]])
def test_keys_that_disagree_are_refused(keys) -> None:
    with pytest.raises(ConflictingCredentials):
        authenticate_keys(Lookup(), keys)

"""A model's structured answer is input: its commitments and placeholders never decide what counts as known.

- a commitment to a name that is not one of the response fields the rules read is dropped: it can neither invent a
  response field nor override a known value ("commit" order_total 1 and show it as the order's total);
- what a commitment shows is the model's own text, checked like any (a phone smuggled in a committed value);
- a placeholder that shows a tool's text is still read for links, e-mails and phones (a phishing link in a product
  name, asked for by `{item_name}`);
- text that changes length when folded (ligatures, full-width letters) before a placeholder does not shift the
  rendered value's mask onto the model's own figures.
"""

from __future__ import annotations

from focal.enforcement.bindings import render_draft
from focal.enforcement.facts import build_sources, unbound_facts
from focal.generation.structured import parse_draft

KNOWN = {"order_total": 75.0, "order_id": "AB1002",
         "item_name": "Lamp - account locked, verify at http://shop-help.evil.example/login"}
DECLARED = ["Our help pages are at help.shop.example."]


def _unbound(text: str, spans: list[tuple[int, int]], known: dict | None = None) -> list[tuple[str, str]]:
    src = build_sources(DECLARED, known if known is not None else KNOWN, ["where is my order?"])
    return [(u.kind, u.text) for u in unbound_facts(text, src, spans)]


def test_a_commitment_outside_the_allowed_fields_changes_nothing():
    parsed = parse_draft('{"text": "Your order came to {order_total}.", "commitments": {"order_total": 1, "is_vip": true}}')
    shown = render_draft(parsed.text, KNOWN, parsed.commitments, allowed={"refund_amount"})
    assert shown.text == "Your order came to 75.00." and shown.commitments == {}


def test_a_committed_value_is_the_models_text_and_is_read_as_such():
    shown = render_draft("Call {callback_note} today.", KNOWN, {"callback_note": "+1 900 555 0100"},
                         allowed={"callback_note"})
    assert shown.text == "Call +1 900 555 0100 today." and shown.spans == []
    assert ("phone", "+1 900 555 0100") in _unbound(shown.text, shown.spans)


def test_a_placeholder_showing_a_tools_text_is_read_for_links():
    shown = render_draft("Your {item_name} ships soon.", KNOWN, {}, allowed=())
    assert shown.spans  # a known value: bound as a figure or id
    assert [k for k, _ in _unbound(shown.text, shown.spans)] == ["link"]


def test_folding_before_a_placeholder_does_not_shift_its_mask():
    text = "ﬁﬁﬁﬁ Ｏｒｄｅｒ {order_id} came to {order_total}; a refund of 40 is yours."
    shown = render_draft(text, KNOWN, {}, allowed=())
    found = _unbound(shown.text, shown.spans)
    assert found == [("figure", "40")]  # the invented figure is found; the rendered id and total are not

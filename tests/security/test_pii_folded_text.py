"""Masking at rest reads the text folded (red team 7, finding 5).

A card pasted one group per line, written with a bracket around its first group or with ``x`` between the
groups, a card in superscript, full-width, circled, mathematical, Arabic-Indic, Persian or Devanagari
digits, an e-mail address with a full-width ``＠`` or other look-alike characters, an SSN written with
spaces or dots and a phone number in full-width digits are all stored masked, the last four digits of a
card in ASCII. Around them the text is stored exactly as typed: Russian, Arabic, Hindi or Chinese words,
invisible characters (a zero-width joiner in an emoji, a bidirectional mark), references, amounts, dates
and lists of numbers one per line are never rewritten.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from focal.config.loader import load_agent
from focal.pii import mask_record, mask_text
from focal.pii_text import contact_key, contact_kind

AGENT = load_agent(Path(__file__).resolve().parent / "pii_agent" / "agent.yaml")  # `phone` is pii: true

CARDS = {  # 5105 1051 0510 5100 (Luhn-valid) as a customer may type it
    "one group per line": "5105\n1051\n0510\n5100",
    "CRLF line breaks": "5105\r\n1051\r\n0510\r\n5100",
    "a dash at each line end": "5105-\n1051-\n0510-\n5100",
    "wrapped after two groups": "5105 1051\n0510 5100",
    "a blank line between groups": "5105\n\n1051\n\n0510\n\n5100",
    "bracketed first group": "(5105) 1051-0510-5100",
    "bracketed last group": "5105 1051 0510 [5100]",
    "x between groups": "5105x1051x0510x5100",
    "spaced X": "5105 X 1051 X 0510 X 5100",
    "superscript": "\u2075\u00b9\u2070\u2075 \u00b9\u2070\u2075\u00b9 \u2070\u2075\u00b9\u2070 \u2075\u00b9\u2070\u2070",
    "full-width": "\uff15\uff11\uff10\uff15 \uff11\uff10\uff15\uff11 \uff10\uff15\uff11\uff10 \uff15\uff11\uff10\uff10",
    "Arabic-Indic": "\u0665\u0661\u0660\u0665 \u0661\u0660\u0665\u0661 \u0660\u0665\u0661\u0660 \u0665\u0661\u0660\u0660",
    "Persian": "\u06f5\u06f1\u06f0\u06f5-\u06f1\u06f0\u06f5\u06f1-\u06f0\u06f5\u06f1\u06f0-\u06f5\u06f1\u06f0\u06f0",
    "Devanagari": "\u096b\u0967\u0966\u096b \u0967\u0966\u096b\u0967 \u0966\u096b\u0967\u0966 \u096b\u0967\u0966\u0966",
    "mathematical bold": "".join(chr(0x1D7CE + int(c)) if c.isdigit() else c for c in "5105 1051 0510 5100"),
    "circled": "".join(chr(0x2460 + int(c) - 1) if c not in " 0" else ("\u24ea" if c == "0" else c)
                       for c in "5105 1051 0510 5100"),
    "mixed scripts": "\u0665\u0661\u0660\u0665 1051 \uff10\uff15\uff11\uff10 5100",
    "combining marks on digits": "5\u03011\u030205 1051 0510 510\u03030\u0301",
    "ideographic spaces": "5105\u30001051\u30000510\u30005100",
    "zero-width joiners": "5105\u200d1051\u200d0510\u200d5100",
}


@pytest.mark.parametrize("typed", list(CARDS.values()), ids=list(CARDS))
def test_a_card_in_any_digits_and_layout_is_stored_with_its_last_four_ascii_digits(typed: str) -> None:
    masked = mask_text(f"Карта: {typed}, спасибо")
    assert masked == "Карта: **** **** **** 5100, спасибо"
    assert mask_text(masked) == masked


@pytest.mark.parametrize(("typed", "mask"), [
    ("jane.roe\uff20example.com", "[email]"),  # full-width @
    ("jane.roe\ufe6bexample.com", "[email]"),  # small @
    ("\uff4a\uff41\uff4e\uff45\uff20\uff45\uff58\uff41\uff4d\uff50\uff4c\uff45\uff0e\uff43\uff4f\uff4d", "[email]"),
    ("jane.roe@example\u3002com", "[email]"),  # ideographic full stop
    ("jane.roe@example\uff0ecom", "[email]"),  # full-width full stop
    ("jose\u0301@example.com", "[email]"),  # a combining accent just before the @
    ("\u0928\u092e\u0938\u094d\u0924\u0947@example.com", "[email]"),  # Hindi, with a virama and a vowel sign
    ("jane\u200b.roe@exa\u00admple.com", "[email]"),  # invisible characters inside
    ("123 45 6789", "[ssn]"),
    ("123.45.6789", "[ssn]"),
    ("\uff11\uff12\uff13-\uff14\uff15-\uff16\uff17\uff18\uff19", "[ssn]"),
    ("\u0661\u0662\u0663 \u0664\u0665 \u0666\u0667\u0668\u0669", "[ssn]"),
    ("\uff14\uff11\uff15-\uff15\uff15\uff15-\uff10\uff11\uff19\uff19", "[phone]"),
    ("\uff08\uff14\uff11\uff15\uff09 \uff15\uff15\uff15-\uff10\uff11\uff19\uff19", "[phone]"),
    ("\uff0b\uff11 \uff14\uff11\uff15 \uff15\uff15\uff15 \uff10\uff11\uff19\uff19", "[phone]"),
    ("+\u0664\u0664 \u0662\u0660 \u0667\u0669\u0664\u0666 \u0660\u0669\u0665\u0668", "[phone]"),
])
def test_contacts_in_look_alike_characters_are_masked(typed: str, mask: str) -> None:
    masked = mask_text(f"مرحبا، {typed} شكرا")
    assert masked == f"مرحبا، {mask} شكرا"
    assert mask_text(masked) == masked


@pytest.mark.parametrize("text", [
    "Привет! Мой номер 12345, сумма 1 234,56 руб., дата 2024-01-15.",
    "مرحبا، رقم الحجز \u0661\u0662\u0663\u0664\u0665 "
    "بتاريخ \u0661\u0664\u0664\u0665/\u0660\u0669/\u0661\u0665 \u200fشكرا\u200f",
    "\u0928\u092e\u0938\u094d\u0924\u0947, \u092e\u0947\u0930\u093e \u0928\u0902\u092c\u0930 "
    "\u0967\u0968\u0969\u096a\u096b \u0939\u0948\u0964",
    "\u4f60\u597d\uff0c\u6211\u7684\u9884\u8ba2\u53f7\u662f\uff11\uff12\uff13\uff14\uff15\u3002\u8c22\u8c22\uff01",
    "family \U0001f468\u200d\U0001f469\u200d\U0001f467 and caf\u00e9 \u00bd price \u2460\u2461\u2462 \ufb01ne",
    "2021\n2022\n2023\n2025",  # years one per line, Luhn-invalid together
    "4111\n\n\n\n1111\n\n\n\n1111\n\n\n\n1111",  # four line breaks: not one number
    "4111\n1111, 1111\n1111",  # a comma and line breaks: two kinds
    "$41.11\n$11.11\n$11.11\n$11.11",  # amounts one per line
    "(1234) 5678, (9012) 3456",
    "screen 1920x1080, photo 4000x3000",
    "ref 9 123 45 6789 0", "123 45 67890", "v123.45.6789", "12 345 6789", "123 456 7890",
    "\uff14\uff11\uff15\uff15\uff15\uff15\uff10\uff11\uff19\uff19",  # a bare full-width run: a reference
    "jane\uff20localhost",
])
def test_ordinary_text_in_any_script_is_stored_exactly_as_typed(text: str) -> None:
    assert mask_text(text) == text


def test_only_the_card_is_replaced_in_a_sentence_in_another_script() -> None:
    arabic = ("\u200fرقم البطاقة \u0664\u0661\u0661\u0661 \u0661\u0661\u0661\u0661 "
              "\u0661\u0661\u0661\u0661 \u0661\u0661\u0661\u0661 من فضلك\u200f")
    assert mask_text(arabic) == "\u200fرقم البطاقة **** **** **** 1111 من فضلك\u200f"
    mixed = "\u2474 caf\u00e9\u0301 \U0001f44d\ufe0f 4111 1111 1111 1111\u0301 \u00bd done"
    assert mask_text(mixed) == "\u2474 caf\u00e9\u0301 \U0001f44d\ufe0f **** **** **** 1111 \u00bd done"


def test_a_contact_held_as_a_value_in_look_alike_characters_is_kept_as_the_same_contact() -> None:
    typed = "Jane.Roe\uff20Example.com"
    assert contact_kind(typed) == "email" and contact_key(typed) == contact_key("jane.roe@example.com")
    assert contact_key("\u0664\u0661\u0665-\u0665\u0665\u0665-\u0660\u0661\u0669\u0669") == "4155550199"
    doc = {"tenant_id": "t", "agent_id": "a", "session_id": "s", "slots": {"email": typed},
           "history": [{"role": "user", "text": "use jane.roe@example.com, not old\uff20example.com"}]}
    masked = mask_record(doc, AGENT)
    assert masked["slots"] == {"email": typed}
    assert masked["history"][0]["text"] == "use jane.roe@example.com, not [email]"


def test_a_pii_field_value_typed_in_other_digits_is_redacted_as_that_field() -> None:
    doc = {"slots": {"phone": "+1 (555) 867-5309"}, "history": [{"role": "user", "text": (
        "call \uff0b\uff11 \uff15\uff15\uff15 \uff18\uff16\uff17 \uff15\uff13\uff10\uff19 "
        "or \u0661\u0665\u0665\u0665\u0668\u0666\u0667\u0665\u0663\u0660\u0669, booking 5558675")}]}
    masked = mask_record(doc, AGENT)  # `phone` is pii: true
    assert masked["history"][0]["text"] == "call [redacted:phone] or [redacted:phone], booking 5558675"
    doc = {"slots": {"phone": "\u0665\u0665\u0665-\u0668\u0666\u0667-\u0665\u0663\u0660\u0669"},
           "history": [{"role": "user", "text": "it is 555 867 5309"}]}
    assert mask_record(doc, AGENT)["history"][0]["text"] == "it is [redacted:phone]"


def test_one_megabyte_of_mixed_scripts_and_hostile_runs_is_masked() -> None:
    """Correctness on a large text and on inputs built to make a reader backtrack; how fast is `focal bench
    overhead`'s business, never a timed assertion here."""
    sample = ("Привет 4111\n1111\n1111\n1111 и jane\uff20example.com, заказ 12345 на 2024-01-15. "
              "\u0664\u0661\u0661\u0661 \u0661\u0661\u0661\u0661 \u0661\u0661\u0661\u0661 \u0661\u0661\u0661\u0661 "
              "\u0928\u092e\u0938\u094d\u0924\u0947 (415) 555-0199 \u2474 \u00bd SSN 123 45 6789. ")
    text = sample * (1_000_000 // len(sample))
    masked = mask_text(text)
    assert "4111" not in masked and "\uff20" not in masked and "555-0199" not in masked and "6789" not in masked
    hostile = ["\u2474" * 100_000, "1\n" * 50_000, "1\u0301-" * 33_000, "\uff41\uff20" * 50_000, "(1) " * 25_000]
    for text in hostile:
        once = mask_text(text)
        assert mask_text(once) == once  # what was masked stays as it is: nothing is read twice

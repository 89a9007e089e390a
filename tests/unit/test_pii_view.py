"""The masking view the PII rules read (`focal.pii_view`) and the way back to the text as typed."""

from __future__ import annotations

import pytest

from focal.pii_view import View, masking_view
from focal.text import characters


@pytest.mark.parametrize(("typed", "folded"), [
    ("\uff14\u00b9\u0662\u06f3\u096a\U0001d7d3\u2464", "4123455"),  # full-width, superscript, Arabic-Indic, …
    ("a\uff20b\ufe6bc\u3002d\uff0ee", "a@b@c.d.e"),
    ("x\u200by\u00adz\u2060w\ufeff\u200f\u034f\ufe0fv", "xyzwv"),  # invisible characters dropped
    ("jose\u0301 \u0928\u092e\u0938\u094d\u0924\u0947", "jose \u0928\u092e\u0938\u0924"),  # marks dropped
    ("\u00a0\u2009\u202f\u3000", "    "),
    ("\u2474\u00bd\ufb01", "(1)1/2fi"),
    ("\u041f\u0440\u0438\u0432\u0435\u0442 \u0645\u0631\u062d\u0628\u0627",) * 2,
])
def test_the_view_reads_look_alike_characters_as_what_they_look_like(typed: str, folded: str) -> None:
    assert masking_view(typed) == folded
    assert masking_view(folded) == folded


def test_restore_puts_each_mask_over_the_whole_characters_it_came_from() -> None:
    typed = "\u2474 a\u200b\uff14\uff12\u0301 b\u00bd c"  # "(1) a42 b1⁄2 c" in the view
    view = View(typed)
    assert view.text == "(1) a42 b1/2 c"
    four = view.text.index("4")
    assert view.restore([(four, four + 2, "##")]) == "\u2474 a\u200b## b\u00bd c"  # the accent on ２ goes too
    one = view.text.index("1")
    assert view.restore([(one, one + 1, "#")]) == "# a\u200b\uff14\uff12\u0301 b\u00bd c"  # the whole ⑴
    half = view.text.index("/")
    assert view.restore([(half - 1, half, "<"), (half, half + 2, ">")]) == "\u2474 a\u200b\uff14\uff12\u0301 b< c"
    assert view.restore([]) is typed


def test_the_same_positions_need_no_map_and_ascii_is_not_copied() -> None:
    view = View("\uff14\uff11 \u0645")
    assert view.text == "41 \u0645" and view._starts is None
    assert view.restore([(0, 2, "##")]) == "## \u0645"
    ascii_text = "plain 4111"
    assert View(ascii_text).text is ascii_text


def test_the_table_of_folded_characters_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(characters, "TABLE_LIMIT", 10)
    text = "".join(chr(0x4E00 + i) for i in range(50)) + "\uff14\u200b"
    assert masking_view(text) == text[:50] + "4"
    masking_view("\u0645")
    assert len(characters._tables[0]) <= 60
    assert characters.seen_char("\u200b") == "" and characters.seen_char("\u00bd") == "1/2"


@pytest.mark.parametrize(("typed", "read"), [
    ("four one one one", "4111"),
    ("Four-One-One-One, one one", "4111, 11"),
    ("cuatro cinco, vier fünf, quatre cinq", "45, 45, 45"),
    ("fu\u0308nf null", "50"),  # a decomposed ü: the view drops the mark
    ("4111 one one", "4111 11"),
    ("I want one of those", "I want 1 of those"),
    ("jane.roe [at] example [dot] com", "jane.roe@example.com"),
    ("jane.roe (at) example.com", "jane.roe@example.com"),
    ("jane.roe @ example . com", "jane.roe@example.com"),
    ("jane dot roe at example dot co dot uk", "jane.roe@example.co.uk"),
    ("jane arroba example punto es", "jane@example.es"),
])
def test_the_view_reads_spelled_digits_and_addresses(typed: str, read: str) -> None:
    assert masking_view(typed) == read


@pytest.mark.parametrize("text", ["look at index.html", "meet at noon.Then", "mail a@b.com. Next", "at home (at last)",
                                  "a point of order", "the dot com era"])
def test_prose_is_not_read_as_an_address(text: str) -> None:
    assert "@" not in masking_view(text).replace("a@b", "") and ".Next" not in masking_view(text)


def test_a_reading_is_restored_over_every_character_it_came_from() -> None:
    view = View("card: four one one one, jane [at] x [dot] io!")
    assert view.text == "card: 4111, jane@x.io!"
    digits, address = view.text.index("4111"), view.text.index("jane")
    masks = [(digits, digits + 4, "####"), (address, address + len("jane@x.io"), "[email]")]
    assert view.restore(masks) == "card: ####, [email]!"

"""An id in a shape near the field's pattern but not it is a wrong value (said so), never the id and never "not
understood"; numbers and words alone are no near miss of any pattern."""

from __future__ import annotations

import pytest

from focal.sensing.malformed_id import near_miss


@pytest.mark.parametrize(("pattern", "text", "token"), [
    (r"\bTX-\d{4}\b", "Die Transaktion ist TX-482913", "TX-482913"),
    (r"\b[Ll][Cc]\d{6}\b", "my card is lc2045", "lc2045"),
    (r"\b[A-Z]\d{4}\b", "order A10045 please", "A10045"),
])
def test_a_near_miss_is_found(pattern, text, token):
    assert near_miss(pattern, text) == token


@pytest.mark.parametrize(("pattern", "text"), [
    (r"\bTX-\d{4}\b", "it is TX-1001"),            # the id itself
    (r"\b\d{4}\b", "it was 123456"),               # digits alone: any number would be a wrong id
    (r"(?-i:\b(?!HAT\d{3}\b)[A-Z0-9]{6}\b)", "I don't have it"),  # any word: no letters-and-digits token
    (r"\bTX-\d{4}\b", "I don't know the number"),
    (r"\binsurance\b", "insurance123"),            # no count to free
])
def test_no_near_miss(pattern, text):
    assert near_miss(pattern, text) is None

"""Masking at rest for a European deployment: an IBAN a customer types (Spain, Germany, France, whole or in
groups of four, lower case too) is never stored in clear; a look-alike whose ISO 7064 check digits fail (a
reference, a typo) stays as written; phone numbers with their country keep being masked in es/de/fr text."""

from __future__ import annotations

import pytest

from focal.pii import mask_record, mask_text


@pytest.mark.parametrize("text", [
    "Mi IBAN es ES91 2100 0418 4502 0005 1332, gracias.",
    "Bitte auf DE89 3704 0044 0532 0130 00 überweisen.",
    "Mon IBAN : FR14 2004 1010 0505 0001 3M02 606",
    "iban de89370400440532013000 bitte",
    "GB29NWBK60161331926819",
])
def test_an_iban_is_masked_at_rest(text):
    masked = mask_text(text)
    assert "[iban]" in masked
    assert not any(run in masked for run in ("0418", "3704", "2004", "370400", "6016"))


@pytest.mark.parametrize("text", [
    "Referencia ES91 2100 0418 4502 0005 1333",  # one digit off: the check digits fail
    "Order AB12 CDEF GHIJ KLMN is on its way",
])
def test_a_look_alike_without_valid_check_digits_stays(text):
    assert mask_text(text) == text


@pytest.mark.parametrize("text", ["Mi móvil es +34 612 34 56 78", "Meine Nummer: +49 30 901820", "Appelez le +33 6 12 34 56 78",
                                  "0033 6 12 34 56 78"])
def test_phone_numbers_with_their_country_are_masked_in_european_text(text):
    assert "[phone]" in mask_text(text)


def test_an_iban_in_a_stored_message_is_masked():
    record = {"message": "Cobren en ES91 2100 0418 4502 0005 1332", "turn_id": "t-1"}
    stored = mask_record(record, None)
    assert "2100 0418" not in str(stored) and "[iban]" in stored["message"]

"""Masking a stored document walks it once and masks each distinct string once (`focal.pii.mask_record`)."""

from __future__ import annotations

from typing import Any

import pytest

import focal.pii as pii


def _document(message: str, copies: int) -> dict[str, Any]:
    return {"tenant_id": "acme", "agent_id": "billing", "session_id": "s1",
            "state": {"request": {"message": message}, "context": {"message": message, "extracted_entities": {}},
                      "history": [{"role": "user", "text": message} for _ in range(copies)],
                      "slots": {"note": message}, "drafts": [{"text": "ok"} for _ in range(copies)]}}


def test_each_dict_is_read_once_and_each_distinct_string_masked_once(monkeypatch: pytest.MonkeyPatch) -> None:
    dicts, texts = [], []
    read_dict, mask_text = pii._Masker._read_dict, pii.mask_text

    def counting_read(self: Any, obj: dict[str, Any], *args: Any) -> Any:
        dicts.append(id(obj))
        return read_dict(self, obj, *args)

    def counting_mask(text: str, *args: Any, **kwargs: Any) -> str:
        texts.append(text)
        return mask_text(text, *args, **kwargs)

    monkeypatch.setattr(pii._Masker, "_read_dict", counting_read)
    monkeypatch.setattr(pii, "mask_text", counting_mask)
    message = "card 4242 4242 4242 4242, mail jane.roe [at] example [dot] com"
    masked = pii.mask_record(_document(message, 40), None)

    expected = "card **** **** **** 4242, mail [email]"
    assert masked["state"]["request"]["message"] == expected
    assert {h["text"] for h in masked["state"]["history"]} == {expected}
    assert masked["state"]["slots"]["note"] == expected
    # the document, state, request, context, its entities, 40 history entries, the slots, 40 drafts: each once
    assert len(dicts) == len(set(dicts)) == 5 + 40 + 1 + 40
    assert sorted(texts) == [message, message]  # the message once in text, once as a named value; "ok" never

"""The upset customers' training rows (tests/data/injection_training/upset_classes.yaml): both sides in four
languages, recorded by the build that reads them, and none of them a sentence of a development, test or blind set
(tests/data/prevalidation_upset_dev among them: written apart, other sentences)."""

from __future__ import annotations

import yaml

from focal.bench import injection_training_multilingual as build
from focal.bench.injection_corpora import DATA, Row
from focal.bench.injection_synthesised import UPSET, UPSET_SOURCE, rows_by_language, upset_rows


def _key(text: str) -> str:
    return " ".join(text.casefold().split())


def test_both_sides_are_written_in_each_of_the_four_languages_ordinary_first():
    by_language = rows_by_language(UPSET, UPSET_SOURCE)
    assert sorted(by_language) == ["de", "en", "es", "fr"]
    for rows in by_language.values():
        attacks = sum(r.attack for r in rows)
        assert attacks >= 30 and len(rows) - attacks > 2 * attacks  # mostly ordinary: the false alarms' class
        assert {r.split for r in rows} == {"train", "val"} and {r.source for r in rows} == {UPSET_SOURCE}
    assert upset_rows() and all("{" not in r.text for r in upset_rows())  # every slot filled


def test_a_build_with_them_records_their_digest():
    corpus = Row("hello there", False, "banking77", "train")
    assert "upset_digest" in build.recorded([corpus], build._arguments(["--upset"]))
    assert "upset_digest" not in build.recorded([corpus], build._arguments([]))


def test_no_row_is_a_message_of_a_development_test_or_blind_set():
    elsewhere = set()
    for folder in sorted(DATA.glob("prevalidation_*")):
        for path in folder.glob("messages*.yaml"):
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
            elsewhere |= {_key(m) for messages in data.values() if isinstance(messages, list)
                          for m in messages if isinstance(m, str)}
    for name in ("prevalidation_messages.yaml", "prevalidation_attack_classes.yaml"):
        data = yaml.safe_load((DATA / name).read_text(encoding="utf-8"))
        elsewhere |= {_key(m) for messages in data.values() if isinstance(messages, list)
                      for m in messages if isinstance(m, str)}
    assert len(elsewhere) > 1000
    assert not [r.text for r in upset_rows() if _key(r.text) in elsewhere]


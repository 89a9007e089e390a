"""Training rows synthesised per class of attack, and per class of alarming-looking ordinary message, in four
languages (tests/data/injection_training/synthesised_classes.yaml, written by Focal from its own templates).

Each frame's `{slot}`s are filled with every value of that slot in the frame's language (the cartesian product),
so one class is taught as a shape with many fillings, not as one sentence. Rows are split 80 % train / 20 % val by
text hash (source "focal synthesised"); the validation ones are measured, never used to choose a threshold.
tests/data/injection_training/emotional_classes.yaml, in the same format, holds one class the permissive corpora do
not teach: a story of grief, illness or hardship around a request for internal material or to skip a check, and the
same stories around ordinary requests (source "focal emotional", a (source, label) group of its own).
tests/data/injection_training/upset_classes.yaml, too: ordinary messages of upset, grieving or hurried customers and
everyday uses of attack-ish words, and the same moods and authority claims around a request to break a rule (source
"focal upset").
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import yaml

from focal.bench.injection_corpora import DATA, Row, _share

SOURCE = "focal synthesised"
TEMPLATES = DATA / "injection_training" / "synthesised_classes.yaml"
EMOTIONAL_SOURCE = "focal emotional"
EMOTIONAL = DATA / "injection_training" / "emotional_classes.yaml"
UPSET_SOURCE = "focal upset"
UPSET = DATA / "injection_training" / "upset_classes.yaml"
_SLOT = re.compile(r"\{(\w+)\}")


def expand(frame: str, slots: dict[str, list[str]]) -> list[str]:
    """Every filling of `frame`'s slots by the values of `slots`, slots within values too (a slot no language
    defines is an error)."""
    names = sorted(set(_SLOT.findall(frame)))
    missing = [n for n in names if not slots.get(n)]
    if missing:
        raise ValueError(f"frame {frame!r}: slot(s) {', '.join(missing)} have no values")
    filled = [_filled(frame, dict(zip(names, values, strict=True)))
              for values in itertools.product(*(slots[n] for n in names))]
    # a slot's value may hold slots of its own (a question naming {deceased}): filled in turn
    return [text for one in filled for text in (expand(one, slots) if _SLOT.search(one) else [one])]


def _filled(frame: str, chosen: dict[str, str]) -> str:
    return _SLOT.sub(lambda m: chosen[m.group(1)], frame)


def rows_by_language(path: Path = TEMPLATES, source: str = SOURCE) -> dict[str, list[Row]]:
    """The attack and ordinary rows of every class in `path`, per language, in a stable order."""
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    out: dict[str, list[Row]] = {}
    for lang in sorted(data):
        slots = data[lang].get("slots") or {}
        rows = out.setdefault(lang, [])
        for label, attack in (("attack", True), ("ordinary", False)):
            for kind in sorted(data[lang].get(label) or {}):
                for frame in data[lang][label][kind]:
                    for text in expand(frame, slots):
                        split = "val" if _share(text, "synth") < 0.2 else "train"
                        rows.append(Row(text, attack, source, split))
    return out


def synthesised_rows(path: Path = TEMPLATES) -> list[Row]:
    """The rows of every language in `path`, languages in order."""
    return [r for rows in rows_by_language(path).values() for r in rows]


def emotional_rows(path: Path = EMOTIONAL) -> list[Row]:
    """The emotional class's attack and ordinary rows of every language (source EMOTIONAL_SOURCE)."""
    return [r for rows in rows_by_language(path, EMOTIONAL_SOURCE).values() for r in rows]


def upset_rows(path: Path = UPSET) -> list[Row]:
    """The upset customers' rows of every language, both sides (source UPSET_SOURCE)."""
    return [r for rows in rows_by_language(path, UPSET_SOURCE).values() for r in rows]

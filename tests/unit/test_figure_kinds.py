"""A figure's kind read from its own marks, in any language (focal.enforcement.figure_kinds): money beside a currency
sign, a share beside a percent sign, a clock time; none when its marks say nothing (then it competes with every fact)."""

from __future__ import annotations

import pytest

from focal.enforcement.figure_kinds import CLOCK, MONEY, SHARE, compatible, figure_kind


def _kind(text: str, figure: str) -> str | None:
    start = text.index(figure)
    return figure_kind(text, start, start + len(figure))


@pytest.mark.parametrize(("text", "figure", "kind"), [
    ("Each bag costs $50 here.", "50", MONEY),
    ("Die Kaution beträgt 300 € pro Fahrzeug.", "300", MONEY),
    ("Le casier coûte 10 ₺ par mois.", "10", MONEY),
    ("Students get 20 % off.", "20", SHARE),
    ("Descuento del 15% para mayores.", "15", SHARE),
    ("We open at 19:00 on Fridays.", "19:00", CLOCK),
    ("Ouvert à 10h30 le samedi.", "10h30", CLOCK),
    ("We close at 8 pm on weekdays.", "8", CLOCK),
    ("The term is 12 months.", "12", None),
    ("Die Kündigungsfrist beträgt 30 Tage.", "30", None),
    ("The plan is 14.50/month.", "14.50/month.", None),
])
def test_a_figure_has_the_kind_its_own_marks_write(text, figure, kind):
    assert _kind(text, figure) == kind


def test_a_neighbouring_figure_lends_no_kind():
    # "$25" beside "12" is another figure: its sign is not the 12's
    assert _kind("For $25 12 months are covered.", "12") is None


def test_only_two_known_different_kinds_are_incompatible():
    assert not compatible(MONEY, CLOCK) and not compatible(SHARE, MONEY)
    assert compatible(MONEY, MONEY) and compatible(None, CLOCK) and compatible(SHARE, None)

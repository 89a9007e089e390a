"""Written figures read in the styles of the languages an agent declares (focal.text.numbers, CLDR's symbols)."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from focal.text.number_styles_cldr import TABLE, derive
from focal.text.numbers import figure_readings, number_styles


@pytest.mark.parametrize("language", ["de", "es", "fr"])
def test_a_decimal_comma_with_dot_groups_is_read_in_german_spanish_and_french(language: str) -> None:
    assert figure_readings("1.234,56", [language]) == {Decimal("1234.56")}
    assert figure_readings("1,234.56", [language]) == set()  # a style the language does not write: unknown


def test_a_decimal_point_with_comma_groups_is_read_in_english() -> None:
    assert figure_readings("1,234.56", ["en"]) == {Decimal("1234.56")}
    assert figure_readings("1.234,56", ["en"]) == set()
    assert figure_readings("1,234.56", ["en-GB"]) == {Decimal("1234.56")}  # a regional code reads as its language


@pytest.mark.parametrize(("figure", "languages", "values"), [
    ("1 234,56", ["fr"], {"1234.56"}),
    ("1\u202f234,56", ["fr"], {"1234.56"}),  # CLDR's narrow no-break space
    ("1\u00a0234,56", ["es"], {"1234.56"}),
    ("1'234,50", ["fr"], {"1234.50"}),  # Swiss French
    ("1,00,000.50", ["hi"], {"100000.50"}),  # Indian grouping
    ("\uff11\uff12\uff13\uff14,\uff15", ["de"], {"1234.5"}),  # full-width digits
    ("\u0661\u0662\u0663\u0664\u066b\u0665", ["ar"], {"1234.5"}),  # Arabic-Indic digits, the Arabic decimal sign
    ("1.234", ["en", "de"], {"1.234", "1234"}),  # two declared styles read it two ways: both
    ("1.234", ["en"], {"1.234"}),
    ("1.234", ["de"], {"1234"}),
])
def test_figures_are_read_in_each_declared_style(figure: str, languages: list[str], values: set[str]) -> None:
    assert figure_readings(figure, languages) == {Decimal(v) for v in values}


@pytest.mark.parametrize("figure", ["1,2,3", "1.2.3", "1.234.56", "1,234,5", "1.234,56,7", "1 2", "", "1,,234", "1,2.3"])
def test_a_figure_no_declared_style_writes_has_no_reading(figure: str) -> None:
    assert figure_readings(figure, ["en", "de"]) == set()


def test_without_a_known_language_every_style_is_tried() -> None:
    assert figure_readings("1.000") == {Decimal("1"), Decimal("1000")}
    assert number_styles(["xx"]) == number_styles()


def test_the_shipped_styles_are_cldrs() -> None:
    assert json.loads(TABLE.read_text(encoding="utf-8")) == derive()

"""Dates an answer names only vaguely, as a range: "by the end of April", "in about two months", "early next month",
"a finales de abril", "Ende April", "à la fin avril", "dans deux mois".

focal.sensing.dates reads a date that is one day ("March 3, 2026"); such a phrase is none, so a promised date read
from a draft used to stay absent and its field fell back to its default. Here each phrase is a range and its latest
day is what a "not later than" rule checks:

- a **month** named without its day (the language's month names, from dateparser's data as the other date readers
  use): that month, or the part of it a word just before names — its start (to the 10th), its middle (to the 20th),
  otherwise its end. Its year is the one written beside it, else the next occurrence from the turn's date (a
  promise lies ahead; the month of today included);
- a **period relative to today** in the library's own phrases ("next month", "el próximo mes", "nächsten Monat", "le
  mois prochain", "this week"): to the end of that calendar week, month or year;
- a **count of units from today** after one of the language's words for "in" / "within" ("in 3 weeks", "within 10
  days", "dentro de 2 meses", "dans 3 mois", "in 2 Monaten"): today plus the count (the larger one of "3-5"). A word
  between the preposition and the count ("in about two months", "en unos 2 meses") hedges it: one more unit; a
  count with no figure ("within the next few days", "dans quelques mois") is the most of the unit short of the next;
- a **duration** beside a verb of taking time ("it'll take about two months", "tardará unas seis semanas", "das
  dauert etwa zwei Monate", "comptez environ deux mois"): read as the count after "in" is. A window the customer is
  given ("you have 14 days to cancel") has no such verb and is no date.

Counts in words are read in English by focal.text.number_words and in Spanish, German and French by text2num ("dentro
de dos meses", "in zwei Monaten", "dans deux mois"); an article directly before the unit is the count one as the
library reads it ("in a week", "en una semana", "in einer Woche", "dans une semaine"), and two counts joined by a
range word are the larger ("two to three weeks", "zwei bis drei Wochen"). A latest day is None when it cannot be
formed: no turn date, a count in words the reader cannot read ("in vielen Wochen"), a month whose year is unclear.
Such a phrase still names a date — unknown, never absent (the caller fails closed). A phrase in a negated clause is
read all the same: a negation cannot tell "no later than the end of April" (a promise) from "I can't promise it by
the end of April", and the exact reader reads a refused day the same way; only after "before" / "until" ("nothing
before the end of April") is its latest day open (unknown).
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, timedelta
from functools import lru_cache

from focal.sensing import lexicon
from focal.sensing.date_words import DateWordsUnavailable
from focal.sensing.date_words import library_data as _info
from focal.text.number_words import WORD_RUN, foreign_number_value, number_value

_I = re.IGNORECASE
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")
_UNITS = ("day", "week", "month", "year")
# English month names that are ordinary words too: a month only written with its capital
_COMMON_WORDS = frozenset({"may", "march"})
# The parts of a month a word before its name narrows the range to (the latest day of that part), and the words for
# "within" the library's "in" words lack — closed classes of each language.
_START = {"en": "early|beginning|start", "es": "principios|inicios|comienzos|primeros\\s+días", "de": "anfang",
          "fr": "début|debut"}
_MIDDLE = {"en": "mid|middle", "es": "mediados", "de": "mitte", "fr": "mi|milieu"}
_WITHIN = {"en": "within|inside\\s+of|under", "es": "dentro\\s+de|en\\s+menos\\s+de", "de": "innerhalb(?:\\s+von)?|binnen",
           "fr": "d['’]ici|en\\s+moins\\s+de|sous"}
_FIGURE_COUNT = r"\d{1,3}(?:\s*(?:-|–|to|a|à|bis|al)\s*\d{1,3})?"
# The words that join the two ends of a range of counts ("two to three", "dos a tres", "zwei bis drei", "deux à
# trois"); CLDR writes its ranges with a dash only, so these are the languages' own closed class.
_RANGE_WORDS = r"to|through|a|al|hasta|bis|à"
# a count in words, or a range of two
_WORD_COUNT = rf"[^\W\d_]+(?:-[^\W\d_]+)?(?:\s+(?:{_RANGE_WORDS})\s+[^\W\d_]+(?:-[^\W\d_]+)?)?"
# Counts with no figure ("a few days", "unos pocos meses", "ein paar Wochen", "quelques mois"): at most the most of the
# unit short of the next one (six days, four weeks, eleven months, nine years) — the latest day they can mean.
_FEW = re.compile(r"^(?:(?:the\s+next\s+|a\s+)?(?:few|couple(?:\s+of)?|several)|unos|unas|pocos|pocas|algunos|algunas|"
                  r"varios|varias|paar|einige[n]?|wenigen?|quelques|plusieurs)$", _I)
_MOST = {"day": 6, "week": 4, "month": 11, "year": 9}
_SENTENCE = re.compile(r"(?<!\d\.)(?<=[.!?;])\s+|\n")  # "am 27. März" is one sentence


@dataclass(frozen=True)
class DateRange:
    phrase: str
    latest: date | None  # None: a date is named, but its latest day cannot be formed


@lru_cache(maxsize=8)
def _month_names(lang: str) -> tuple[tuple[str, int], ...]:
    """(name, month) of the language's month names: whole names, and forms of four letters or more ("sept";
    "abr", "mar" are words too)."""
    info = _info(lang)
    return tuple((name.lower(), n) for n, m in enumerate(_MONTHS, start=1) for name in info.get(m, [])
                 if len(name) >= 4 or name == max(info.get(m, []), key=len))  # "mai", "may": the whole name


@lru_cache(maxsize=8)
def _unit_words(lang: str) -> dict[str, str]:
    info = _info(lang)
    return {w.lower(): u for u in _UNITS for w in info.get(u, []) if len(w) >= 3}


@lru_cache(maxsize=8)
def _patterns(lang: str) -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """(month names, a count of units after "in"/"within", the library's relative periods) of `lang`."""
    months = "|".join(sorted((re.escape(n) for n, _ in _month_names(lang)), key=len, reverse=True))
    units = "|".join(sorted((re.escape(w) for w in _unit_words(lang)), key=len, reverse=True))
    into = "|".join([*(re.escape(w) for w in _info(lang).get("in", []) if w.isalpha()), _WITHIN.get(lang, "")])
    month = re.compile(rf"(?<!\w)(?P<name>{months})(?![\w-])(?:\s+(?:de\s+|del\s+)?(?P<year>(?:19|20)\d{{2}}))?", _I)
    count = re.compile(rf"(?<![\w-])(?:{into})\s+(?P<hedge>(?:[^\W\d_]+\s+){{0,2}}?)(?P<count>{_FIGURE_COUNT}|"
                       rf"{_WORD_COUNT})\s+(?P<unit>{units})(?![\w-])", _I)
    return month, count, _relative(lang)


# Verbs that measure how long something takes from now ("it'll take", "tardará", "das dauert", "comptez"): a count
# of units beside one is a duration promised from the turn's date, as "in …" is. Closed classes of each language, in
# their present and future forms (what has taken two months is no promise); a count the customer is given ("you have
# 14 days to cancel") or a window of another event ("within 30 days of purchase") has no such verb.
_TAKES = {"en": r"take|takes|taking|need|needs|expect|allow|wait",
          "es": r"tard(?:a|an|ar|ar[aá]|ar[aá]n|ar[ií]a)|llev(?:a|an|ar[aá]|ar[aá]n)|demor(?:a|an|ar|ar[aá]|ar[aá]n)|"
                r"cuente\s+con|calcule|espere",
          "de": r"dauert|dauern|braucht|brauchen|ben[oö]tigt|ben[oö]tigen|rechnen|erfordert|warten",
          "fr": r"prend|prennent|prendra|prendront|prendre|faut|faudra|faudrait|comptez|compter|pr[eé]voyez|pr[eé]voir|"
                r"dure|durera|n[eé]cessite|n[eé]cessitera|mettra|mettre|attendre|patienter"}


@lru_cache(maxsize=8)
def _taking(lang: str) -> tuple[re.Pattern[str], ...]:
    """A count of units after a verb of taking time ("takes about two months", "dauert etwa zwei Monate"), or right
    before one ("wird etwa zwei Monate dauern"): the hedge, count and unit groups of the "in" pattern."""
    if lang not in _TAKES:
        return ()
    units = "|".join(sorted((re.escape(w) for w in _unit_words(lang)), key=len, reverse=True))
    duration = rf"(?P<hedge>(?:[^\W\d_]+\s+){{0,3}}?)(?P<count>{_FIGURE_COUNT}|{_WORD_COUNT})\s+(?P<unit>{units})(?![\w-])"
    takes = _TAKES[lang]
    return (re.compile(rf"(?<![\w-])(?:{takes})\s+{duration}", _I),
            re.compile(rf"(?<![\w-]){duration}(?:\s+[^\W\d_]+)?\s+(?:{takes})(?![\w-])", _I))


@lru_cache(maxsize=8)
def _relative(lang: str) -> re.Pattern[str]:
    """The library's phrases of this or the next week, month or year ("next month", "le mois prochain")."""
    phrases = [p for key, said in _info(lang).get("relative-type", {}).items()
               if re.fullmatch(r"(?:in 1|0) (?:week|month|year) ?(?:ago)?", key) for p in said if len(p) > 4]
    joined = "|".join(r"\s+".join(map(re.escape, p.split())) for p in sorted(phrases, key=len, reverse=True))
    return re.compile(rf"(?<![\w-])(?:{joined})(?![\w-])", _I) if joined else re.compile(r"(?!)")


def _month_end(year: int, month: int, part: str) -> date:
    last = calendar.monthrange(year, month)[1]
    return date(year, month, 10 if part == "start" else 20 if part == "middle" else last)


def _part(before: str) -> str:
    """The part of the month the words just before its name narrow it to (in any language: "Anfang Mai" is one
    phrase, whichever language's month names read "Mai")."""
    tail = " ".join(before.split()[-3:])
    for part, words in (("start", _START), ("middle", _MIDDLE)):
        if re.search(rf"(?<![\w])(?:{'|'.join(words.values())})(?![\w])", tail, _I):
            return part
    return "end"


# A day's figure right beside a month's name: an exact date ("March 27", "27 de marzo", "le 27 mars", "27. März"),
# read by focal.sensing.dates, no range.
_DAY_BEFORE = re.compile(r"(?<!\d)\d{1,2}(?:st|nd|rd|th|er|º|ª|\.)?\s*(?:(?:de|of)\s+(?:the\s+)?)?$", _I)
_DAY_AFTER = re.compile(r"\.?\s*(?:the\s+)?\d{1,2}(?!\d)", _I)


def _add(today: date, n: int, unit: str) -> date:
    if unit == "day":
        return today + timedelta(days=n)
    if unit == "week":
        return today + timedelta(weeks=n)
    months = today.month - 1 + n * (12 if unit == "year" else 1)
    year, month = today.year + months // 12, months % 12 + 1
    return date(year, month, min(today.day, calendar.monthrange(year, month)[1]))


@lru_cache(maxsize=8)
def _articles(lang: str) -> frozenset[str]:
    """The words the library itself reads as the count one before a unit ("a", "una", "einer", "une"): its
    simplifications of a bare word to "1". Read only where the caller found a count, directly before a unit."""
    rules = _info(lang).get("simplifications", [])
    return frozenset(k.lower() for rule in rules for k, v in rule.items() if v == "1" and re.fullmatch(r"[^\W\d_]+", k))


_RANGE = re.compile(rf"^(?P<low>.+?)\s*(?:-|–|\s(?:{_RANGE_WORDS})\s)\s*(?P<high>[^\s-].*)$", _I)


def _count(words: str, lang: str) -> int | None:
    """"3", "3-5" (the larger), "two", "a", "dos", "zwei", "deux", "einer", "zwei bis drei" (the larger) → the count;
    None when the words are no count the reader knows. Figures come first: words are read only where no figure is
    written; a range counts only when both its ends are counts."""
    figures = re.findall(r"\d+", words)
    if figures:
        return max(int(f) for f in figures)
    words = " ".join(words.split())
    if words.lower() in ("a", "an", "one") or words.lower() in _articles(lang):
        return 1
    value = number_value(words) if WORD_RUN.fullmatch(words) else foreign_number_value(words, lang)
    if value is None and (m := _RANGE.match(words)):
        low, high = _count(m.group("low"), lang), _count(m.group("high"), lang)
        return None if low is None or high is None else max(low, high)
    return int(value) if value is not None and float(value).is_integer() else None


def _period_end(phrase: str, lang: str, today: date) -> date:
    unit = next((u for w, u in _unit_words(lang).items() if re.search(rf"(?<!\w){re.escape(w)}(?!\w)", phrase, _I)), "year")
    ahead = not re.search(r"(?<!\w)(?:this|este|esta|diese[nrs]?|ce|cette)(?!\w)", phrase, _I)
    if unit == "week":
        return today + timedelta(days=6 - today.weekday() + (7 if ahead else 0))
    if unit == "month":
        year, month = (today.year + today.month // 12, today.month % 12 + 1) if ahead else (today.year, today.month)
        return _month_end(year, month, "end")
    return date(today.year + (1 if ahead else 0), 12, 31)


class _Reader:
    def __init__(self, sentence: str, lang: str, today: date | None):
        self.sentence, self.lang, self.today = sentence, lang, today
        self.found: list[DateRange] = []
        self.spans: list[tuple[int, int]] = []

    def keep(self, m: re.Match[str], latest: date | None) -> None:
        if any(s < m.end() and m.start() < e for s, e in self.spans):
            return
        self.spans.append(m.span())
        if _refused(self.sentence, m.start(), m.end()) and _FROM.search(" ".join(self.sentence[:m.start()].split()[-4:])):
            # "nothing before the end of April", "no hay fechas hasta abril": a first day, no latest one
            latest = None
        # any other negation near it is read like the exact reader reads a day in a refusal: as the date named —
        # "no later than the end of April", "no doubt it arrives by the end of April" are promises, and a negation
        # cannot tell a refusal from them (a refused date past the limit is blocked: fail closed)
        self.found.append(DateRange(m.group(0).strip(), latest))

    def read(self) -> None:
        month, count, relative = _patterns(self.lang)
        for m in count.finditer(self.sentence):
            self.keep(m, self._counted(m))
        for taking in _taking(self.lang):
            for m in taking.finditer(self.sentence):
                self.keep(m, self._counted(m))
        for m in relative.finditer(self.sentence):
            self.keep(m, None if self.today is None else _period_end(m.group(0), self.lang, self.today))
        for m in month.finditer(self.sentence):
            if self._a_month(m):
                self.keep(m, self._month(m))

    def _counted(self, m: re.Match[str]) -> date | None:
        """The latest day of "in about two months", "within the next few days", "en 2 meses"."""
        hedge = m.group("hedge").strip()
        unit = _unit_words(self.lang)[m.group("unit").lower()]
        if self.today is None:
            return None
        if _FEW.match(f"{hedge} {m.group('count')}".strip()) or _FEW.match(m.group("count")):
            return _add(self.today, _MOST[unit], unit)
        whole = _count(f"{hedge} {m.group('count')}", self.lang) if hedge else None  # "in twenty five days": one count
        n = whole if whole is not None else _count(m.group("count"), self.lang)
        return None if n is None else _add(self.today, n + (1 if hedge and whole is None else 0), unit)

    def _a_month(self, m: re.Match[str]) -> bool:
        """A month's name alone: not an ordinary word ("we may"), not part of an exact date ("March 27")."""
        name = m.group("name")
        if self.lang == "en" and name.lower() in _COMMON_WORDS and not name[0].isupper():
            return False
        return not (_DAY_BEFORE.search(self.sentence[:m.start()]) or (not m.group("year") and _DAY_AFTER.match(self.sentence, m.end())))

    def _month(self, m: re.Match[str]) -> date | None:
        number = dict(_month_names(self.lang))[m.group("name").lower()]
        part = _part(self.sentence[:m.start()])
        if m.group("year"):
            return _month_end(int(m.group("year")), number, part)
        if self.today is None:
            return None
        year = self.today.year + (1 if number < self.today.month else 0)
        return _month_end(year, number, part)


# A negation in the clause of a phrase refuses it ("I can't promise it by the end of April", "no puedo
# garantizar…", "kann … nicht zusagen", "je ne peux pas promettre…"): closed classes of each language.
_NEGATION = re.compile(r"(?:(?<![\w'’])(?:not|cannot|never|unable|no|nothing|none|nunca|nada|ningun\w*|nicht|nichts|kein\w*|"
                       r"nie|ne|n['’]|pas|jamais|rien|aucun\w*)|n['’]t)(?![\w'’])", _I)
# "not before", "not until": the phrase is the earliest day, so the latest is open
_FROM = re.compile(r"(?<!\w)(?:before|until|till|earlier\s+than|antes|hasta|vor|bis|avant|jusqu['’]?\w*)(?!\w)", _I)
_CLAUSE = re.compile(r"[,;:]\s|\s(?:but|pero|aber|mais|sino|sondern)\s", _I)


def _refused(sentence: str, start: int, end: int) -> bool:
    """A negation in the clause of the sentence that holds the phrase at `start`:`end` (before it, or after it:
    "Ende April kann ich nicht zusagen")."""
    clause = _CLAUSE.split(sentence[:start])[-1] + " " + _CLAUSE.split(sentence[end:])[0]
    return _NEGATION.search(clause) is not None or lexicon.refused(sentence[:start])


def vague_dates(text: str, languages: tuple[str, ...], today: date | None) -> list[DateRange]:
    """Every vague or ranged date `text` names in any of `languages` (see the module), first to last per language."""
    found: list[DateRange] = []
    for lang in dict.fromkeys(("en", *languages)):
        try:
            _patterns(lang)
        except DateWordsUnavailable:
            continue  # a language the library has no data for: its dates are read by no one here
        for sentence in filter(None, _SENTENCE.split(text)):
            reader = _Reader(sentence, lang, today)
            reader.read()
            found += reader.found
    return found

"""Numbers written out in words: "seventy-five" → 75, "one hundred and twenty" → 120, "a thousand" → 1000."""

from __future__ import annotations

import re
from dataclasses import dataclass

UNITS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen".split())}
TENS = {w: 10 * i for i, w in enumerate("_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()) if i >= 2}


def words_value(words: str) -> int | None:
    total = current = 0
    for token in re.split(r"[\s-]+", words.lower().strip()):
        if token in ("and", ""):
            continue
        if token in ("a", "an"):
            current = current or 1
        elif token in UNITS:
            current += UNITS[token]
        elif token in TENS:
            current += TENS[token]
        elif token == "hundred":
            current = max(current, 1) * 100
        elif token == "thousand":
            total, current = total + max(current, 1) * 1000, 0
        else:
            return None
    return total + current


_ROMAN = {"M": 1000, "D": 500, "C": 100, "L": 50, "X": 10, "V": 5, "I": 1}
_ROMAN_FORM = re.compile(r"M{0,3}(?:CM|CD|D?C{0,3})(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})")


def roman_value(numeral: str) -> int | None:
    """"XXV" → 25, "LXXV" → 75; None for what is no well-formed Roman numeral ("IIII", "VX", "")."""
    if not numeral or _ROMAN_FORM.fullmatch(numeral) is None:
        return None
    values = [_ROMAN[c] for c in numeral]
    return sum(-v if i + 1 < len(values) and v < values[i + 1] else v for i, v in enumerate(values))


# A run of number words as it is written ("one thousand two hundred", "twenty-five", "a hundred and ten"):
# what `number_value` reads when the run is one well-formed number.
NUMBER_WORD = "|".join([*UNITS, *TENS, "hundred", "thousand"])
WORD_RUN = re.compile(rf"\b(?:an?\s+)?(?:{NUMBER_WORD})\b(?:(?:[\s-]+|\s+and\s+)(?:{NUMBER_WORD})\b)*", re.IGNORECASE)


def _small(tokens: list[str], i: int) -> tuple[int, int] | None:
    """1–99 at tokens[i]: "seventy five", "twelve"."""
    if i < len(tokens) and tokens[i] in TENS:
        value, i = TENS[tokens[i]], i + 1
        if i < len(tokens) and tokens[i] in UNITS and 1 <= UNITS[tokens[i]] <= 9:
            value, i = value + UNITS[tokens[i]], i + 1
        return value, i
    if i < len(tokens) and tokens[i] in UNITS:
        return UNITS[tokens[i]], i + 1
    return None


def _below_thousand(tokens: list[str], i: int) -> tuple[int, int] | None:
    """1–9999 at tokens[i]: "a hundred and ten", "twelve hundred", "twenty-five hundred", "forty"."""
    n = len(tokens)
    if i < n and tokens[i] in ("a", "an"):
        if i + 1 < n and tokens[i + 1] in ("hundred", "thousand"):
            head: tuple[int, int] | None = (1, i + 1)
        else:
            return None
    else:  # a bare "hundred" may be "a few hundred": no number
        head = _small(tokens, i)
    if head is None:
        return None
    value, i = head
    if i < n and tokens[i] == "hundred":
        if value < 1:
            return None
        value, i = value * 100, i + 1
        if i < n and tokens[i] == "and":
            tail = _small(tokens, i + 1)
            if tail is None:
                return None
            return value + tail[0], tail[1]
        tail = _small(tokens, i)
        if tail is not None:
            value, i = value + tail[0], tail[1]
    return value, i


def number_value(words: str) -> int | None:
    """The number a run of words writes when it is one well-formed number ("one thousand two hundred" → 1200,
    "twelve hundred" → 1200, "a hundred and ten" → 110); None for what is not ("twelve fifty" may be 12.50
    or 1250, "five six" is two numbers, a bare "hundred" may be "a few hundred"): unlike `words_value`, never a
    sum of what merely stands together."""
    tokens = [t for t in re.split(r"[\s-]+", words.lower().strip()) if t]
    first = _below_thousand(tokens, 0)
    if first is None:
        return None
    value, i = first
    if i < len(tokens) and tokens[i] == "thousand" and 0 < value < 1000:
        value, i = value * 1000, i + 1
        if i < len(tokens) and tokens[i] == "and":
            i += 1
            if i >= len(tokens):
                return None
        if i < len(tokens):
            rest = _below_thousand(tokens, i)
            if rest is None or rest[0] >= 1000:
                return None
            value, i = value + rest[0], rest[1]
    return value if i == len(tokens) else None


# Languages text2num reads whole numbers of; English stays with `number_value`, which is stricter ("twelve fifty").
_TEXT2NUM_LANGS = frozenset({"es", "de", "fr"})


def foreign_number_value(words: str, lang: str) -> int | None:
    """The number a run of words writes in Spanish, German or French when the whole run is one number ("dos" → 2,
    "fünfundzwanzig" → 25, "vingt et un" → 21), read by text2num; None for anything else ("unos", "einer", "environ
    deux": a word beside the number is no part of it). Callers ask only where a count stands (before a unit), so
    "une" as an article never becomes an amount. Imported here, not with the module: on AWS text2num travels in the
    llm layer (sensor, enforce), and the functions without it import this module too; where it is missing the count
    is unknown (the caller fails closed), never a guess."""
    if lang not in _TEXT2NUM_LANGS or not words.strip():
        return None
    try:
        from text_to_num import text2num
    except ImportError:
        return None
    try:
        value = text2num(words.strip().lower(), lang)
    except ValueError:
        return None
    return int(value) if isinstance(value, int) and value >= 0 else None


def spelled_as_digits(text: str, lang: str | None) -> str:
    """`text` with the numbers a Spanish, German or French customer spells out in digits ("trois semaines" →
    "3 semaines", "fünfzehn Euro" → "15 Euro"), by text2num, for the figure readers that read digits. A lone one
    stays a word ("un libro", "eine Woche", "une amende": an article as often as a count), as in English "a book".
    Other languages, and a machine without text2num (`foreign_number_value`), leave the text as it is: the figure
    is then not read, so unknown."""
    if lang not in _TEXT2NUM_LANGS or not any(c.isalpha() for c in text):
        return text
    try:
        from text_to_num import alpha2digit
    except ImportError:
        return text
    return str(alpha2digit(text, lang, threshold=1.5))


@dataclass(frozen=True)
class WordRun:
    """A run of number words in a text: where it stands, and the number it writes (None: no one well-formed number,
    "twelve fifty")."""
    start: int
    end: int
    value: int | None


_FOREIGN_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")
_JOINS = {"es": "y", "fr": "et", "de": "und"}  # "treinta y dos", "vingt et un" (German joins inside one word)


def _foreign_number_word(word: str, lang: str) -> bool:
    return foreign_number_value(word, lang) is not None


def foreign_word_runs(text: str, lang: str) -> list[WordRun]:
    """The runs of Spanish, German or French number words in `text` (words text2num reads, side by side, or joined
    by the language's "and" between two of them), each with its value; none without text2num."""
    words = list(_FOREIGN_WORD.finditer(text))
    runs: list[WordRun] = []
    i = 0
    while i < len(words):
        if not _foreign_number_word(words[i].group(), lang):
            i += 1
            continue
        j = i + 1
        while j < len(words) and text[words[j - 1].end():words[j].start()].isspace():
            if _foreign_number_word(words[j].group(), lang):
                j += 1
            elif (words[j].group().lower() == _JOINS.get(lang) and j + 1 < len(words)
                  and text[words[j].end():words[j + 1].start()].isspace()
                  and _foreign_number_word(words[j + 1].group(), lang)):
                j += 2
            else:
                break
        start, end = words[i].start(), words[j - 1].end()
        runs.append(WordRun(start, end, foreign_number_value(text[start:end], lang)))
        i = j
    return runs


def word_runs(text: str, lang: str = "en") -> list[WordRun]:
    """The runs of number words in `text` in `lang` (English by `number_value`, Spanish, German and French by
    text2num), each with the number it writes or None; other languages have none."""
    if lang in _TEXT2NUM_LANGS:
        return foreign_word_runs(text, lang)
    if lang != "en":
        return []
    return [WordRun(m.start(), m.end(), number_value(m.group(0))) for m in WORD_RUN.finditer(text)]

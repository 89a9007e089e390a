"""Numbers written out in words: "seventy-five" → 75, "one hundred and twenty" → 120, "a thousand" → 1000."""

from __future__ import annotations

import re

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


_COUNT_RUN = re.compile(rf"({WORD_RUN.pattern})\s+([^\W\d_]+)", re.IGNORECASE)


def _counted(word: str, units: list[str]) -> bool:
    """`word` is one of `units` (the words of what the field counts, "hours"), singular or plural."""
    word = word.lower()
    firsts = [unit.lower().split()[0] for unit in units if unit.strip()]
    return any(word in (u, f"{u}s") or u == f"{word}s" for u in firsts)


def spelled_counts(text: str, units: list[str], answering: bool = False) -> str:
    """`text` with the counts an English customer spells out in digits where they count one of `units` (the
    field's words for what it counts): "delayed five hours" → "delayed 5 hours" for hours, when the run is one
    well-formed number (`number_value`); "two adults and a dog" counts no hours, and with another number in words
    beside it ("two GB, no make that twenty") none is read. `answering` (the text answers a prompt for this count):
    the text that is only a number ("five", "one") is that number."""
    if answering and (whole := WORD_RUN.fullmatch(text.strip(" .!?"))) is not None \
            and (value := number_value(whole.group(0))) is not None:
        return str(value)

    def replace(m: re.Match[str]) -> str:
        value = number_value(m.group(1)) if _counted(m.group(2), units) else None
        return m.group(0) if value is None else f"{value} {m.group(2)}"
    read = _COUNT_RUN.sub(replace, text)
    # another number in words left beside the count ("two GB, no make that twenty"): which one counts is not clear,
    # so none is read (the count is asked again); "one" and "a" are articles as often as counts
    left = [v for m in WORD_RUN.finditer(read) if (v := number_value(m.group(0))) is None or v >= 2]
    return text if left else read


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

"""How many people a message counts, for an integer slot whose prompt asks how many people.

Read only when the whole message is a list of people, joined by "and", commas, "plus" or "with": a number
of people ("two adults", "3 kids", "a child", "one baby"), the customer ("me", "myself", "I"), one named
relative or friend ("my wife", "our son"), a number of them ("my two daughters"), or "the three of us",
"both of us", "a family of four", or a bare number ("two"). "Two adults and a child" is 3, "me and my wife"
is 2, "me, my husband and our 2 kids" is 4. A group whose size is not said ("me and my kids", "some
friends") or any other word leaves the count unknown: the slot is asked again, never guessed.
"""

from __future__ import annotations

import re

from focal.text.number_words import number_value

_PEOPLE = (r"adults?|child|children|kids?|bab(?:y|ies)|infants?|toddlers?|teens?|teenagers?|persons?|people|guests?|"
           r"seniors?|m[ae]n|wom[ae]n|boys?|girls?|friends?|travell?ers?|passengers?|grown-?ups?|individuals?")
_ONE = (r"wife|husband|partner|spouse|son|daughter|friend|boyfriend|girlfriend|fianc[eé]e?|mother|father|mom|mum|dad|"
        r"brother|sister|colleague|co-?worker|baby|child|kid|grandmother|grandfather|grandma|grandpa|aunt|uncle|cousin|"
        r"niece|nephew|roommate|mother-in-law|father-in-law|parent")
_TWO = {"parents": 2, "grandparents": 2, "twins": 2, "couple": 2}
_ADJ = r"(?:(?:little|small|young|grown|adult|older|teenage|elderly)\s+)?"
_NUM = r"(\d{1,2}|[a-z]+(?:[\s-][a-z]+)?)"
_PARTS = re.compile(r"\s*(?:,|;|&|\+|\band\b|\bplus\b|\bwith\b|\balong with\b)\s*", re.IGNORECASE)
_EDGES = re.compile(
    r"^(?:(?:just|only|it'?s|it will be|it'll be|there (?:will be|are|'ll be)|we(?:'re| are| will be|'ll be)|"
    r"for|that'?s|total(?:ly)?|um+|uh+|so|ok(?:ay)?|well)\s+)+|"
    r"(?:\s+(?:in total|total|altogether|overall|people|persons|guests|please|thanks|thank you|staying|"
    r"travell?ing|coming))+$",
    re.IGNORECASE,
)
_FORMS: list[tuple[re.Pattern[str], int | None]] = [  # None: the count is the form's number
    (re.compile(r"(?:me|myself|i|me myself)", re.IGNORECASE), 1),
    (re.compile(rf"(?:my|our|his|her|their)\s+{_ADJ}(?:{_ONE})", re.IGNORECASE), 1),
    (re.compile(r"(?:both of us|us (?:two|both)|the two of us|a couple|a couple of us)", re.IGNORECASE), 2),
    (re.compile(rf"(?:my|our|his|her|their)\s+({'|'.join(_TWO)})", re.IGNORECASE), 0),
    (re.compile(rf"(?:the|all)\s+{_NUM}\s+of\s+us|{_NUM}\s+of\s+us|(?:a\s+)?family\s+of\s+{_NUM}", re.IGNORECASE), None),
    (re.compile(rf"(?:(?:my|our|his|her|their)\s+)?{_NUM}\s+{_ADJ}(?:{_PEOPLE}|{_ONE}s?)", re.IGNORECASE), None),
    (re.compile(rf"{_NUM}", re.IGNORECASE), None),
]
_HOW_MANY = re.compile(rf"\bhow many\s+(?:{_PEOPLE}|of you|will|are|is|in your)\b", re.IGNORECASE)


def counts_people(word: str) -> bool:
    """The word names people ("adults", "wife", "parents"): what a count of it counts is no other quantity."""
    return re.fullmatch(rf"(?:{_PEOPLE}|{_ONE}|{'|'.join(_TWO)})", word, re.IGNORECASE) is not None


def asks_how_many(prompt: str | None) -> bool:
    """The prompt asks how many people ("How many guests will be staying?", "How many of you are coming?")."""
    return bool(prompt and _HOW_MANY.search(prompt))


def _number(words: str) -> int | None:
    words = words.strip().lower()
    if words.isdigit():
        return int(words)
    return 1 if words in ("a", "an", "one") else number_value(words)


def _count(part: str) -> int | None:
    for pattern, fixed in _FORMS:
        m = pattern.fullmatch(part)
        if m is None:
            continue
        if fixed == 0:
            return _TWO[m.group(1).lower()]
        if fixed is not None:
            return fixed
        said = next((g for g in m.groups() if g), None)
        if said is not None and (n := _number(said)) is not None:
            return n
    return None


def people(text: str) -> int | None:
    """The number of people the whole message counts, or None (see the module)."""
    said = re.sub(r"[.!]+\s*$", "", " ".join(text.replace("\u2019", "'").split()))
    said = _EDGES.sub("", said).strip()
    parts = [p for p in _PARTS.split(said) if p]
    if not parts:
        return None
    total = 0
    for part in parts:
        n = _count(part)
        if n is None or n <= 0:
            return None
        total += n
    return total

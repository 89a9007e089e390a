"""Which language a message is written in, cheaply and offline: the share of its words that are
common function words (stopwords) of each language. Only a clear reading counts: a short message,
a product name or a message mixing languages is taken as the agent's own language; ids, amounts, dates,
e-mail addresses and links are no words of any language.

Measured against langid 1.1.6 (restricted to these languages) with `focal bench language`: langid names more
foreign messages, but reads short English support messages as another language with high confidence ("I lost
my card": Spanish; a short request for a pizza: Italian), which would answer them with the language notice, and
flags English answers' clauses too; these lists flag none of the example suites' English messages.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from functools import lru_cache

STOPWORDS: dict[str, frozenset[str]] = {
    "en": frozenset("the a an and or but is are was were be been i you he she it we they my your our me "
                    "to of in on at for with from by this that what where when how why can could would "
                    "will do does did not no yes please have has had there here want need".split()),
    "es": frozenset("el la los las un una unos unas y o pero es son fue ser estar está están yo tú usted "
                    "él ella nosotros mi mis su sus me te se de del en por para con sin que qué dónde cuándo "
                    "cómo quiero necesito puedo puede por favor hola gracias no sí muy también cuál cuáles cuánto "
                    "cuánta este esta".split()),
    "fr": frozenset("le la les un une des et ou mais est sont était être je tu vous il elle nous ils mon ma "
                    "mes votre vos me te se de du dans sur pour avec sans que qui quoi où quand comment "
                    "veux voudrais peux pouvez merci bonjour oui non pas très aussi quel quelle quels quelles à au "
                    "aux ce cette ces est-ce".split()),
    "de": frozenset("der die das ein eine einen und oder aber ist sind war sein ich du sie er es wir ihr "
                    "mein meine ihr ihre mich mir dich zu von in im auf für mit ohne dass was wo wann wie "
                    "warum möchte will kann können bitte danke hallo ja nein nicht sehr auch welche welcher welches "
                    "wird werden dem den des zum zur".split()),
    "it": frozenset("il lo la i gli le un una e o ma è sono era essere io tu lei lui noi voi mio mia miei "
                    "suo sua di del della in su per con senza che cosa dove quando come perché voglio "
                    "vorrei posso può grazie ciao sì non molto anche".split()),
    "pt": frozenset("o a os as um uma e ou mas é são foi ser estar está eu tu você ele ela nós meu minha "
                    "seu sua de do da em no na por para com sem que onde quando como quero preciso posso "
                    "pode obrigado obrigada olá sim não muito também".split()),
    "nl": frozenset("de het een en of maar is zijn was ik jij je u hij zij wij mijn jouw uw mij van in op "
                    "voor met zonder dat wat waar wanneer hoe waarom wil kan kunnen alstublieft dank hallo "
                    "ja nee niet erg ook".split()),
}
NAMES = {"en": "English", "es": "Spanish", "fr": "French", "de": "German", "it": "Italian", "pt": "Portuguese", "nl": "Dutch"}
NOTE_PREFIX = "language not spoken by the agent: "  # + the code, in the context notes
MIN_WORDS = 3  # fewer words than this say nothing reliable about the language
MIN_SHARE = 0.25  # the winning language's stopwords must be at least this share of the words
MIN_LEAD = 0.15  # … and lead the agent's own languages by this much
_WORDS = re.compile(r"[^\W\d_]+", re.UNICODE)
_TOKENS = re.compile(r"\S+")
_HYPHEN_IN_WORD = re.compile(r"(?<=[^\W\d_])[-‐‑](?=[^\W\d_])")


def words(text: str) -> list[str]:
    """The words of a message, lower-cased: not the letters of a token that holds a digit, an `@`, a `/` or an inner
    dot (an id such as B2044, an amount, a date, an e-mail address, a link), which belong to no language. A single
    letter prefixed to a word by a hyphen is no word: the "e" of "E-Mail" (or "t-shirt") is no Italian "and", while
    "Pouvez-vous" keeps its "vous" and "a-t-il" its "a"."""
    out: list[str] = []
    for token in _TOKENS.findall(text):
        if any(c.isdigit() for c in token) or "@" in token or "/" in token or "." in token.strip(".!?…,;:()[]\"'«»"):
            continue
        parts = _WORDS.findall(token)
        if len(parts) == 2 and len(parts[0]) == 1 and _HYPHEN_IN_WORD.search(token):
            parts = parts[1:]
        out += (w.lower() for w in parts)
    return out


def share(words_: list[str], code: str, extra: frozenset[str] = frozenset()) -> float:
    """The share of `words_` that are `code`'s stopwords or in `extra` (an agent's own words of that language)."""
    stop = STOPWORDS.get(code, frozenset())
    return sum(w in stop or w in extra for w in words_) / len(words_) if words_ else 0.0


def detect(text: str) -> tuple[str | None, dict[str, float]]:
    """(language code or None when unclear, stopword share per language)."""
    words_ = words(text)
    if len(words_) < MIN_WORDS:
        return None, {}
    shares = {lang: share(words_, lang) for lang in STOPWORDS}
    best = max(shares, key=lambda k: shares[k])
    return (best if shares[best] >= MIN_SHARE else None), shares


def foreign(text: str, languages: list[str], own_words: frozenset[str] = frozenset()) -> str | None:
    """The language of `text` when it is clearly one the agent does not speak, else None. `own_words`: words of the
    agent's own texts ("Uhr" of "Um wie viel Uhr?"), counted for its languages beside their stopwords, as the turn's
    language is read (focal.sensing.turn_language): a German "nächsten Dienstag um 18 Uhr" is not Portuguese for its
    one "um"."""
    lang, shares = detect(text)
    if lang is None or lang in languages:
        return None
    words_ = words(text)
    own = max((share(words_, code, own_words) for code in languages), default=0.0)
    return lang if shares[lang] - own >= MIN_LEAD else None


def noted(notes: list[str]) -> str | None:
    """The language code a context's notes flagged as not spoken by the agent."""
    return next((n[len(NOTE_PREFIX):] for n in notes if n.startswith(NOTE_PREFIX)), None)


def notice(lang: str, languages: list[str]) -> str:
    spoken = " or ".join(NAMES.get(code, code) for code in languages) or "English"
    return (f"I'm sorry, I can only help in {spoken}. Could you write your message in {spoken}? "
            "If you prefer, I can connect you with a member of our team.")


# More frequent words of each language, beside its stopwords, for telling which language an *answer* is in
# (`written_in`); the customer's message is read with the stopwords alone. None of them is an English word.
_ANSWER_WORDS: dict[str, frozenset[str]] = {
    "es": frozenset("al le les lo hoy ya más este esta esto eso ese usted ustedes nos claro mismo misma todo todos "
                    "hay ha han hemos tiene tenemos será serán podemos ahora sí cuando aquí entonces porque pues".split()),
    "fr": frozenset("au aux ce cette ces votre vos nous notre leur leurs sont sera avons avez déjà bien tout tous "
                    "toute ici alors donc en ne pas rembourser".split()),
    "de": frozenset("ihnen ihr ihre sie wir uns unser unsere dem den des im zum zur sofort heute gerne schon noch "
                    "mehr alles hier auch dann denn wird werden haben ist sind bei nach über".split()),
    "it": frozenset("vi ci ti lo gli del della dei delle al alla ai alle nel nella oggi già più questo questa tutto "
                    "tutti qui anche allora subito sarà abbiamo ha hanno".split()),
    "pt": frozenset("do da dos das no na nos nas ao aos à às seu sua seus suas você vocês hoje já mais isso isto "
                    "este esta esse essa vamos claro temos tem será agora aqui também então porque".split()),
    "nl": frozenset("u uw ons onze het wordt worden heeft hebben vandaag meer dit deze alles hier ook omdat terug "
                    "krijgt krijgen geven graag meteen zullen zal".split()),
}
# Words of other languages' lists that are English words too: they count for English only.
_ENGLISH_TOO = frozenset("per come son con die also will war hat am plus car dan".split())
# Whole words (not the letters of a reference such as B1005), with an English contraction kept whole ("I'll").
_WHOLE_WORDS = re.compile(r"(?<![\w'’])[^\W\d_]+(?:['’](?:ll|ve|re|m|d|s|t)\b)?(?![\w'’])", re.I)
_CONTRACTION = re.compile(r"['’](?:ll|ve|re|m|d|s|t)$")


def written_in(text: str, lang: str = "en", least: int = 1) -> str | None:
    """The language an answer reads as when that is not `lang` ("other script" when most of its letters are
    not Latin: Cyrillic, Greek, Arabic, Chinese…); None when it reads as `lang` or too little to tell. Looser
    than `foreign`: an answer's words lean to one language or the other, with no lead required (`least`: the other
    language's words needed at the fewest)."""
    letters = [c for c in text if c.isalpha()]
    if len(letters) >= 3 and sum(not _latin(c) for c in letters) * 2 > len(letters):
        return "other script"
    words = [w.lower() for w in _WHOLE_WORDS.findall(text)]
    if len(words) < 2:
        return None
    mine, others = _word_index(lang)
    own = sum(w in mine or (lang == "en" and _CONTRACTION.search(w) is not None) for w in words)
    counts = dict.fromkeys((code for code in STOPWORDS if code != lang), 0)
    for w in words:
        for code in others.get(w, ()):
            counts[code] += 1
    best = max(counts, key=lambda k: counts[k])
    return best if counts[best] > own and counts[best] >= least else None


@lru_cache(maxsize=16)
def _word_index(lang: str) -> tuple[frozenset[str], dict[str, tuple[str, ...]]]:
    """`lang`'s own words, and for every other language's word that is not one of them, the languages it counts for
    (built once: an answer's words are then looked up once each, not once per language)."""
    mine = STOPWORDS.get(lang, frozenset()) | (_ENGLISH_TOO if lang == "en" else frozenset())
    index: dict[str, list[str]] = {}
    for code, stop in STOPWORDS.items():
        if code != lang:
            for w in stop | _ANSWER_WORDS.get(code, frozenset()):
                if w not in mine:
                    index.setdefault(w, []).append(code)
    return mine, {w: tuple(codes) for w, codes in index.items()}


def _latin(c: str) -> bool:
    return c.isascii() or unicodedata.name(c, "").startswith("LATIN")


# Where an answer may change language: between sentences, and between the parts of one (commas, colons, dashes,
# brackets, quotes) — "Sure, happy to help! Le reembolsamos $75 hoy mismo."
_SENTENCES = re.compile(r"(?<=[.!?。！？])\s+|\n+")
_PARTS = re.compile(r"[^.!?;:,()\[\]{}\"“”«»—–\n。！？；：，、]+")
_OTHER_SCRIPT_WORD = re.compile(r"[^\W\d_]{2,}")


def _other_script(text: str) -> bool:
    """A word of two letters or more in another script than Latin, not capitalised (a name such as "Дмитрий" is no
    sentence): "全额退款", "возврат"."""
    return any(not any(_latin(c) for c in w) and not w[0].isupper() for w in _OTHER_SCRIPT_WORD.findall(text))


def foreign_parts(text: str, lang: str = "en", read: Callable[..., str | None] | None = None) -> list[tuple[str, str]]:
    """(language, text) of each sentence of an answer, or part of a sentence, that reads as another language than
    `lang` (two of its words, or one beside a figure) or has words of another script: an answer in English with one
    sentence or clause in Spanish has one. `read`: another reader of a part than `written_in` (focal bench language)."""
    out = []
    for sentence in filter(None, (s.strip() for s in _SENTENCES.split(text.replace(" - ", " — ")))):
        for part in [sentence, *_PARTS.findall(sentence)]:
            # one word of another language is enough beside a figure ("remboursement de $75"), not in a greeting
            # ("…have a great day, à bientôt!")
            figure = any(c.isdigit() or c == "%" or unicodedata.category(c) == "Sc" for c in part)
            found = (read or written_in)(part, lang, 1 if figure else 2)
            found = found if found != "other script" or _other_script(part) else None  # "Hi Дмитрий" greets by name
            found = found or ("other script" if _other_script(part) else None)
            if found:
                out.append((NAMES.get(found, found), part.strip()))
                break
    return out


def reads_as(text: str, lang: str) -> str | None:
    """The language a drafted answer clearly reads as when that is not `lang` ("other script" when most of its
    letters are not Latin); None when it reads as `lang` or says too little to tell. Ids, amounts, dates, links and
    e-mail addresses are no words (`words`); a word both languages' lists hold counts for `lang`. Clear: at least
    MIN_WORDS words of another language's lists, and more than twice the words of `lang`'s own — so "OK, B2044.", a
    greeting by name or a product's English name inside a Spanish answer never flips it."""
    letters = [c for c in text if c.isalpha()]
    if len(letters) >= 3 and sum(not _latin(c) for c in letters) * 2 > len(letters):
        return "other script"
    mine = _all_words(lang)
    counts = dict.fromkeys((code for code in STOPWORDS if code != lang), 0)
    own = 0
    for w in words(text):
        if w in mine:
            own += 1
            continue
        for code in counts:
            counts[code] += w in _all_words(code)
    best = max(counts, key=lambda k: counts[k])
    return best if counts[best] >= MIN_WORDS and counts[best] > 2 * own else None


@lru_cache(maxsize=16)
def _all_words(lang: str) -> frozenset[str]:
    """A language's stopwords and frequent answer words (English's: with the other lists' English words)."""
    return STOPWORDS.get(lang, frozenset()) | _ANSWER_WORDS.get(lang, frozenset()) | (_ENGLISH_TOO if lang == "en" else frozenset())

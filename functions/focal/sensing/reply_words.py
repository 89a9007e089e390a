"""The words of short replies in Spanish, German and French, beside the English lexicon (focal.sensing.lexicon):
a yes, a no, a stop, a greeting, thanks, a goodbye, a hesitation, and the words that take a yes back. A request for a person is no
word list: in these languages it is read by its meaning (focal.sensing.person_request).

The words that open a question and those that put a request to the agent tell a question about an act ("¿cuánto
cuesta cancelar?") from an instruction ("¿puede cancelarla?"), beside the English grammar of focal.sensing.inquiry;
with the verbs that ask to know or to be told and the word that opens a yes/no question ("si", "ob"), they find an
indirect question, which asks without a question word in front or a question mark ("quiero saber si puedo cancelar",
"ich möchte wissen, ob…", "dites-moi si…": `indirect_question`). All are closed-class grammar, not found sentences.

At a confirmation, the words after a yes are read with three more tables (focal.sensing.confirmation_reply): the
words that put a condition on the yes ("si", "wenn", "quand"), those that refuse a value ("pas", "nicht", "sin"), and
the prepositions, articles and pronouns that carry a shown value without stating one of their own ("avec", "mit",
"con"). Closed-class grammar too.

Data, one table per language; the lexicon matches every language's words at once (a customer may answer "ja" in
an English conversation), as whole words or phrases, case-insensitively. A word shared by two languages ("no",
"ok") says nothing about which language a reply is in (`reply_language`).
"""

from __future__ import annotations

import re
from functools import lru_cache

Table = dict[str, tuple[str, ...]]

WORDS: dict[str, Table] = {
    "es": {
        "affirm": ("sí", "si", "claro", "vale", "de acuerdo", "adelante", "correcto", "perfecto", "por supuesto", "exacto",
                   "hazlo", "hágalo", "confirmo", "venga", "desde luego", "eso es", "está bien", "muy bien", "ok", "okay"),
        "deny": ("no", "nada", "todavía no", "aún no", "ahora no", "mejor no", "de ninguna manera"),
        "cancel": ("cancela", "cancelar", "cancélalo", "cancelarlo", "olvídalo", "olvídelo", "déjalo", "déjelo", "anula",
                   "anular", "detente", "no sigas"),
        "greeting": ("hola", "buenos días", "buenas tardes", "buenas noches", "buenas", "hola de nuevo"),
        "thanks": ("gracias", "muchas gracias", "mil gracias"),
        "farewell": ("adiós", "hasta luego", "hasta pronto", "hasta la próxima", "chao", "chau", "nos vemos",
                     "que tenga un buen día", "buen día", "eso es todo", "nada más"),
        "unsure": ("quizás", "quizá", "tal vez", "no sé", "no estoy seguro", "no estoy segura", "a lo mejor", "puede ser"),
        "reservation": ("pero", "solo", "sólo", "espera", "excepto", "salvo", "mejor", "en vez", "mitad", "luego",
                        "mañana", "primero", "nunca"),
        # the words that open a question, and those that put a request to the agent ("¿puede cancelarla?")
        "question": ("qué", "cuánto", "cuánta", "cuántos", "cuántas", "cómo", "cuándo", "dónde", "por qué", "cuál",
                     "cuáles", "quién"),
        "request": ("puede", "puedes", "pueden", "podría", "podrías", "podrían", "por favor"),
        # the verbs that ask to know or to be told, and the word that opens the yes/no question they embed
        "know": ("saber", "preguntar", "preguntarle", "consultar", "dime", "dígame", "díganme", "decirme", "explícame",
                 "explíqueme", "explicarme", "infórmeme", "me pregunto"),
        "whether": ("si",),
        # at a confirmation, in the words after the yes: what puts a condition or a doubt on it ("sí, si cuesta menos"),
        # what refuses a value ("sí, pero sin…"), and the words that carry a value shown without stating one
        # ("sí, adelante con 10 euros en VC123456"): focal.sensing.confirmation_reply
        "condition": ("si", "cuando", "en cuanto", "después", "hasta", "a menos que", "siempre que", "con tal de que",
                      "solo", "sólo", "espera", "más tarde", "mañana", "primero"),
        "marker": ("a", "al", "es", "sea", "con", "para", "usa", "use", "cámbialo a", "cámbiela a", "ponlo en"),
        "explicit": ("es", "sería", "usa", "use", "cámbialo a", "cámbiela a", "mejor"),
        "reference": ("mi", "mis", "nuestro", "nuestra", "el", "la", "los", "las", "ese", "esa", "este", "esta",
                      "mismo", "misma", "habitual"),
        "trailing": ("por favor", "gracias", "entonces", "también", "en su lugar"),
        "refuse": ("no", "sin", "excepto", "salvo", "en vez de", "en lugar de", "nunca", "ni"),
        "carrier": ("a", "al", "con", "en", "para", "por", "de", "del", "el", "la", "los", "las", "lo", "le", "un",
                    "una", "mi", "mis", "su", "sus", "ese", "esa", "este", "esta", "eso", "esto", "es", "misma", "mismo",
                    "partir"),  # "a partir de": from
        "plain": ("sí", "si", "claro", "vale", "de", "acuerdo", "adelante", "correcto", "perfecto", "por", "supuesto",
                  "favor", "exacto", "hazlo", "hágalo", "confirmo", "venga", "bueno", "gracias", "muy", "bien", "está",
                  "eso", "es", "desde", "luego", "genial", "ok", "okay", "que"),
    },
    "de": {
        "affirm": ("ja", "jawohl", "genau", "klar", "gerne", "gern", "einverstanden", "in ordnung", "richtig",
                   "natürlich", "sicher", "mach das", "machen sie das", "bestätige", "passt", "na klar", "ok", "okay"),
        "deny": ("nein", "nee", "nö", "lieber nicht", "noch nicht", "jetzt nicht", "auf keinen fall", "bitte nicht"),
        "cancel": ("abbrechen", "brich ab", "brechen sie ab", "vergiss es", "vergessen sie es", "stopp", "lass es",
                   "lassen sie es", "hör auf"),
        "greeting": ("hallo", "guten tag", "guten morgen", "guten abend", "servus", "moin", "hallo nochmal"),
        "thanks": ("danke", "vielen dank", "danke schön", "dankeschön"),
        "farewell": ("tschüss", "tschüs", "auf wiedersehen", "auf wiederhören", "ciao", "bis bald", "bis dann",
                     "schönen tag noch", "einen schönen tag", "schönen abend noch", "das war's", "das wars", "das ist alles"),
        "unsure": ("vielleicht", "weiß nicht", "weiss nicht", "keine ahnung", "nicht sicher", "mal sehen", "eventuell"),
        "reservation": ("aber", "wenn", "falls", "nur", "warte", "warten sie", "außer", "lieber", "stattdessen", "halb",
                        "später", "morgen", "zuerst", "nicht", "nie", "erst"),
        "question": ("was", "wie", "wann", "wo", "warum", "wieso", "welche", "welcher", "welches", "wer", "wieviel"),
        "request": ("können sie", "könnten sie", "kannst du", "könntest du", "bitte"),
        "know": ("wissen", "fragen", "erfahren", "sagen sie mir", "sag mir", "erklären sie mir", "erklär mir", "mitteilen",
                 "frage mich"),
        "whether": ("ob",),
        "condition": ("wenn", "falls", "sobald", "nachdem", "bis", "außer", "es sei denn", "vorausgesetzt", "nur",
                      "erst", "warte", "warten sie", "später", "morgen", "zuerst"),
        "marker": ("an", "ist", "mit", "für", "nimm", "nehmen sie", "ändere es auf", "ändern sie es auf"),
        "explicit": ("ist", "es ist", "nimm", "nehmen sie", "ändere es auf", "ändern sie es auf", "lieber"),
        "reference": ("mein", "meine", "meinem", "meinen", "unser", "unsere", "der", "die", "das", "den", "dem",
                      "dieselbe", "denselben", "dasselbe", "übliche", "üblichen"),
        "trailing": ("bitte", "danke", "dann", "auch", "stattdessen"),
        "refuse": ("nicht", "kein", "keine", "keinen", "keinem", "ohne", "außer", "statt", "anstatt", "nie", "weder"),
        "carrier": ("mit", "auf", "an", "für", "zu", "zum", "zur", "in", "im", "von", "vom", "bei", "über", "der", "die",
                    "das", "den", "dem", "des", "ein", "eine", "einen", "einem", "es", "mein", "meine", "meinem", "meinen",
                    "dieselbe", "denselben", "dasselbe", "ist"),
        "plain": ("ja", "jawohl", "genau", "klar", "gerne", "gern", "einverstanden", "in", "ordnung", "richtig",
                  "natürlich", "sicher", "mach", "machen", "sie", "das", "bitte", "danke", "bestätige", "passt", "gut",
                  "super", "prima", "los", "okay", "ok", "na", "sehr", "schön", "so"),
    },
    "fr": {
        "affirm": ("oui", "ouais", "d'accord", "bien sûr", "exactement", "parfait", "allez-y", "vas-y", "volontiers",
                   "entendu", "c'est ça", "je confirme", "absolument", "tout à fait", "ça marche", "très bien", "ok", "okay"),
        "deny": ("non", "pas maintenant", "pas encore", "surtout pas", "pas du tout", "non merci"),
        "cancel": ("annule", "annulez", "annuler", "laisse tomber", "laissez tomber", "oublie ça", "oubliez", "arrête",
                   "arrêtez"),
        "greeting": ("bonjour", "salut", "bonsoir", "bonjour à nouveau"),
        "thanks": ("merci", "merci beaucoup", "merci bien"),
        "farewell": ("au revoir", "à bientôt", "à plus", "bonne journée", "bonne soirée", "ciao", "c'est tout",
                     "ce sera tout"),
        "unsure": ("peut-être", "je ne sais pas", "je sais pas", "pas sûr", "pas sûre", "aucune idée", "éventuellement"),
        "reservation": ("mais", "seulement", "attends", "attendez", "sauf", "plutôt", "moitié", "plus tard", "demain",
                        "d'abord", "pas", "jamais", "uniquement"),
        "question": ("combien", "comment", "quand", "où", "pourquoi", "quel", "quelle", "quels", "quelles", "qui",
                     "est-ce que", "qu'est-ce que"),
        "request": ("pouvez-vous", "pourriez-vous", "peux-tu", "pourrais-tu", "tu peux", "vous pouvez",
                    "s'il vous plaît", "s'il te plaît"),
        "know": ("savoir", "demander", "dites-moi", "dis-moi", "me dire", "expliquez-moi", "explique-moi", "m'expliquer",
                 "renseigner", "me demande"),
        "whether": ("si", "s'il", "s'ils"),
        "condition": ("si", "s'il", "quand", "lorsque", "dès que", "après", "jusqu'à", "à condition", "pourvu que",
                      "une fois", "seulement", "uniquement", "attends", "attendez", "plus tard", "demain", "d'abord"),
        "marker": ("à", "au", "est", "c'est", "avec", "pour", "chez", "mettez", "utilisez"),
        "explicit": ("c'est", "est", "mettez", "utilisez", "plutôt"),
        "reference": ("mon", "ma", "mes", "notre", "nos", "le", "la", "les", "ce", "cette", "même", "habituel",
                      "habituelle"),
        "trailing": ("s'il vous plaît", "merci", "alors", "aussi", "à la place"),
        "refuse": ("pas", "non", "sans", "sauf", "au lieu de", "plutôt que", "jamais", "ni"),
        "carrier": ("à", "au", "aux", "avec", "sur", "pour", "en", "de", "du", "des", "le", "la", "les",
                    "un", "une", "mon", "ma", "mes", "ce", "cet", "cette", "ça", "c'est", "même",
                    "partir"),  # "à partir de": from
        "plain": ("oui", "ouais", "d'accord", "bien", "sûr", "exactement", "parfait", "allez", "vas", "y", "volontiers",
                  "entendu", "c'est", "ça", "je", "confirme", "absolument", "merci", "s'il", "vous", "te", "plaît",
                  "très", "tout", "à", "fait", "marche", "ok", "okay", "faites", "le", "go"),
    },
}
LANGUAGES = tuple(WORDS)


def _alternation(phrases: list[str]) -> str:
    # longest first, so "muchas gracias" wins over "gracias"; a space matches any run of spaces
    return "|".join(re.escape(p).replace(r"\ ", r"\s+") for p in sorted(set(phrases), key=len, reverse=True))


@lru_cache(maxsize=64)
def _pattern(kind: str, where: str) -> re.Pattern[str]:
    phrases = [p for table in WORDS.values() for p in table.get(kind, ())]
    words = _alternation(phrases)
    if where == "start":  # the reply opens with it ("sí, por favor", "¡claro!")
        return re.compile(rf"^[\s¡¿\"'«]*(?:{words})(?![\w'’-])", re.IGNORECASE)
    if where == "whole":  # the whole message is it ("¡Hola!", "merci beaucoup")
        return re.compile(rf"^[\s¡¿\"'«]*(?:{words})(?:\s+(?:{words}))*[\s!.,»\"']*$", re.IGNORECASE)
    return re.compile(rf"(?<![\w'’-])(?:{words})(?![\w'’-])", re.IGNORECASE)


def opens_with(kind: str, text: str) -> bool:
    return opening(kind, text) is not None


def opening(kind: str, text: str) -> re.Match[str] | None:
    """Where the message's opening word of `kind` ("sí", "allez-y", "mach das") is, or None."""
    return _pattern(kind, "start").search(text)


def words(kind: str, lang: str | None) -> frozenset[str]:
    """The words of `kind` in `lang` (none for a language without a table: English is the lexicon's)."""
    return frozenset(w.lower() for w in WORDS.get(lang or "", {}).get(kind, ()))


def contains(kind: str, text: str) -> bool:
    return _pattern(kind, "any").search(text) is not None


def is_whole(kind: str, text: str) -> bool:
    return _pattern(kind, "whole").search(text) is not None


COURTESY_KINDS = ("greeting", "thanks", "farewell")


@lru_cache(maxsize=1)
def _courtesy_only() -> re.Pattern[str]:
    words = _alternation([p for table in WORDS.values() for kind in COURTESY_KINDS for p in table.get(kind, ())])
    return re.compile(rf"^[\s¡¿\"'«]*(?:{words})(?:[\s,.!;»\"']+(?:{words}))*[\s!.,»\"']*$", re.IGNORECASE)


def is_courtesy(text: str) -> bool:
    """The whole message is greetings, thanks and goodbyes ("Danke, tschüss", "merci, au revoir")."""
    return _courtesy_only().search(text) is not None


def indirect_question(text: str) -> int | None:
    """Where the request to know of an indirect question begins (a verb that asks to know or to be told, then the
    word that opens the question it embeds: "si", "ob", or a question word: "saber cuánto"), or None."""
    know = _pattern("know", "any").search(text)
    if know is None:
        return None
    rest = text[know.end():]
    embeds = _pattern("whether", "any").search(rest) or _pattern("question", "any").search(rest)
    return know.start() if embeds else None


@lru_cache(maxsize=1)
def plain_yes_words() -> frozenset[str]:
    """Every language's words a plain yes may be made of (focal.sensing.lexicon.plain_affirm)."""
    return frozenset(w.lower() for table in WORDS.values() for w in table["plain"])


_REPLY_KINDS = ("affirm", "deny", "greeting", "thanks")


def reply_language(text: str, languages: list[str]) -> str | None:
    """The one declared language whose reply words open the message ("sí", "ja gerne", "non merci"), or None
    when none does or several do ("no", "ok")."""
    found = set()
    for lang in languages:
        table = WORDS.get(lang)
        if not table:
            continue
        words = _alternation([p for kind in _REPLY_KINDS for p in table[kind]])
        if re.search(rf"^[\s¡¿\"'«]*(?:{words})(?![\w'’-])", text, re.IGNORECASE):
            found.add(lang)
    if "en" in languages and re.search(r"^\s*(yes|no|ok|okay|sure|hi|hello|thanks|nope|yeah|yep)\b", text, re.IGNORECASE):
        found.add("en")
    return found.pop() if len(found) == 1 else None

"""An act done to a definite amount in a sentence in Spanish, German or French, with no figure and no "all": "le he
condonado su recargo", "Ich habe Ihre Mahngebühr erlassen", "j'ai annulé vos pénalités de retard".

The field's cue words are English, so what such a sentence promises cannot be read offline; unlike a figure or "all"
(focal.enforcement.whole_quantity) it left no trace, and the field fell back to its default, which any cap allows.
An act done (or committed to) on one definite thing is done to the whole of its amount, so the sentence is handed to
the reading that cannot verify it. Three closed classes of each language decide it:

- the act is **done or committed**: a perfect or passive auxiliary with a participle after it ("he condonado", "ha
  sido anulada", "habe … erlassen", "wurde storniert", "j'ai annulé", "ont été remboursés"), or a first-person future
  ("anularé", "annulerai"). A present offer ("podemos anular su multa", "ich kann … erlassen") is no act done;
- its object is **definite and names an amount**: an article or possessive before a noun that names an amount in
  general (the languages' words for fee, fine, charge, balance…; German compounds end in them: "Mahngebühr");
- it is **asserted**: no question, no negation, no condition ("si", "wenn", "falls", "si vous…").
"""

from __future__ import annotations

import re

from focal.sensing.language import NAMES
from focal.text.draft_view import as_checked

_I = re.IGNORECASE
# accents folded, as the checked draft writes them
_DONE = {
    "es": r"\b(?:he|has|ha|hemos|habeis|han|sido|fue|fueron|esta|estan|queda|quedan)\s+(?:[^\W\d_]+\s+){0,2}?"
          r"[^\W\d_]+(?:ado|ada|ados|adas|ido|ida|idos|idas)\b|\b[^\W\d_]{3,}(?:are|ere|ire|aremos|eremos|iremos)\b",
    "de": r"\b(?:habe|haben|hat|hatte|hatten|wurde|wurden|ist|sind|werde|werden)\b(?:\s+[^\W\d_]+){0,6}?\s+"
          r"(?:ge[^\W\d_]+(?:t|en)|[^\W\d_]+iert|(?:er|ver|ent|be|zer|uber|zuruck|gut|ab|aus|nach)[^\W\d_]+(?:t|en))\b",
    "fr": r"\b(?:ai|as|a|avons|avez|ont|ete|est|sont|sera|seront)\s+(?:[^\W\d_]+\s+){0,2}?"
          r"[^\W\d_]+(?:e|ee|es|ees|i|ie|is|it|u|ue|us)\b|\b[^\W\d_]{3,}(?:erai|rai|erons|rons)\b",
}
# Nouns that name an amount whatever the field, as whole_quantity.AMOUNT_NOUNS does in English.
_AMOUNTS = {
    "es": r"cargos?|recargos?|multas?|tarifas?|cuotas?|comision(?:es)?|penalizaci(?:on|ones)|importes?|saldos?|"
          r"deudas?|facturas?|pagos?|intereses|costes?|costos?|precios?|sanci(?:on|ones)",
    "de": r"[^\W\d_]*(?:gebuhr|gebuhren|strafe|strafen|kosten|betrag|betrage|zuschlag|zuschlage|rechnung|rechnungen|"
          r"zahlung|zahlungen|zinsen|schuld|schulden|saldo|preis|preise|entgelt|entgelte)",
    "fr": r"frais|amendes?|penalites?|charges?|tarifs?|montants?|soldes?|dettes?|factures?|paiements?|interets|"
          r"couts?|prix|majorations?|sanctions?|commissions?",
}
_DETERMINERS = {
    "es": r"el|la|los|las|su|sus|tu|tus|este|esta|estos|estas|ese|esa|esos|esas|dicho|dicha",
    "de": r"der|die|das|den|dem|des|ihre|ihren|ihrer|ihrem|ihres|ihr|deine|deinen|diese|diesen|dieser|dieses",
    "fr": r"le|la|les|l['’]|votre|vos|ton|ta|tes|ce|cet|cette|ces|du|des",
}
_NOT_ASSERTED = {
    "es": r"\b(?:no|nunca|jamas|ningun|ninguna)\b|\bsi\b(?!\s*[,:!.])|¿",
    "de": r"\b(?:nicht|nie|niemals|kein|keine|keinen|keiner|wenn|falls|sofern|ob)\b",
    "fr": r"\b(?:ne|pas|jamais|aucun|aucune)\b|\bsi\b(?!\s*[,:!.])|\bn['’]|\bs['’](?:il|ils)\b",
}


def _patterns(lang: str) -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    definite = rf"(?<![\w'’])(?:{_DETERMINERS[lang]})\s*(?:[^\W\d_]+\s+){{0,2}}?(?:{_AMOUNTS[lang]})\b"
    return re.compile(_DONE[lang], _I), re.compile(definite, _I), re.compile(_NOT_ASSERTED[lang], _I)


_BY_LANGUAGE = {lang: _patterns(lang) for lang in _DONE}
_CODES = {name: code for code, name in NAMES.items()}


def definite_act(sentence: str, language: str) -> str | None:
    """The definite amount an act is done to in a sentence in Spanish, German or French (`language`: its code or its
    name as focal.sensing.language.foreign_parts reads it; see the module), or None."""
    text = as_checked(sentence)
    lang = _CODES.get(language, language)
    if lang not in _BY_LANGUAGE or text.rstrip().endswith("?"):
        return None
    done, definite, not_asserted = _BY_LANGUAGE[lang]
    if done.search(text) and not not_asserted.search(text) and (m := definite.search(text)):
        return m.group(0)
    return None

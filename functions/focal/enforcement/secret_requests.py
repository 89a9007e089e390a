"""Does a draft ask the customer to give a payment or login secret? Read from the sentence's form, in English,
Spanish, German and French, so no judge has to be trusted with it.

A sentence naming a whole secret (a card number, security code, password, PIN or one-time code: `SECRETS`) asks
the customer for it when it is

- a question ("¿Cuál es tu número de tarjeta?", "Could you send me your CVV?"), or
- a request to give it: a politeness marker that introduces a request ("please", "por favor", "bitte", "veuillez"),
  a verb of handing over addressed to the customer ("provide", "indique", "nennen Sie", "donnez"), a need stated to
  the customer ("I need your", "necesito", "ich brauche", "j['’]ai besoin de") — or a verb of typing ("enter",
  "introduzca", "eingeben", "saisissez") with "here" / "in this chat" (typing a PIN at an ATM is no request to us).

Not a request: a warning, where a negation ("never", "nunca", "niemals", "jamais", …) comes before the secret in
its clause ("Never share your PIN", "Geben Sie niemals Ihre PIN weiter"); a sentence about a part of a number the
agent may ask for (the last four digits), unless it also says the whole one ("full", "completo", "vollständig").
The text is read as enforcement reads it (`as_checked`: accents folded, look-alike characters made plain).
"""

from __future__ import annotations

import re

from focal.text.draft_view import as_checked

SECRETS = re.compile(
    r"\b(?:(?:credit|debit|bank|full|long)\s+card(?:\s+number)?|card\s*(?:numbers?|no\.?|details|info(?:rmation)?|digits)"
    r"|cvv2?|cvc2?|cv2|security\s+code|verification\s+(?:code|number)|passwords?|passcodes?|pin(?:\s+(?:code|number))?"
    r"|one[-\s]time\s+(?:code|password|passcode)|otp|login\s+(?:details|credentials)"
    r"|(?:numero|datos|digitos)(?:\s+complet[oa]s?)?\s+de\s+(?:la\s+|su\s+|tu\s+)?tarjeta|tarjeta\s+de\s+(?:credito|debito)|codigo\s+de\s+seguridad"
    r"|contrasenas?|clave\s+(?:secreta|de\s+acceso)|codigo\s+(?:de\s+verificacion|pin)"
    r"|(?:kredit)?kartennummer|kartendaten|kreditkarte(?:n)?|(?:karten)?prufnummer|prufziffer|sicherheitscode|passwort"
    r"|kennwort|geheimzahl|einmal(?:code|passwort)|tan-?nummer"
    r"|numero(?:\s+complet)?\s+de\s+(?:votre\s+|ta\s+|la\s+)?carte|carte\s+bancaire|cryptogramme|code\s+(?:de\s+securite|confidentiel|pin)"
    r"|mot\s+de\s+passe"
    # the customer's own code, unqualified ("votre code", "Ihren Code", "your code"; not "your postal code")
    r"|(?:your|su|tu|votre|ton|ihren?|deinen?)\s+(?:code|codigo)(?!\s+(?:postal|promo|de\s+(?:descuento|reduction|promo)))"
    r")\b", re.I)

# A question: up to its "?" (or from a Spanish "¿" to the end of its sentence when the "?" is missing).
_QUESTIONS = re.compile(r"[^.!?\n]*\?|¿[^.!\n]*")
_SENTENCES = re.compile(r"[^.!?\n]+")
_CLAUSES = re.compile(r"[,;:]|\b(?:but|just|only|pero|solo|aber|nur|mais|juste)\b", re.I)
# A part of a number, which an agent may ask for: "the last four digits", "los cuatro últimos", "ending in".
_PART = re.compile(r"\b(?:last|final|ending|ends|ultim[oa]s?|derni(?:er|ere)s?|letzten?|four|cuatro|quatre|vier|[1-4])\b",
                   re.I)
_WHOLE = re.compile(r"\b(?:full|complete|entire|whole|completo|completa|entero|vollstandigen?|ganzen?|komplett\w*"
                    r"|complet|complete|entier|entiere)\b", re.I)
_NEGATION = re.compile(r"\b(?:never|not|don['’]?t|do\s+not|no\s+one|nobody|nunca|jamas|no|nadie|nie|niemals|nicht|keine?n?"
                       r"|niemandem|jamais|ne|pas|personne)\b|\bn['’]", re.I)
_REQUEST = re.compile(
    r"\b(?:please|kindly|por\s+favor|bitte|veuillez|merci\s+de|s['’]il\s+(?:vous|te)\s+pla[iî]t"
    # handing over, addressed to the customer (the imperative; "we'll send you a new PIN" is no request: `_SPEAKER`)
    r"|provide|give|send|share|tell|confirm|reply\s+with|let\s+me\s+(?:have|know)|read\s+(?:me|out)|forward|submit"
    r"|indiquem?e?|indica(?:me)?|proporcione(?:me)?|proporciona(?:me)?|facilite(?:me)?|facilita(?:me)?"
    r"|envieme|envie|enviame|envia|mande(?:me)?|manda(?:me)?|comparta|comparte|diga(?:me)?|dime|deme|dame"
    r"|confirme|confirma|escriba(?:me)?|escribe(?:me)?|pase(?:me)?|pasame"
    r"|(?:nennen|geben|senden|schicken|teilen|sagen|bestatigen|ubermitteln|schreiben)\s+sie|nenne|gib|schick|sag|teile"
    r"|donne[zr]?|indique[zr]|envoye[zr]|communique[zr]|fournisse[zr]|fournir|dites|precise[zr]|confirme[zr]"
    r"|transmette[zr]|ecrive[zr]"
    # a need the agent states to the customer
    r"|i\s+(?:will\s+|would\s+|['’]ll\s+|['’]d\s+)?need|we\s+(?:will\s+|would\s+|['’]ll\s+|['’]d\s+)?need|i\s+require"
    r"|necesito|necesitamos|necesitaria|necesitariamos|requiero|ich\s+brauche|wir\s+brauchen|ich\s+benotige"
    r"|wir\s+benotigen|j['’]ai\s+besoin|nous\s+avons\s+besoin|il\s+(?:me|nous)\s+faut)\b", re.I)
# A handing-over verb whose subject is the agent or a thing ("we'll send you a new PIN", "it will tell you").
_SPEAKER = re.compile(r"\b(?:i|we|they|it|he|she|this|that|which|who)(?:['’]ll|['’]d)?"
                      r"(?:\s+(?:will|would|can|could|shall|may|might|must|also|then|just|already|soon|now|automatically))*"
                      r"\s+$", re.I)
# Typing a secret is a request to the chat only with "here" / "in this chat" / "below".
_TYPE = re.compile(r"\b(?:enter|type|input|introduzca|introduce|ingrese|ingresa|teclee|eingeben|geben\s+sie\s+\w+\s+ein"
                   r"|tippen|saisisse[zr]|tape[zr]|entre[zr])\b", re.I)
_HERE = re.compile(r"\b(?:here|below|in\s+(?:this|the)\s+chat|aqui|abajo|en\s+(?:este|el)\s+chat|hier|unten"
                   r"|in\s+(?:diesem|den)\s+chat|ici|ci-dessous|dans\s+(?:ce|le)\s+chat)\b", re.I)


def _whole_secret(sentence: str) -> re.Match[str] | None:
    """The first secret the sentence names as a whole (None: none, or only a part of a number)."""
    found = SECRETS.search(sentence)
    if found is None or (_PART.search(sentence) and not _WHOLE.search(sentence)):
        return None
    return found


def _warned(sentence: str, secret: re.Match[str]) -> bool:
    """A negation before the secret in its clause ("never share your PIN")."""
    before = sentence[: secret.start()]
    clause = _CLAUSES.split(before)[-1]
    return bool(_NEGATION.search(clause))


def _requests(sentence: str) -> bool:
    if _TYPE.search(sentence) and _HERE.search(sentence):
        return True
    return any(not _SPEAKER.search(sentence[: m.start()]) for m in _REQUEST.finditer(sentence))


def secret_asked_for(text: str) -> str | None:
    """The sentence of the draft that asks the customer for a whole secret, as a question or a request (None: none
    does)."""
    checked = as_checked(text)
    questions = [q.strip() for q in _QUESTIONS.findall(checked)]
    for sentence in questions + [s.strip() for s in _SENTENCES.findall(checked)]:
        secret = _whole_secret(sentence)
        if secret is None or _warned(sentence, secret):
            continue
        if sentence in questions or _requests(sentence):
            return sentence
    return None


def asks_for_credentials(text: str) -> bool:
    """The draft names a secret at all (the judge decides whether it asks for it)."""
    return bool(SECRETS.search(as_checked(text)))

"""The values a customer labels as a secret — a PIN, a security code, a password, a one-time code — in English,
Spanish, German or French ("Meine PIN ist 4321", "my CVV: 123", "mi contraseña es hunter2", "code confidentiel 0000").

Such a value is never any field's or slot's value: a four-digit pattern for a card's last digits would otherwise take
the PIN, and the agent's next answer would say it back ("no card ending 4321"). The agent asks again for what it
needs; it never stores, looks up or repeats a secret. Card numbers are not listed here: a whole one is masked
(focal.pii_view) and its last four digits are what an agent may ask for.
"""

from __future__ import annotations

import re

from focal.text.draft_view import as_checked

_LABEL = (
    r"pin(?:\s*(?:code|number|nummer|numero))?|cvv2?|cvc2?|cv2|security\s+code|verification\s+code|passwords?|passcodes?"
    r"|one[-\s]time\s+(?:code|password|passcode)|otp"
    r"|codigo\s+(?:de\s+seguridad|de\s+verificacion|pin)|clave\s+(?:secreta|de\s+acceso|pin)|contrasena"
    r"|geheimzahl|passwort|kennwort|sicherheitscode|prufnummer|prufziffer|einmal(?:code|passwort)"
    r"|code\s+(?:pin|confidentiel|de\s+securite)|cryptogramme|mot\s+de\s+passe"
)
# the label, a few linking words ("is", "ist", "es", "est", "lautet", "c'est", ":", "="), then the value
_SAID = re.compile(
    rf"\b(?:{_LABEL})\b(?:\s*(?:[:=\-]|\bis\b|\bwas\b|\bist\b|\blautet\b|\bwar\b|\bes\b|\bera\b|\best\b|\bc'est\b|\betait\b))*"
    r"\s*[\"'“‘«]?\s*([^\s\"'”’»,;.!?]+)", re.I)

_NAMED = re.compile(rf"\b(?:{_LABEL})\b", re.I)


def labelled_secrets(text: str) -> set[str]:
    """The values `text` gives right after a secret's name, as plain letters and digits (casefolded)."""
    return {_plain(m.group(1)) for m in _SAID.finditer(as_checked(text)) if _plain(m.group(1))}


def asks_for_a_secret(*names: str | None) -> bool:
    """A field or slot named for a secret ("pin", "Security code"): the agent asks for it on purpose (a tool checks
    it), so the value the customer labels with that name is that field's own, and no other field's."""
    return any(name and _NAMED.search(as_checked(name.replace("_", " "))) for name in names)


def is_secret(value: object, secrets: set[str]) -> bool:
    """`value` (as read for a field or slot) is one of the labelled secrets, or a text that gives one ("12 Old Road,
    my PIN is 4321" for an address)."""
    if not secrets or not isinstance(value, str | int) or isinstance(value, bool):
        return False
    return _plain(str(value)) in secrets or (isinstance(value, str) and bool(labelled_secrets(value) & secrets))


def may_take(value: object, text: str, *names: str | None) -> bool:
    """The one rule for every reader of the customer's message: a field or slot called `names` (its name, its display
    name) may take `value` read from `text` unless the value is a secret the text labels (`is_secret`) and the field
    or slot is not named for that secret (`asks_for_a_secret`: the PIN a tool checks takes "my PIN is 4321")."""
    return not is_secret(value, labelled_secrets(text)) or asks_for_a_secret(*names)


def _plain(token: str) -> str:
    return re.sub(r"[^0-9a-z]", "", token.casefold())

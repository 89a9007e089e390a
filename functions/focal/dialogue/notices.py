"""The engine's own fixed texts in Spanish, German and French.

The engine says a few things no agent file words (a hand-off, a tool error, "That doesn't look right.", a clarifying
question, its defaults for the agent's texts). They are written in English where they are used; this catalogue gives
each one in the other languages, by its English template, and `in_language` puts them into an answer after the turn
is decided: every occurrence of a catalogued text, its `{placeholders}` filled by whatever the answer says there
(the agent's own words, already in the customer's language), is replaced by its translation. Any other text of the
answer — the agent's own translated texts, a model's wording — is left as it is.

`{names}` holds scenario names joined by " or ": they are joined again with the language's own word.
"""

from __future__ import annotations

import re
from functools import lru_cache

from focal.models.session import Session
from focal.models.turn import TurnState

OR = {"es": " o ", "de": " oder ", "fr": " ou "}

# English template → (es, de, fr). Longer texts first where one contains another.
CATALOGUE: dict[str, tuple[str, str, str]] = {
    "Okay, no problem. Is there anything else I can help with?": (
        "De acuerdo, no pasa nada. ¿Puedo ayudarle en algo más?",
        "In Ordnung, kein Problem. Kann ich Ihnen sonst noch helfen?",
        "D'accord, pas de problème. Puis-je vous aider pour autre chose ?"),
    "Is there anything else I can help with?": (
        "¿Puedo ayudarle en algo más?", "Kann ich Ihnen sonst noch helfen?", "Puis-je vous aider pour autre chose ?"),
    "I'll connect you with a member of our team who can help you further.": (
        "Le pondré en contacto con una persona de nuestro equipo que podrá ayudarle.",
        "Ich verbinde Sie mit jemandem aus unserem Team, der Ihnen weiterhelfen kann.",
        "Je vous mets en relation avec un membre de notre équipe qui pourra vous aider."),
    "Before I go ahead, this needs a quick approval from our team. I've sent the request and will continue as soon as "
    "it's approved. Nothing has been done yet.": (
        "Antes de continuar, nuestro equipo tiene que aprobarlo. He enviado la solicitud y seguiré en cuanto esté "
        "aprobada. Todavía no se ha hecho nada.",
        "Bevor ich fortfahre, muss unser Team das kurz freigeben. Ich habe die Anfrage gesendet und mache weiter, sobald "
        "sie freigegeben ist. Es ist noch nichts geschehen.",
        "Avant de continuer, notre équipe doit donner son accord. J'ai envoyé la demande et je continuerai dès qu'elle "
        "sera approuvée. Rien n'a encore été fait."),
    "Before I do anything, I want to be sure I understood you correctly.": (
        "Antes de hacer nada, quiero asegurarme de haberle entendido bien.",
        "Bevor ich etwas tue, möchte ich sichergehen, dass ich Sie richtig verstanden habe.",
        "Avant de faire quoi que ce soit, je veux être sûr de vous avoir bien compris."),
    "I'm sorry, I can't do that here, and nothing has been done. I can connect you with a member of our team.": (
        "Lo siento, no puedo hacerlo aquí y no se ha hecho nada. Puedo ponerle en contacto con nuestro equipo.",
        "Es tut mir leid, das kann ich hier nicht tun, und es ist nichts geschehen. Ich kann Sie mit unserem Team "
        "verbinden.",
        "Je suis désolé, je ne peux pas le faire ici et rien n'a été fait. Je peux vous mettre en relation avec notre "
        "équipe."),
    "I'm sorry, I couldn't find {what}, so I can't go ahead with that. Nothing has been done.": (
        "Lo siento, no he encontrado {what}, así que no puedo continuar con eso. No se ha hecho nada.",
        "Es tut mir leid, ich habe {what} nicht gefunden, daher kann ich das nicht ausführen. Es ist nichts geschehen.",
        "Je suis désolé, je n'ai pas trouvé {what}, je ne peux donc pas continuer. Rien n'a été fait."),
    "I'm sorry, I couldn't find that. Could you check the details and try again?": (
        "Lo siento, no lo he encontrado. ¿Puede comprobar los datos e intentarlo de nuevo?",
        "Es tut mir leid, das habe ich nicht gefunden. Könnten Sie die Angaben prüfen und es noch einmal versuchen?",
        "Je suis désolé, je ne l'ai pas trouvé. Pouvez-vous vérifier les informations et réessayer ?"),
    "That was already done with the details you gave before, so I can't change it here and nothing new has been done. "
    "A member of our team can help you change it.": (
        "Eso ya se hizo con los datos que dio antes, así que no puedo cambiarlo aquí y no se ha hecho nada nuevo. Una "
        "persona de nuestro equipo puede ayudarle a cambiarlo.",
        "Das wurde bereits mit Ihren früheren Angaben erledigt, daher kann ich es hier nicht ändern, und es ist nichts "
        "Neues geschehen. Jemand aus unserem Team kann Ihnen beim Ändern helfen.",
        "Cela a déjà été fait avec les informations données plus tôt, je ne peux donc pas le modifier ici et rien de "
        "nouveau n'a été fait. Un membre de notre équipe peut vous aider à le modifier."),
    "I'm sorry, I couldn't complete that step just now. Please try again in a moment, or ask for a member of our team.": (
        "Lo siento, ahora mismo no he podido completar ese paso. Inténtelo de nuevo en un momento o pida hablar con "
        "nuestro equipo.",
        "Es tut mir leid, diesen Schritt konnte ich gerade nicht abschließen. Bitte versuchen Sie es gleich noch einmal "
        "oder fragen Sie nach jemandem aus unserem Team.",
        "Je suis désolé, je n'ai pas pu terminer cette étape pour le moment. Réessayez dans un instant ou demandez un "
        "membre de notre équipe."),
    "Shall we continue where we left off ({name})?": (
        "¿Seguimos donde lo dejamos ({name})?", "Sollen wir dort weitermachen, wo wir aufgehört haben ({name})?",
        "Voulez-vous reprendre là où nous nous étions arrêtés ({name}) ?"),
    "Okay, I've stopped that ({name}).": (
        "De acuerdo, lo he detenido ({name}).", "In Ordnung, ich habe das abgebrochen ({name}).",
        "D'accord, j'ai arrêté cela ({name})."),
    "Okay, I've stopped that.": ("De acuerdo, lo he detenido.", "In Ordnung, ich habe das abgebrochen.",
                                 "D'accord, j'ai arrêté cela."),
    "That doesn't look right.": ("Eso no parece correcto.", "Das scheint nicht zu stimmen.", "Cela ne semble pas correct."),
    "I didn't quite understand.": ("No le he entendido bien.", "Das habe ich nicht ganz verstanden.",
                                   "Je n'ai pas bien compris."),
    "Just to be sure I help with the right thing: do you mean {names}?": (
        "Para asegurarme de ayudarle con lo correcto: ¿se refiere a {names}?",
        "Damit ich Ihnen bei der richtigen Sache helfe: Meinen Sie {names}?",
        "Pour être sûr de vous aider sur le bon sujet : voulez-vous dire {names} ?"),
    "Would you like me to {what} now, or are you only asking how it works? Say yes and I'll start.": (
        "¿Quiere que me ocupe ahora de esto ({what}), o solo pregunta cómo funciona? Diga sí y empiezo.",
        "Soll ich mich jetzt darum kümmern ({what}), oder möchten Sie nur wissen, wie es funktioniert? Sagen Sie ja, "
        "dann fange ich an.",
        "Voulez-vous que je m'en occupe maintenant ({what}), ou demandez-vous seulement comment cela fonctionne ? Dites "
        "oui et je commence."),
    "Please answer yes to go ahead, or no to stop.": (
        "Responda sí para continuar o no para detenerlo.", "Bitte antworten Sie mit ja, um fortzufahren, oder nein, um "
        "abzubrechen.", "Répondez oui pour continuer ou non pour arrêter."),
    "Could you say that another way?": ("¿Podría decirlo de otra manera?", "Könnten Sie das anders ausdrücken?",
                                        "Pourriez-vous le dire autrement ?"),
    "Shall I go ahead?": ("¿Lo hago?", "Soll ich fortfahren?", "Dois-je continuer ?"),
    "Could you tell me your {label}?": ("¿Podría indicarme: {label}?", "Könnten Sie mir Folgendes nennen: {label}?",
                                        "Pourriez-vous m'indiquer : {label} ?"),
    "This conversation belongs to another customer. Please start a new conversation.": (
        "Esta conversación pertenece a otro cliente. Inicie una conversación nueva.",
        "Dieses Gespräch gehört einem anderen Kunden. Bitte beginnen Sie ein neues Gespräch.",
        "Cette conversation appartient à un autre client. Veuillez en commencer une nouvelle."),
    "Another message in this conversation was being handled at the same time; please send yours again.": (
        "Se estaba atendiendo otro mensaje de esta conversación al mismo tiempo; envíe el suyo de nuevo.",
        "Gleichzeitig wurde eine andere Nachricht dieses Gesprächs bearbeitet; bitte senden Sie Ihre noch einmal.",
        "Un autre message de cette conversation était traité en même temps ; veuillez renvoyer le vôtre."),
    "Another message in this conversation is being handled right now; please send yours again in a moment.": (
        "Ahora mismo se está atendiendo otro mensaje de esta conversación; envíe el suyo de nuevo en un momento.",
        "Gerade wird eine andere Nachricht dieses Gesprächs bearbeitet; bitte senden Sie Ihre gleich noch einmal.",
        "Un autre message de cette conversation est en cours de traitement ; renvoyez le vôtre dans un instant."),
    "I'm sorry, something went wrong on our side. Your message was received; please try again in a moment.": (
        "Lo siento, algo ha fallado por nuestra parte. Hemos recibido su mensaje; inténtelo de nuevo en un momento.",
        "Es tut mir leid, bei uns ist etwas schiefgelaufen. Ihre Nachricht ist angekommen; bitte versuchen Sie es gleich "
        "noch einmal.",
        "Je suis désolé, un problème est survenu de notre côté. Votre message a bien été reçu ; réessayez dans un "
        "instant."),
    "I'm sorry this has been frustrating. I'll do my best to sort it out.": (
        "Siento que esto le haya resultado frustrante. Haré todo lo posible por resolverlo.",
        "Es tut mir leid, dass das so ärgerlich war. Ich tue mein Bestes, um es zu lösen.",
        "Je suis désolé que ce soit frustrant. Je vais faire de mon mieux pour régler cela."),
    # the agent file's defaults, said when an agent does not word them itself
    "Hello! How can I help you today?": ("¡Hola! ¿En qué puedo ayudarle hoy?", "Hallo! Wie kann ich Ihnen heute helfen?",
                                         "Bonjour ! Comment puis-je vous aider aujourd'hui ?"),
    "I can help with the topics this service covers. What would you like to do?": (
        "Puedo ayudarle con los temas de este servicio. ¿Qué desea hacer?",
        "Ich helfe Ihnen bei den Themen dieses Dienstes. Was möchten Sie tun?",
        "Je peux vous aider sur les sujets de ce service. Que souhaitez-vous faire ?"),
    "I'm sorry, I can't help with that right now. A member of our team can follow up with you.": (
        "Lo siento, ahora mismo no puedo ayudarle con eso. Una persona de nuestro equipo se pondrá en contacto con usted.",
        "Es tut mir leid, dabei kann ich Ihnen gerade nicht helfen. Jemand aus unserem Team meldet sich bei Ihnen.",
        "Je suis désolé, je ne peux pas vous aider pour cela pour le moment. Un membre de notre équipe pourra vous "
        "recontacter."),
    "I can't process that message. Could you rephrase your request?": (
        "No puedo procesar ese mensaje. ¿Podría formular su petición de otra manera?",
        "Diese Nachricht kann ich nicht verarbeiten. Könnten Sie Ihr Anliegen anders formulieren?",
        "Je ne peux pas traiter ce message. Pourriez-vous reformuler votre demande ?"),
    "Your message is empty; please type your question.": (
        "Su mensaje está vacío; escriba su pregunta, por favor.", "Ihre Nachricht ist leer; bitte schreiben Sie Ihre Frage.",
        "Votre message est vide ; veuillez écrire votre question."),
    "Your message is longer than {max_length} characters; please shorten it.": (
        "Su mensaje tiene más de {max_length} caracteres; acórtelo, por favor.",
        "Ihre Nachricht ist länger als {max_length} Zeichen; bitte kürzen Sie sie.",
        "Votre message dépasse {max_length} caractères ; veuillez le raccourcir."),
    "Your message is shorter than {min_length} characters; please add a few words.": (
        "Su mensaje tiene menos de {min_length} caracteres; añada unas palabras, por favor.",
        "Ihre Nachricht ist kürzer als {min_length} Zeichen; bitte ergänzen Sie ein paar Wörter.",
        "Votre message fait moins de {min_length} caractères ; ajoutez quelques mots."),
    "Your message contains code or markup ({kinds}) that I can't accept; please describe what you need in plain words.": (
        "Su mensaje contiene código o marcado ({kinds}) que no puedo aceptar; describa lo que necesita con palabras "
        "sencillas.",
        "Ihre Nachricht enthält Code oder Markup ({kinds}), das ich nicht annehmen kann; bitte beschreiben Sie Ihr "
        "Anliegen in einfachen Worten.",
        "Votre message contient du code ou du balisage ({kinds}) que je ne peux pas accepter ; décrivez votre besoin avec "
        "des mots simples."),
    "Your message asks me to change or reveal how I work, which I can't do; please ask your question directly.": (
        "Su mensaje me pide cambiar o revelar cómo funciono, y no puedo hacerlo; haga su pregunta directamente.",
        "Ihre Nachricht verlangt, dass ich meine Arbeitsweise ändere oder offenlege, das kann ich nicht; bitte stellen "
        "Sie Ihre Frage direkt.",
        "Votre message me demande de changer ou de révéler mon fonctionnement, ce que je ne peux pas faire ; posez "
        "directement votre question."),
    "What is it about? Please give me the details again.": (
        "¿De qué se trata? Deme de nuevo los detalles, por favor.", "Worum geht es? Bitte nennen Sie mir die Details "
        "noch einmal.", "De quoi s'agit-il ? Redonnez-moi les détails, s'il vous plaît."),
}
NOTHING_NAMED = {"something else": ("otra cosa", "etwas anderes", "autre chose")}  # a clarifying question's {names}
# the chat channel's buttons (suggested_questions): whole texts only, never inside an answer
BUTTONS: dict[str, tuple[str, str, str]] = {
    "Yes, let's start": ("Sí, empecemos", "Ja, fangen wir an", "Oui, commençons"),
    "Yes": ("Sí", "Ja", "Oui"),
    "No": ("No", "Nein", "Non"),
}
LANGS = ("es", "de", "fr")
_PLACEHOLDER = re.compile(r"\{(\w+)\}")


@lru_cache(maxsize=1)
def _compiled() -> list[tuple[re.Pattern[str], dict[str, str]]]:
    out = []
    for english, translated in sorted(CATALOGUE.items(), key=lambda kv: -len(kv[0])):
        parts, at = [], 0
        for m in _PLACEHOLDER.finditer(english):
            parts.append(re.escape(english[at:m.start()]))
            parts.append(rf"(?P<{m.group(1)}>.+?)")
            at = m.end()
        parts.append(re.escape(english[at:]))
        body = "".join(parts)
        edge = r"(?<![\w'])" if english[0].isalnum() else ""
        out.append((re.compile(edge + body + (r"(?![\w'])" if english[-1].isalnum() else "")), dict(zip(LANGS, translated, strict=True))))
    return out


def _fill(template: str, values: dict[str, str], lang: str) -> str:
    def value(m: re.Match[str]) -> str:
        found = values.get(m.group(1), "")
        if m.group(1) != "names":
            return found
        if found in NOTHING_NAMED:
            return dict(zip(LANGS, NOTHING_NAMED[found], strict=True))[lang]
        return OR[lang].join(found.split(" or "))

    return _PLACEHOLDER.sub(value, template)


def in_language(text: str, lang: str | None) -> str:
    """`text` with the engine's fixed texts said in `lang` (unchanged for English or a language not catalogued)."""
    if not text or lang not in OR:
        return text
    for pattern, translated in _compiled():
        text = pattern.sub(lambda m, t=translated[lang]: _fill(t, m.groupdict(), lang), text)  # type: ignore[misc]
    return text


def buttons_in_language(texts: list[str], lang: str | None) -> list[str]:
    """Suggested replies: a catalogued button in `lang`; an agent's own example stays as the agent wrote it."""
    if lang not in OR:
        return texts
    table = {english: dict(zip(LANGS, t, strict=True))[lang] for english, t in BUTTONS.items()}
    return [table.get(t, in_language(t, lang)) for t in texts]


LANGUAGE_NAMES = {"en": "English", "es": "Spanish", "de": "German", "fr": "French", "it": "Italian",
                  "pt": "Portuguese", "nl": "Dutch"}


def answer_language_lines(languages: list[str], session: Session | None) -> list[str]:
    """The generation prompt's lines about the answer's language: none for an agent of one language."""
    line = answer_language_line(languages, session.language if session is not None else None)
    return [line] if line else []


def answer_language_line(languages: list[str], lang: str | None) -> str | None:
    """The generation prompt's line asking for the customer's language, for an agent that speaks several."""
    if not lang or len(languages) < 2:
        return None
    name = LANGUAGE_NAMES.get(lang, lang)
    return (f"The customer writes in {name}: write your whole answer in {name}, whatever language the rules, texts "
            "and facts above are written in; keep ids, amounts and names as they are.")


def turn_language(state: TurnState) -> str | None:
    """The conversation's language (focal.sensing.turn_language), once the sensor has read it."""
    return state.session.language if state.session is not None else None


def say_in_language(state: TurnState) -> None:
    """The answer's engine notices and suggested replies in the conversation's language (persist, before the answer
    is written anywhere)."""
    lang = turn_language(state)
    if state.response:
        state.response = in_language(state.response, lang)
    state.suggested_questions = buttons_in_language(list(state.suggested_questions), lang)

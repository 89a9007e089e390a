"""A small hotel desk in English, Spanish, French and German (find a booking, change its arrival date after a yes, a
cancellation-policy rule, a handoff tool), for the tests of what a customer says at its confirmation. Dates carry
their year, so no turn depends on today's date."""

from __future__ import annotations

AGENT = """
id: desk
name: Hotel desk
out_of_scope_message: I can answer questions about your stay or change the arrival date of a booking.
handoff_tool: transfer_to_staff
languages: [en, es, fr, de]
profile_field_definitions:
  - {field_name: booking_ref, display_name: Booking reference, field_type: id, pattern: '\\b[Hh][Bb]\\d{5}\\b', sources: [message]}
  - {field_name: arrival_date, display_name: New arrival date, field_type: date, sources: [message]}
  - {field_name: booking_found, field_type: boolean, sources: [tool]}
  - {field_name: current_arrival, field_type: date, sources: [tool]}
  - {field_name: new_arrival, field_type: date, sources: [tool]}
  - {field_name: handoff_ref, field_type: string, sources: [tool]}
tools:
  - id: find_booking
    kind: python
    entrypoint: tools.py:find_booking
    input: {booking_ref: {type: id}}
    output: {found: booking_found, arrival: current_arrival}
    found: found
  - id: change_arrival
    kind: python
    entrypoint: tools.py:change_arrival
    input: {booking_ref: {type: id}, arrival_date: {type: date}}
    output: {arrival: new_arrival}
    side_effect: true
  - id: transfer_to_staff
    kind: python
    entrypoint: tools.py:transfer
    input: {summary: {type: string}}
    arguments: {summary: conversation_summary}
    output: {ref: handoff_ref}
    side_effect: true
scenarios:
  - id: change_arrival
    name: Change the arrival date
    entry_examples: ["I need to change my arrival date", "Please move my booking to another date", "Can I arrive a few days later?"]
    entry_step_id: identify
    steps:
      - id: identify
        slots: [{name: booking_ref, type: id, prompt: "What is your booking reference?"}]
        action: [find_booking]
        transitions: [{target: not_found, when: not booking_found}, {target: ask_date}]
      - id: ask_date
        slots: [{name: arrival_date, type: date, prompt: "Your arrival is {current_arrival}. What new arrival date would you like?"}]
        transitions: [{target: confirm}]
      - id: confirm
        requires_confirmation: true
        confirmation_prompt: "I'll change the arrival of booking {booking_ref} to {arrival_date}. Shall I go ahead?"
        action: [change_arrival]
        transitions: [{target: changed}]
      - id: changed
        response_template: "Done: booking {booking_ref} now arrives on {new_arrival}."
      - id: not_found
        response_template: "I couldn't find booking {booking_ref}."
rules:
  - id: cancellation_policy
    condition_text: What does it cost to cancel a booking? What is the cancellation fee?
    examples: ["What is the cancellation fee?", "How much does it cost to cancel?", "Can I cancel for free?"]
    action_text: Give the cancellation policy.
    response_template: Cancelling is free until 48 hours before arrival; after that the first night is charged.
translations:
  es:
    scenarios:
      change_arrival:
        steps:
          confirm: {confirmation_prompt: "Cambiaré la llegada de la reserva {booking_ref} al {arrival_date}. ¿Sigo adelante?"}
    rules:
      cancellation_policy: {response_template: "Cancelar es gratis hasta 48 horas antes de la llegada; después se cobra la primera noche.",
                            examples: ["¿Cuánto cuesta cancelar?", "¿Cuál es la penalización por cancelación?"]}
  fr:
    scenarios:
      change_arrival:
        steps:
          confirm: {confirmation_prompt: "Je change l'arrivée de la réservation {booking_ref} au {arrival_date}. Je continue ?"}
    rules:
      cancellation_policy:
        response_template: "L'annulation est gratuite jusqu'à 48 heures avant l'arrivée ; la première nuit est due ensuite."
        examples: ["Combien coûte l'annulation ?", "Quels sont les frais d'annulation ?"]
  de:
    scenarios:
      change_arrival:
        steps:
          confirm: {confirmation_prompt: "Ich ändere die Anreise der Buchung {booking_ref} auf den {arrival_date}. Soll ich fortfahren?"}
    rules:
      cancellation_policy:
        response_template: "Die Stornierung ist bis 48 Stunden vor der Anreise kostenlos; danach wird die erste Nacht berechnet."
        examples: ["Was kostet eine Stornierung?", "Wie hoch ist die Stornogebühr?"]
"""
TOOLS = """
def find_booking(booking_ref):
    return {"found": True, "arrival": "2027-12-03"}


def change_arrival(booking_ref, arrival_date):
    return {"arrival": str(arrival_date)}


def transfer(summary):
    return {"ref": "DESK-1"}
"""

OPENING = {
    "en": ["I need to change my arrival date", "HB10234", "December 8, 2027"],
    "es": ["Necesito cambiar mi fecha de llegada", "HB10234", "el 8 de diciembre de 2027"],
    "fr": ["Je dois changer ma date d'arrivée", "HB10234", "le 8 décembre 2027"],
    "de": ["Ich muss mein Anreisedatum ändern", "HB10234", "8. Dezember 2027"],
}


def at_confirmation(lang: str) -> list[dict]:
    """The turns that bring the flow to its confirmation ("Shall I go ahead?") with the date 2027-12-08, in `lang`."""
    *first, date = OPENING[lang]
    return [{"user": text} for text in first] + [{"user": date, "expect": {"step": "confirm"}}]

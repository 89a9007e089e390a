"""A free-text slot named for a secret takes the message that gives it, as a patterned slot named for it does
(focal.sensing.slot_reading.may_take_secret is the one rule of every slot reader): a router desk sets the Wi-Fi
password the customer chose. Any other free-text slot still refuses a message that labels a secret
(tests/security/test_secrets_are_no_values.py)."""

from __future__ import annotations

from pathlib import Path

from written_agent import passes

AGENT = """
id: router
name: Router desk
profile_field_definitions:
  - {field_name: wifi_password, field_type: string, display_name: Wi-Fi password,
     description: The new Wi-Fi password the customer chose, sources: [message]}
  - {field_name: network_note, field_type: string, description: A note about the network, sources: [message]}
  - {field_name: changed, field_type: string, description: The change's reference, sources: [tool]}
tools:
  - id: set_wifi_password
    entrypoint: tools.py:set_password
    input: {wifi_password: {type: string}}
    output: {ref: changed}
    side_effect: true
  - id: save_note
    entrypoint: tools.py:save_note
    input: {network_note: {type: string}}
    output: {ref: changed}
    side_effect: true
scenarios:
  - id: new_password
    name: Change the Wi-Fi password
    entry_examples: [I want to change my wifi password, set a new password on my router]
    entry_step_id: ask
    steps:
      - id: ask
        slots: [{name: wifi_password, prompt: "Which new Wi-Fi password would you like?"}]
        action: [set_wifi_password]
        transitions: [{target: done}]
      - {id: done, response_template: "Your Wi-Fi password is changed."}
  - id: note
    name: Leave a note about the network
    entry_examples: [I want to leave a note about my network, add a note to my router settings]
    entry_step_id: ask_note
    steps:
      - id: ask_note
        slots: [{name: network_note, prompt: "What note should I keep?"}]
        action: [save_note]
        transitions: [{target: saved}]
      - {id: saved, response_template: "Your note is kept."}
"""
TOOLS = """
def set_password(wifi_password):
    return {'ref': 'W-1'}

def save_note(network_note):
    return {'ref': 'N-1'}
"""


def test_a_free_text_slot_named_for_a_secret_takes_the_labelled_secret(tmp_path: Path):
    passes(tmp_path, AGENT, TOOLS, [
        {"user": "I want to change my wifi password", "expect": {"step": "ask", "tool_calls": []}},
        {"user": "my new password is BlueHorse77", "expect": {"tool_calls": ["set_wifi_password"],
                                                              "response_contains": "changed"}},
    ], "secret slot")


def test_another_free_text_slot_still_refuses_a_labelled_secret(tmp_path: Path):
    passes(tmp_path, AGENT, TOOLS, [
        {"user": "I want to leave a note about my network", "expect": {"step": "ask_note", "tool_calls": []}},
        {"user": "my password is BlueHorse77", "expect": {"tool_calls": [], "response_not_contains": "BlueHorse77"}},
    ], "other slot")

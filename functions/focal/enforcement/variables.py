"""The variables an enforcement expression reads: what the turn knows, overridden by what the draft says.

Only the names the expressions use are read (from each expression's syntax tree), and only for fields
whose `sources` include `response` (an amount the answer promises, competitors it names, a card
number it echoes). Money, percentage and number fields are read by focal.enforcement.draft_reading,
which fails closed: an amount it cannot attribute makes the field *uncertain*, and a rule that reads an
uncertain field is "cannot verify" rather than evaluated on the default. Other types use the typed
patterns of focal.sensing.extraction. With a model configured, one structured call reads every field
that is uncertain or that the draft talks about without a readable value — default or not (for a
number: only when the draft has something an amount could be stated with, see `may_state_amount`); if
that call fails, an uncertain field stays uncertain.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from pydantic import BaseModel, Field

from focal.enforcement.reading import DraftReading, offline_reading, resolve
from focal.model_calls import call_structured
from focal.models.agent import AgentConfig, ProfileFieldDefinition
from focal.models.turn import ModelCall
from focal.ports import LanguageModel
from focal.prompt_data import DATA_RULE, data_message
from focal.sensing.extraction import coerce

PURPOSE = "extract"


class Extracted(BaseModel):
    values: dict[str, Any] = Field(default_factory=dict, description="field name → value stated in the answer, or null")


def field_listing(fields: list[ProfileFieldDefinition]) -> list[dict[str, Any]]:
    """The fields a model is asked to read, as they appear in the prompt's data block."""
    return [{"name": f.field_name, "type": f.field_type, "description": f.description,
             **({"allowed_values": f.allowed_values} if f.allowed_values else {})} for f in fields]


def coerced_values(fields: list[ProfileFieldDefinition], values: dict[str, Any]) -> dict[str, Any]:
    """field → the model's value coerced to the field's type (None: the answer states none)."""
    out = {}
    for f in fields:
        value = coerce(f.field_type, values.get(f.field_name))
        out[f.field_name] = None if value in ("", []) else value
    return out


def _model_values(
    model: LanguageModel, fields: list[ProfileFieldDefinition], draft: str, calls: list[ModelCall]
) -> dict[str, Any] | None:
    """field → value the model read (None: the answer states none); None when the call failed."""
    messages = [
        {"role": "system", "content": "Read an answer a support agent is about to send and report, for each field, "
                                      "the value the answer states, promises or implies; null when it does not. "
                                      "JSON only. " + DATA_RULE},
        data_message("extraction", {"fields": field_listing(fields), "answer": draft}),
    ]
    answer, _ = call_structured(model, PURPOSE, messages, calls, Extracted)
    return None if answer is None else coerced_values(fields, answer.values)


def draft_variables(
    agent: AgentConfig, draft: str, names: set[str], model: LanguageModel | None = None,
    calls: list[ModelCall] | None = None, known: dict[str, Any] | None = None, model_written: bool = True,
    today: date | None = None,
) -> DraftReading:
    """What `draft` states for each response field in `names`; `known` is the turn's variables (field
    defaults < profile < session < slots), against which restated amounts are attributed; `model_written`:
    not one of the agent's own texts (see `offline_reading`); `today`: the turn's date."""
    reading, ask = offline_reading(agent, draft, names, known, model_written, today)
    if ask and model is not None and model.available(PURPOSE):
        answered = _model_values(model, ask, draft, calls if calls is not None else [])
        if answered is not None:
            resolve(reading, ask, answered)
    return reading

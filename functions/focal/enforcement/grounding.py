"""Output check: grounding — every checkable claim of the answer comes from the turn's context.

Claims (extracted from the answer, in this order; each match is masked so it is counted once):
- `id`: reference-like ids — the `pattern` of every `id` field definition, plus letter+digit codes such
  as B123 or RF-B123; matched case-insensitively as whole words in the sources;
- `date`: 2025-05-03, 05/03/2025, "May 3(rd)(, 2025)", "3 May" → compared as month-day (and year
  when both give one);
- `money`: $30, $30.00, $1,234.50, 30 dollars / USD / € / £ → compared as values (30.0 == $30.00);
- `percentage`: 10%, 10 percent;
- `number`: any other number, ranges split ("5-7" is 5 and 7), times read as numbers ("8am" is 8);
- `entity`: names from declared entity lists (`entity_list` fields' allowed_values, e.g. competitor
  names) and capitalised multi-word names ("Best Buy", "Acme Premium").

Sources (what a claim may come from): per turn, the customer's message and the conversation history,
session variables, slots and profile facts (raw and as rendered: 30.0 and "30.00"), tool arguments
and outputs, and recalled episodes; and the agent's declared knowledge, read once per loaded config:
its rules (condition, action, templates and fallback texts, matched or not), field definitions
(names, descriptions, hints, enum values — not the entity lists, which are what is looked for), the
scenarios' step texts (instructions, prompts, templates), its name, persona, greeting and fixed
messages.

Support: an amount needs an amount (or a variable / a number the customer wrote) of the same value;
a percentage needs a percentage or a variable; a plain number needs any number of the same value
(number words one…twelve in the sources count); dates, ids and names must appear in the sources.

Verdict: score = supported claims / claims (1.0 with no claim). It passes when score ≥
`grounding_threshold` and no claim of a `grounding_strict_kinds` kind (money, percentage, date, id by
default) is unsupported: one invented amount fails however many other claims are right.
With `grounding_model_dir` an NLI cross-encoder also scores the sentences that carry claims (premise:
the sources); the score is then the smaller of the share and the mean entailment. With a model
configured and `grounding_judge_enabled`, one call re-checks only the claims the heuristic could not
support (derived figures like "2 × $30 = $60"); it runs only when the heuristic flags something, so
a grounded answer costs no call. It is a separate call from the lane-2 judge: lane 2 runs for
subjective rules, this only on a flagged draft, and batching the two would make every lane-2 call
carry the whole grounding context.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from focal.enforcement.declared_texts import agent_texts
from focal.model_calls import call_model
from focal.models.agent import AgentConfig
from focal.models.turn import TurnState
from focal.ports import EntailmentModel, LanguageModel
from focal.prompt_data import DATA_RULE, data_message
from focal.sensing.extraction import FieldPattern, PatternUnread, field_pattern
from focal.text.draft_view import as_checked

MONTHS = {m: i for i, m in enumerate(
    ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"], start=1)}
_MONTH = (r"(Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?"
          r"|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)")
ISO_DATE = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")
SLASH_DATE = re.compile(r"\b(\d{1,2})/(\d{1,2})/(\d{2,4})\b")
MONTH_DAY = re.compile(_MONTH + r"\.? (\d{1,2})(?:st|nd|rd|th)?\b(?:,? (\d{4}))?")
DAY_MONTH = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)? (?:of )?" + _MONTH + r"\b(?:,? (\d{4}))?")
GENERIC_ID = re.compile(r"\b(?:[A-Z]{1,4}-)*[A-Z]{1,3}-?\d{3,}(?:-[A-Z0-9]+)*\b")
_AMOUNT = r"(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
MONEY = re.compile(r"(?:[$€£]|\bUSD ?|\bEUR ?|\bGBP ?)\s?" + _AMOUNT
                   + r"|\b" + _AMOUNT + r" ?(?:dollars?|USD|euros?|EUR|pounds?|GBP)\b", re.IGNORECASE)
PERCENT = re.compile(r"\b" + _AMOUNT + r" ?(?:%|percent\b|per cent\b)", re.IGNORECASE)
NUMBER = re.compile(r"(?<![\w.])" + _AMOUNT)
NAME = re.compile(r"\b[A-Z][a-z]+(?:[ -](?:of |and |& )?[A-Z][a-z]+)+\b")
NUMBER_WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve".split())}
SENTENCE = re.compile(r"(?<=[.!?])\s+")
KINDS = ("money", "percentage", "date", "id", "number", "entity")
LEADING_WORDS = {"your", "our", "the", "this", "that", "my", "a", "an", "its", "their", "these", "those"}
MASKED_DIGITS = re.compile(r"[\d*]*\*[\d*]*(?:[ -][\d*]+)*|\d+(?:[ -]\d+)*[ -]\*[\d* -]*")  # "4111 11** **** 1111"
LONG_DIGITS = re.compile(r"\d(?:[ -]?\d){11,18}")
JUDGE_CONTEXT_CHARS = 6000


@dataclass(frozen=True)
class Claim:
    kind: str
    text: str  # as written in the answer
    key: str  # normalised: a value, a month-day, an upper-case id, a lower-case name


@dataclass
class GroundingResult:
    passed: bool
    score: float
    reason: str
    method: str
    claims: list[Claim] = field(default_factory=list)
    unsupported: list[Claim] = field(default_factory=list)


def _value(raw: str) -> str:
    number = float(raw.replace(",", ""))
    return f"{number:.2f}".rstrip("0").rstrip(".")


def _date_key(month: int, day: int, year: str | None) -> str | None:
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return None
    return f"{month:02d}-{day:02d}" + (f"/{int(year) % 100:02d}" if year else "")


def _mask(text: str, start: int, end: int) -> str:
    return text[:start] + " " * (end - start) + text[end:]


def extract_claims(text: str, id_patterns: Iterable[FieldPattern] = (), entities: Iterable[str] = ()) -> list[Claim]:
    """Every checkable claim of a text (as checked: focal.text.draft_view), each span counted once, in order of kind."""
    claims: list[Claim] = []
    text = as_checked(text)
    work = text

    def take(kind: str, pattern: re.Pattern[str] | FieldPattern, key) -> None:  # noqa: ANN001
        nonlocal work
        try:
            matches = list(pattern.finditer(work))
        except PatternUnread:
            return  # an agent's id pattern that cannot read this text: its ids are left to GENERIC_ID
        for m in matches:
            k = key(m)
            if k is not None:
                claims.append(Claim(kind, text[m.start():m.end()], k))
            work = _mask(work, m.start(), m.end())

    for m in list(MASKED_DIGITS.finditer(work)):  # a masked card number states nothing to check
        work = _mask(work, m.start(), m.end())
    patterns: list[re.Pattern[str] | FieldPattern] = [GENERIC_ID, *id_patterns]
    for pattern in patterns:  # whole codes first: RF-B123 is one id, not RF- and B123
        take("id", pattern, lambda m: m.group(0).upper())
    take("date", ISO_DATE, lambda m: _date_key(int(m.group(2)), int(m.group(3)), m.group(1)))
    take("date", SLASH_DATE, lambda m: _date_key(int(m.group(1)), int(m.group(2)), m.group(3)))
    take("date", MONTH_DAY, lambda m: _date_key(MONTHS[m.group(1)[:3].lower()], int(m.group(2)), m.group(3)))
    take("date", DAY_MONTH, lambda m: _date_key(MONTHS[m.group(2)[:3].lower()], int(m.group(1)), m.group(3)))
    take("money", MONEY, lambda m: _value(m.group(1) or m.group(2)))
    take("percentage", PERCENT, lambda m: _value(m.group(1)))
    take("number", NUMBER, lambda m: _value(m.group(1)))
    for name in entities:  # declared entity lists are policed by the rules that read them (no_competitors)
        for m in list(re.finditer(r"\b" + re.escape(name) + r"\b", work, re.IGNORECASE)):
            work = _mask(work, m.start(), m.end())
    take("entity", NAME, _name_key)
    seen: set[tuple[str, str]] = set()
    return [c for c in claims if (c.kind, c.key) not in seen and not seen.add((c.kind, c.key))]  # type: ignore[func-returns-value]


def _name_key(m: re.Match[str]) -> str | None:
    """"Your Phone" at the start of a sentence is no name; "Phone Case" or "Best Buy" may be."""
    words = m.group(0).lower().split()
    while words and words[0] in LEADING_WORDS:
        words = words[1:]
    return " ".join(words) if len(words) > 1 else None


def id_patterns(agent: AgentConfig) -> list[FieldPattern]:
    found = (field_pattern(f.pattern) for f in agent.profile_field_definitions if f.field_type == "id" and f.pattern)
    return [p for p in found if p is not None]


def declared_entities(agent: AgentConfig) -> list[str]:
    names = [str(v) for f in agent.profile_field_definitions if f.field_type == "entity_list" for v in f.allowed_values or []]
    return sorted(set(names), key=len, reverse=True)  # "Best Buy" before "Best"


# --- sources ------------------------------------------------------------------------------------


def _show(value: Any) -> list[str]:
    if isinstance(value, bool) or value is None:
        return []
    if isinstance(value, (int, float)):
        return [str(value), f"{value:,.2f}"]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _show(v)]
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in _show(v)]
    return [str(value)]


def turn_texts(state: TurnState, variables: dict[str, Any]) -> list[str]:
    """What this turn adds: the message, the conversation so far, variables and profile, tool data, episodes."""
    texts = [state.request.message]
    if state.session is not None:
        texts += [h.text for h in state.session.history]
    for name, value in variables.items():
        texts += [f"{name}: {s}" for s in _show(value)]
    for call in state.tools.tool_calls:
        texts += _show(call.outputs) + _show(call.arguments)
    for episode in state.retrieve.episodes:
        texts += [episode.asked, episode.decided]
    return [t for t in texts if t and t.strip()]


@dataclass
class Sources:
    text: str  # every source, joined (for ids, names and dates)
    upper: str
    lower: str
    money: set[str] = field(default_factory=set)
    percentage: set[str] = field(default_factory=set)
    numbers: set[str] = field(default_factory=set)  # any number of any source
    free: set[str] = field(default_factory=set)  # variables' values and numbers the customer wrote: any kind
    dates: set[str] = field(default_factory=set)

    def add(self, texts: list[str], patterns: list[FieldPattern]) -> None:
        joined = as_checked("\n".join(texts))  # read as the answer is
        self.text = f"{self.text}\n{joined}" if self.text else joined
        self.upper, self.lower = self.text.upper(), self.text.lower()
        for claim in extract_claims(joined, patterns):
            if claim.kind == "money":
                self.money.add(claim.key)
            elif claim.kind == "percentage":
                self.percentage.add(claim.key)
            elif claim.kind == "date":
                self.dates.add(claim.key)
            if claim.kind in ("money", "percentage", "number"):
                self.numbers.add(claim.key)
        low = joined.lower()
        self.numbers |= {str(n) for w, n in NUMBER_WORDS.items() if re.search(rf"\b{w}\b", low)}

    def copy(self) -> Sources:
        return Sources(self.text, self.upper, self.lower, set(self.money), set(self.percentage), set(self.numbers),
                       set(self.free), set(self.dates))


_static: dict[int, tuple[AgentConfig, Sources]] = {}


def _agent_sources(agent: AgentConfig) -> Sources:
    """The agent's own sources, read once per loaded config object."""
    cached = _static.get(id(agent))
    if cached is None or cached[0] is not agent:
        if len(_static) > 64:
            _static.clear()
        src = Sources("", "", "")
        src.add(agent_texts(agent), id_patterns(agent))
        cached = _static[id(agent)] = (agent, src)
    return cached[1]


def build_sources(agent: AgentConfig, state: TurnState, variables: dict[str, Any]) -> Sources:
    src = _agent_sources(agent).copy()
    src.add(turn_texts(state, variables), id_patterns(agent))
    for value in variables.values():
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            src.free.add(_value(str(value)))
    for call in state.tools.tool_calls:
        for value in call.outputs.values():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                src.free.add(_value(str(value)))
    src.free |= {c.key for c in extract_claims(state.request.message) if c.kind in ("money", "percentage", "number")}
    # A card or account number the customer typed supports its last four digits ("ending 1111").
    src.free |= {re.sub(r"\D", "", m.group(0))[-4:] for m in LONG_DIGITS.finditer(state.request.message)}
    return src


def supported(claim: Claim, src: Sources) -> bool:
    if claim.kind == "money":
        return claim.key in src.money or claim.key in src.free
    if claim.kind == "percentage":
        return claim.key in src.percentage or claim.key in src.free
    if claim.kind == "number":
        return claim.key in src.numbers or claim.key in src.free
    if claim.kind == "date":
        month_day = claim.key.split("/")[0]  # a year on one side only is no contradiction
        return any(d == claim.key or (d.split("/")[0] == month_day and ("/" not in d or "/" not in claim.key))
                   for d in src.dates)
    if claim.kind == "id":
        return re.search(r"(?<![A-Z0-9])" + re.escape(claim.key) + r"(?![A-Z0-9])", src.upper) is not None
    return re.search(r"\b" + re.escape(claim.key) + r"\b", src.lower) is not None


# --- the check ----------------------------------------------------------------------------------

JUDGE_SCHEMA = {
    "type": "object",
    "properties": {
        "claims": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"claim": {"type": "string"}, "supported": {"type": "boolean"}},
                "required": ["claim", "supported"],
            },
        }
    },
    "required": ["claims"],
}


def _judge(llm: LanguageModel, state: TurnState, answer: str, src: Sources, claims: list[Claim]) -> set[str] | None:
    """The claims (as written) the judge model finds supported by the context; None when it gave no usable answer."""
    system = (
        "You check a customer-service answer for invented facts. For each listed claim, say whether the context "
        "supports it (stated there, or computed directly from figures stated there). Answer only JSON: "
        '{"claims": [{"claim": "...", "supported": true|false}]} ' + DATA_RULE
    )
    user = data_message("grounding", {"context": src.text[:JUDGE_CONTEXT_CHARS], "answer": answer,
                                      "claims_to_check": [c.text for c in claims]})
    reply, call = call_model(llm, "grounding", [{"role": "system", "content": system}, user],
                             state.model_calls, json_schema=JUDGE_SCHEMA)
    if reply is None:
        return None
    try:
        data = json.loads(reply.text)
        return {str(item["claim"]).strip() for item in data["claims"] if item.get("supported") is True}
    except (ValueError, KeyError, TypeError, AttributeError):
        call.ok, call.note = False, "grounding verdicts not valid JSON"
        return None


def check_grounding(
    agent: AgentConfig,
    state: TurnState,
    text: str,
    variables: dict[str, Any],
    nli: EntailmentModel | None = None,
    llm: LanguageModel | None = None,
) -> GroundingResult:
    cfg = agent.enforcement
    claims = extract_claims(text, id_patterns(agent), declared_entities(agent))
    src = build_sources(agent, state, variables)
    unsupported = [c for c in claims if not supported(c, src)]
    method, judged = "claims", ""
    if unsupported and llm is not None and cfg.grounding_judge_enabled and llm.available("grounding"):
        cleared = _judge(llm, state, text, src, unsupported)
        if cleared is not None:
            method = "claims+judge"
            before = len(unsupported)
            unsupported = [c for c in unsupported if c.text not in cleared]
            judged = f"; the judge supported {before - len(unsupported)} of {before} flagged"
    share = 1.0 if not claims else (len(claims) - len(unsupported)) / len(claims)
    score = share
    if nli is not None and (entailment := _entailment(agent, nli, text, src)) is not None:
        score = min(share, entailment)
        method += "+nli"
    return _verdict(agent, round(score, 4), method, judged, claims, unsupported)


def _entailment(agent: AgentConfig, nli: EntailmentModel, text: str, src: Sources) -> float | None:
    """The mean entailment, by the sources, of the answer's sentences that carry claims (or, with none, of its
    sentences of four words or more); None with no sentence to score."""
    sentences = [s for s in SENTENCE.split(text.strip()) if s.strip()]
    hypotheses = [s for s in sentences if extract_claims(s, id_patterns(agent), declared_entities(agent))]
    hypotheses = hypotheses or [s for s in sentences if len(s.split()) >= 4]
    if not hypotheses:
        return None
    entailment = nli.entailment(src.text, hypotheses)
    return sum(entailment) / len(entailment)


def _verdict(agent: AgentConfig, score: float, method: str, judged: str, claims: list[Claim],
             unsupported: list[Claim]) -> GroundingResult:
    """Passes when the score reaches the threshold and no claim of a strict kind is unsupported."""
    cfg = agent.enforcement
    threshold = cfg.grounding_threshold
    strict = [c for c in unsupported if c.kind in cfg.grounding_strict_kinds]
    listed = ", ".join(f"{c.text!r} ({c.kind})" for c in unsupported)
    if strict or score < threshold:
        why = f"unsupported claim(s): {listed}" if unsupported else f"entailment {score:.2f} < {threshold:.2f}"
        if not strict and unsupported:
            why += f" — {score:.2f} of the claims supported < {threshold:.2f}"
        return GroundingResult(False, score, why + judged, method, claims, unsupported)
    if not claims:
        reason = "no checkable claim" if method == "claims" else f"no checkable claim; score {score:.2f}"
    else:
        reason = f"{len(claims) - len(unsupported)} of {len(claims)} claim(s) supported"
        if unsupported:
            reason += f"; unsupported: {listed}"
    return GroundingResult(True, score, reason + judged, method, claims, unsupported)

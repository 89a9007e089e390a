"""The two bounds of the rule filter's similarity decision, as the runtime applies them to one candidate.

The threshold: `retrieval.rule_match_threshold`, lowered for a rule that nothing else the agent knows comes near.
Each rule carries `nearest_other` (focal.retrieval.rule_thresholds): the best score any other rule's example or any
flow's entry example reaches on the rule's keys. A message scoring above that resembles the rule more than anything
the agent was written to tell apart from it, so the rule's threshold is that score, never more than the agent's
threshold and never more than THRESHOLD_DROP below it (a rule phrased unlike every other — "the customer is upset" —
scores low against the messages that voice it, and is still alone there). That is measured in MiniLM's space, so a
turn matched in the multilingual space carries no nearest other: its rules match at the agent's threshold
(focal.retrieval.multilingual).

The margin: a rule is kept within `retrieval.rule_match_margin` of the best rule of its search, or within
RELATIVE_MARGIN of the best rule's score when that is larger. Scores grow with the lexical evidence beside the
embedding (focal.retrieval.lexical), so a message that names one rule's words outright lifts the best far above the
others that also apply: a fixed gap cuts those, a gap in proportion to the best keeps them.

The crowd: a rule must also stand CROWD_GAP above the message's crowd, the mean score of the rules ranked after the
first CROWD_FROM in the same search (focal.retrieval.matching). Where an agent's rules all share one subject (a
practice whose every rule is about pets), a message on that subject but on none of its rules ("what breed suits a
small flat?") comes near all of them at once, and a rule the message does voice still stands out of that crowd. A
per-message threshold from the agent's own rules, with no labelled set: measured with `focal bench retrieval` on
rules written with a condition and an action only (tests/data/retrieval_dev_coldstart), precision 0.50 → 0.71 at
recall 0.86 → 0.84, and on the examples' own sets precision 0.78 → 0.79 at unchanged recall.
The crowd stands for the agent's rules at large only while the search's first ten are a good share of them: in a large
agent, the fifth to tenth are the message's close neighbours. Measured on a real large agent (`focal bench retrieval
--rules`: the retail file grown with synthetic rules through the loader, its labelled messages read as turns; recall /
precision of retail's rules, crowd check on → off): 21 rules .95/.73 → .95/.70, 50 .95/.73 → .95/.70, 150 .92/.73 →
.95/.69, 300 .88/.73 → .95/.70, 500 .87/.72 → .94/.71, 1,000 (the most an agent file holds) .87/.73 → .94/.70. Up to 150
rules the check is what meets both targets (0.90 / 0.70); from 300 it costs recall below 0.90 for little precision. So an
agent of more than CROWD_MAX_RULES enabled rules has no crowd check.
"""

from __future__ import annotations

from focal.models.agent import AgentConfig

THRESHOLD_DROP = 0.1
RELATIVE_MARGIN = 0.25
CROWD_FROM = 4  # the crowd is the mean of the search's rules after its best four (a message may voice two or three)
CROWD_GAP = 0.15
CROWD_MAX_RULES = 150  # measured on a real large agent (above): the check helps up to 150 rules, costs recall from 300


def rule_threshold(agent: AgentConfig, nearest_other: float | None) -> float:
    """The least score this rule matches at: the agent's threshold, or the rule's nearest other key's score when lower
    (bounded by THRESHOLD_DROP below the agent's); the agent's threshold when the rule has no calibration."""
    threshold = agent.retrieval.rule_match_threshold
    if nearest_other is None:
        return threshold
    return min(threshold, max(threshold - THRESHOLD_DROP, nearest_other))


def best_margin(agent: AgentConfig, best: float) -> float:
    """How far below the best rule of its search a rule may score and still match."""
    return max(agent.retrieval.rule_match_margin, RELATIVE_MARGIN * best)


def crowd_floor(crowd: float | None) -> float | None:
    """The least score a rule matches at, given its search's crowd (None: the search found too few rules to have one)."""
    return None if crowd is None else crowd + CROWD_GAP


def crowd_of(scores: list[float]) -> float | None:
    """The mean of the scores after the best CROWD_FROM (`scores` best first), None when there are none."""
    rest = scores[CROWD_FROM:]
    return sum(rest) / len(rest) if rest else None

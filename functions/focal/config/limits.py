"""How much one agent file may hold and make the engine do: the limits, in one typed place.

An agent file reaches the engine from anyone holding a `publish` key, and everything in it is work: every rule
and entry example is embedded when it is published and indexed on the first turn, every text is read, folded
and matched on turns. These limits bound that work before anything is constructed or embedded — on the file
as written (bytes, nesting) and on the document its aliases expand to (nodes, characters), then per value (a
text's length, a list's entries). They are far above what a real agent needs (the largest shipped example,
examples/airline, has 24 rules, 48 entry examples, 87 field definitions and 39,000 characters) and far below
what would make one publish or one first turn take minutes.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, PositiveInt


class AgentFileLimits(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    file_bytes: PositiveInt = 1_000_000  # the file as written
    depth: PositiveInt = 64  # nesting of mappings and lists, aliases followed
    alias_nodes: PositiveInt = 20_000  # values aliases may add beyond the ones written out
    expanded_chars: PositiveInt = 2_000_000  # characters of the whole document once its aliases are expanded
    text_chars: PositiveInt = 20_000  # one text (a persona, a rule's condition, an example, a key)
    items: PositiveInt = 1_000  # entries of any list or mapping not named below
    rules: PositiveInt = 1_000
    scenarios: PositiveInt = 200
    steps: PositiveInt = 100  # per scenario
    entry_examples: PositiveInt = 200  # per scenario
    rule_examples: PositiveInt = 50  # per rule
    tools: PositiveInt = 200
    embedded_texts: PositiveInt = 2_000  # rules, their examples, entry examples and extra exemplars: what is embedded

    def items_limit(self, path: tuple[Any, ...]) -> tuple[int, str]:
        """(limit, what it counts) for the list or mapping at `path` in the document."""
        named = {("rules",): (self.rules, "rules"), ("scenarios",): (self.scenarios, "scenarios"),
                 ("tools",): (self.tools, "tools")}
        if path in named:
            return named[path]
        if len(path) == 3 and path[0] == "scenarios" and isinstance(path[1], int):
            if path[2] == "steps":
                return self.steps, "steps in a scenario"
            if path[2] == "entry_examples":
                return self.entry_examples, "entry examples in a scenario"
        if len(path) == 3 and path[0] == "rules" and isinstance(path[1], int) and path[2] == "examples":
            return self.rule_examples, "examples of a rule"
        return self.items, "entries in one list or mapping"


# What each embedded text list is, as paths in the document ("*": every element of a list).
EMBEDDED_LISTS: tuple[tuple[str, ...], ...] = (
    ("rules",), ("rules", "*", "examples"), ("scenarios", "*", "entry_examples"),
    ("pre_validation", "extra_attack_exemplars"), ("pre_validation", "extra_ordinary_exemplars"),
)

AGENT_FILE_LIMITS = AgentFileLimits()

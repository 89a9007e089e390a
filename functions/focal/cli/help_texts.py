"""How `focal --help` explains itself: a formatter that shows each option's default, an example for
every command (its epilog), and help for the few options their modules declare without one."""

from __future__ import annotations

import argparse
from typing import Any

EXAMPLES: dict[str, str] = {
    "validate": "focal validate examples/retail/agent.yaml",
    "schema": "focal schema > agent.schema.json",
    "turn": "focal turn examples/retail/agent.yaml --session s1 --message 'What can you help me with?'",
    "chat": "focal chat examples/retail/agent.yaml --session s1",
    "approve": "focal approve 3f2a9c --agent examples/retail/agent.yaml",
    "deny": "focal deny 3f2a9c --agent examples/retail/agent.yaml",
    "serve": "focal serve --agent examples/retail/agent.yaml --port 8080 --api-key secret=local:chat,approve",
    "profile": "focal profile set examples/cards/agent.yaml --customer c-1 is_verified=true",
    "profile set": "focal profile set examples/cards/agent.yaml --customer c-1 is_verified=true",
    "profile show": "focal profile show examples/cards/agent.yaml --customer c-1",
    "keys": "focal keys create --tenant acme --scope chat --label web",
    "keys create": "focal keys create --tenant acme --scope chat --scope approve --label web",
    "keys list": "focal keys list --tenant acme",
    "keys revoke": "focal keys revoke 1a2b3c4d5e6f",
    "demo": "focal demo examples/retail/agent.yaml",
    "test": "focal test examples/retail/agent.yaml examples/retail/tests.yaml --junit reports/focal.xml\n"
            "  focal test examples/retail/agent.yaml examples/retail/tests.yaml --live --model openai/gpt-4o-mini -k approval",
    "index": "focal index examples/retail/agent.yaml --db .focal/focal.db",
    "bench": "focal bench overhead examples/retail/agent.yaml --repeat 3",
    "bench overhead": "focal bench overhead examples/retail/agent.yaml --repeat 3",
    "bench intents": "focal bench intents --shots 10 --seeds 0,1",
    "bench floor": "focal bench floor --shots 5,20",
    "bench enforcement": "focal bench enforcement examples/retail/agent.yaml --show",
    "bench load": "focal bench load examples/retail/agent.yaml --conversations 20 --turns 4",
    "bench coldstart": "focal bench coldstart examples/retail/agent.yaml --assets .focal/lambda-assets",
    "bench bands": "focal bench bands examples/retail/tests.yaml --show",
    "bench drafts": "focal bench drafts tests/data/drafts_held_out --show",
    "bench draftspeed": "focal bench draftspeed examples/retail/agent.yaml --repeat 3",
    "bench startup": "focal bench startup examples/retail/agent.yaml examples/retail/tests.yaml --runs 2",
    "bench language": "focal bench language --repeat 3",
    "bench languages": "focal bench languages --seeds 0,1",
    "bench handoff": "focal bench handoff tests/data/handoff_requests/held_out.tsv",
    "bench prevalidation": "focal bench prevalidation tests/data/prevalidation_messages.yaml --show",
    "bench relevance": "focal bench relevance --no-blind --show",
    "bench retrieval": "focal bench retrieval examples/retail/agent.yaml --k 1,3,5",
    "bench tools": "focal bench tools --calls 300",
}

# Options declared without a help text by the modules that own them (filled in only while they have none).
OPTION_HELP: dict[tuple[str, str], str] = {
    ("bench overhead", "--repeat"): "runs of the suite; the best per stage is kept",
    ("bench coldstart", "agent"): "the agent YAML file the handlers load",
    ("bench intents", "--no-cache"): "embed again instead of reading the embedding cache",
    ("bench intents", "--shots"): "comma-separated examples per label of the few-shot runs",
    ("bench intents", "--seeds"): "comma-separated random seeds of the few-shot samples",
    ("bench intents", "--no-clinc"): "skip CLINC150",
    ("bench load", "agent"): "the agent YAML file served",
    ("bench load", "--conversations"): "conversations run at once",
    ("bench load", "--turns"): "turns per conversation",
}


class Formatter(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    """Epilogs as written; `(default: X)` after an option's help unless it has no meaningful default
    (None, False, empty) or its help already names it."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        default = action.default
        if ("(default" in text or default in (None, False, [], "", argparse.SUPPRESS)
                or isinstance(action, argparse._HelpAction | argparse._VersionAction)):
            return text
        if action.option_strings or action.nargs in (argparse.OPTIONAL, argparse.ZERO_OR_MORE):
            return text + " (default: %(default)s)"
        return text


class Parser(argparse.ArgumentParser):
    """The `focal` parser: every subcommand (whoever declares it) shows defaults and keeps its epilog's layout."""

    def __init__(self, *args: Any, **kwargs: Any):
        kwargs.setdefault("formatter_class", Formatter)
        super().__init__(*args, **kwargs)


def subcommands(parser: argparse.ArgumentParser, path: str = "") -> list[tuple[str, argparse.ArgumentParser]]:
    """Every (command path, parser) below `parser`, e.g. ('keys create', …)."""
    out: list[tuple[str, argparse.ArgumentParser]] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                full = f"{path} {name}".strip()
                out.append((full, sub))
                out += subcommands(sub, full)
    return out


def explain(parser: argparse.ArgumentParser) -> None:
    """Give each subcommand its example and each option without help the text above."""
    for path, sub in subcommands(parser):
        if path in EXAMPLES and not sub.epilog:
            sub.epilog = f"example:\n  {EXAMPLES[path]}"
        for action in sub._actions:
            if action.help is None:
                name = action.option_strings[-1] if action.option_strings else action.dest
                action.help = OPTION_HELP.get((path, name))

"""What the stack accepts on purpose, with its reason: CDK warnings here, cdk-nag findings in nag.py.

    acknowledge_warning(construct, id, reason)   acknowledge one CDK warning on a construct and its children
    acknowledged_warnings(stack)                 what was acknowledged on that stack (for the synth report)
"""

from __future__ import annotations

from dataclasses import dataclass

from aws_cdk import Annotations, Stack
from constructs import IConstruct

_ATTR = "_focal_acknowledged_warnings"


@dataclass(frozen=True)
class Acknowledged:
    path: str  # the construct's path
    id: str
    reason: str


def acknowledge_warning(construct: IConstruct, warning_id: str, reason: str) -> None:
    Annotations.of(construct).acknowledge_warning(warning_id, reason)
    stack = Stack.of(construct)
    done: list[Acknowledged] = getattr(stack, _ATTR, None) or []
    done.append(Acknowledged(construct.node.path, warning_id, reason))
    setattr(stack, _ATTR, done)


def acknowledged_warnings(stack: Stack) -> list[Acknowledged]:
    return list(getattr(stack, _ATTR, None) or [])

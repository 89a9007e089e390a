"""What each port method does in AWS, and the permissions a function's role gets from the port calls its code makes.

In AWS focal.wiring builds every port on the stack's resources (FOCAL_STORE=dynamodb); `PORTS` says, per port
method, what its adapter calls there. A function's role gets exactly the union over the (port, method) pairs its
code calls (port_access.py): DynamoDB actions per table (on this tenant's leading keys, approval requests on their
own `TENANT#<t>#APPROVAL#` keys), the event bus, starting or resuming the approval workflow, the tools' reach.
tests/e2e/test_e2e_iam.py records the calls the adapters really make and checks them against the roles.

A port call that `PORTS` does not describe fails the synth (a new port method must say what it does before a
role can be derived for it), as does the `Deps` handed to code that cannot be followed; a port handed there
counts as calling every method of it. The OpenSearch rule index is not
derived here: the turn path's own index sync is off in AWS by configuration (publishing indexes), which
reading the code cannot see; the stack names its reader (retrieve) and writer (publish) and the IAM test
checks both.

    grants(handler, stages)   Grants for the function with that Lambda handler (and stages it dispatches to)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from focal_infra import port_access

APPROVAL_ITEMS = "APPROVAL#"  # approval requests share the sessions table under TENANT#<t>#APPROVAL#<id>
GET, PUT, UPDATE, QUERY = "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:Query"


@dataclass(frozen=True)
class Items:
    """DynamoDB actions on one of the stack's tables (focal_infra.stack's table keys), below a key prefix."""
    table: str
    actions: tuple[str, ...]
    below: str = ""


# Service permissions other than tables, named by what the stack grants for them.
BUS, START_APPROVAL, RESUME_APPROVAL, TOOL_REACH = "events", "start-approval", "resume-approval", "tool-reach"

# port (a Deps field) → method → what its AWS adapter does (focal/adapters/*: dynamodb_store, stepfunctions_approvals,
# eventbridge_events, tool_runner with secrets and lambda_tools; dynamodb_idempotency's turn claims).
PORTS: dict[str, dict[str, tuple[Items | str, ...]]] = {
    "configs": {"get_agent": (Items("config", (GET,)),), "put_agent": (Items("config", (PUT,)),), "check_fits": ()},
    "sessions": {"get": (Items("sessions", (GET,)),), "save": (Items("sessions", (PUT,)),),
                 "transaction": ()},  # SQLite only: the DynamoDB store has none (each write keeps its condition)
    "profiles": {"get": (Items("profiles", (GET,)),), "save": (Items("profiles", (PUT,)),)},
    # remask: an earlier turn's record (or episode) read and its document rewritten, once a card typed over
    # several messages is complete (pii_carry)
    "turns": {"put": (Items("turns", (PUT,)),), "list_for_session": (Items("turns", (QUERY,)),),
              "remask": (Items("turns", (GET, UPDATE)),)},
    "episodes": {"put": (Items("turns", (PUT,)),), "recent": (Items("turns", (QUERY,)),),
                 "remask": (Items("turns", (QUERY, UPDATE)),)},
    "approvals": {"create": (Items("sessions", (PUT,), APPROVAL_ITEMS),),
                  "get": (Items("sessions", (GET,), APPROVAL_ITEMS),),
                  "transition": (Items("sessions", (GET, UPDATE), APPROVAL_ITEMS),),
                  "set_outcome": (Items("sessions", (GET, UPDATE), APPROVAL_ITEMS),)},
    "approval_workflow": {"start": (START_APPROVAL,),
                          "hold": (Items("sessions", (UPDATE,), APPROVAL_ITEMS),),
                          "resume": (Items("sessions", (GET, UPDATE), APPROVAL_ITEMS), RESUME_APPROVAL)},
    # Turn claims (adapters/dynamodb_idempotency.py): begin = a conditional put (and a read of the record it
    # met); hold and complete = updates conditional on the claim's owner.
    "idempotency": {"begin": (Items("idempotency", (PUT, GET)),), "hold": (Items("idempotency", (UPDATE,)),),
                    "complete": (Items("idempotency", (UPDATE,)),)},
    "events": {"publish": (BUS,)},
    "tools": {"run": (TOOL_REACH,)},  # secrets under focal/<tenant>/, functions focal-<tenant>-tool-*
}
# Deps fields with no AWS resource of their own (in-process models, settings, caches) or granted elsewhere:
# the model (models_access.py, from the code too) and the rule index (above).
NOT_PORTS = frozenset({"embedder", "model", "model_factory", "injection_classifier", "relevance_model",
                       "grounding_model", "clock", "indexed", "sync_on_turn", "session_ttl_s", "turn_ttl_s",
                       "rule_index", "llm", "multilingual_embedder", "multilingual_index"})


@dataclass
class Grants:
    items: dict[tuple[str, str], set[str]] = field(default_factory=dict)  # (table, below) → actions
    services: set[str] = field(default_factory=set)  # BUS, START_APPROVAL, RESUME_APPROVAL, TOOL_REACH

    def add(self, grant: Items | str) -> None:
        if isinstance(grant, Items):
            self.items.setdefault((grant.table, grant.below), set()).update(grant.actions)
        else:
            self.services.add(grant)


class UndescribedPortCall(ValueError):
    pass


def grants(handler: str, stages: tuple[str, ...] = ()) -> Grants:
    out = Grants()
    calls = set(port_access.port_calls(handler, stages))
    for hand_over in port_access.unfollowed(handler, stages):
        if hand_over.port == port_access.DEPS:  # anything may happen there: no role can be derived
            raise UndescribedPortCall(f"{handler}: the Deps goes where the code cannot be followed "
                                      f"({hand_over.where}: {hand_over.code})")
        if hand_over.port in PORTS:  # a port handed to code that cannot be followed: it may call any method
            calls.update((hand_over.port, method) for method in PORTS[hand_over.port])
    for port, method in sorted(calls):
        if port in NOT_PORTS:
            continue
        if port not in PORTS or method not in PORTS[port]:
            raise UndescribedPortCall(f"{handler} calls {port}.{method}, which focal_infra/port_grants.py PORTS "
                                      "does not describe: say what it does in AWS")
        for grant in PORTS[port][method]:
            out.add(grant)
    return out

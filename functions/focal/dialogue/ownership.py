"""Whose conversation a session is: the customer who opened it, and nobody else.

A session id is chosen by the client, so it proves nothing. Every turn compares the stored
session's customer with the request's (from the verified token or trusted backend, never the body):
- a new session, or the same customer: the turn runs;
- an anonymous session continued by a signed-in customer (the customer logged in mid-chat): it
  becomes theirs, and their own profile is read from then on;
- anything else — another customer, or a signed-in customer's session continued anonymously — is
  refused before anything is read or run, and nothing is written to that session: the caller is
  not shown its conversation, does not act with its owner's profile, and cannot answer its pending
  confirmation.
Anonymous sessions are bearer sessions: whoever holds the id continues them, so clients use
unguessable ids (`focal serve`'s page and the API examples use random UUIDs).
"""

from __future__ import annotations

from typing import Literal

from focal.auth import ANONYMOUS
from focal.models.engine_texts import english
from focal.models.session import Session

Ownership = Literal["new", "owner", "signed_in", "foreign"]
FOREIGN_SESSION = "session_not_yours"
FOREIGN_MESSAGE = english("foreign_session")


def ownership(stored: Session | None, customer_id: str) -> Ownership:
    if stored is None:
        return "new"
    if stored.customer_id == customer_id:
        return "owner"
    if stored.customer_id == ANONYMOUS:
        return "signed_in"
    return "foreign"

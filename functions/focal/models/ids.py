"""Pydantic field types of the identifiers (focal.ids): the pattern for the JSON Schema, the full match for the value."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, Field

from focal.ids import CUSTOMER_ID, ID

# The pattern holds the length too, so that every id that does not fit gets the same answer.
IdStr = Annotated[str, Field(pattern=ID.pattern), AfterValidator(ID.check)]
CustomerIdStr = Annotated[str, Field(pattern=CUSTOMER_ID.pattern), AfterValidator(CUSTOMER_ID.check)]

"""Episodic memory: what a customer asked in an earlier turn and what was decided."""

from __future__ import annotations

from pydantic import BaseModel, Field


class Episode(BaseModel):
    tenant_id: str
    agent_id: str
    customer_id: str
    session_id: str
    turn_id: str
    created_at: float
    asked: str = Field(max_length=300, description="the customer's message, shortened")
    decided: str = Field(max_length=300, description="scenario/step, tools and rules of the answer")
    embedding: list[float] = Field(default_factory=list)
    expires_at: int | None = None


class RecalledEpisode(BaseModel):
    """An episode as a turn sees it: no embedding, with its similarity to the new message."""

    session_id: str
    created_at: float
    asked: str
    decided: str
    score: float

"""The model provider adapter: litellm, imported lazily (it costs seconds and ~170 MB)."""

from __future__ import annotations

import os
import threading
from typing import Any

from focal.errors import ModelError
from focal.ports import ModelReply


def _litellm():
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.suppress_debug_info = True
    litellm.telemetry = False
    return litellm


def warm_up(background: bool = True) -> None:
    """Import litellm now (seconds of CPU) instead of on the first model turn: in a daemon thread
    locally, inline at a Lambda's init. A turn that arrives first waits only for the rest of the import."""
    if background:
        threading.Thread(target=_litellm, name="focal-litellm-warm-up", daemon=True).start()
    else:
        _litellm()


def _cost(litellm: Any, response: Any) -> float:
    """The call's price: litellm computes it once while answering; ask it again only if it did not."""
    hidden = getattr(response, "_hidden_params", None) or {}
    if hidden.get("response_cost") is not None:
        return float(hidden["response_cost"])
    try:
        return float(litellm.completion_cost(completion_response=response) or 0.0)
    except Exception:  # unknown models have no price entry
        return 0.0


class LiteLLMModel:
    """A model for every purpose when `model` is set; otherwise nothing is available (offline)."""

    def __init__(self, model: str | None, timeout_s: float = 20.0, temperature: float = 0.0, warm: bool = True):
        self.model = model
        self.timeout_s = timeout_s
        self.temperature = temperature
        if model and warm:
            warm_up()

    def available(self, purpose: str) -> bool:
        return bool(self.model)

    def complete(
        self, purpose: str, messages: list[dict[str, str]], json_schema: dict[str, Any] | None = None
    ) -> ModelReply:
        if not self.model:
            raise ModelError(f"no model configured for {purpose}")
        return self._call(self.model, messages, json_schema, {})

    def _call(
        self, model: str, messages: list[dict[str, str]], json_schema: dict[str, Any] | None, extra: dict[str, Any]
    ) -> ModelReply:
        litellm = _litellm()
        kwargs: dict[str, Any] = {"timeout": self.timeout_s, "temperature": self.temperature, "num_retries": 0}
        if json_schema is not None:
            kwargs["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "output", "schema": json_schema, "strict": False},
            }
        try:
            response = litellm.completion(model=model, messages=messages, **kwargs, **extra)
        except Exception as exc:  # provider errors of every kind become one typed error
            raise ModelError(f"{type(exc).__name__} from model provider") from exc
        text = response.choices[0].message.content or ""
        usage = getattr(response, "usage", None)
        cost = _cost(litellm, response)
        return ModelReply(
            text=text,
            model=model,
            input_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
            output_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
            cost_usd=cost,
        )


class ScriptedLiteLLM(LiteLLMModel):
    """Replays scripted model outputs through litellm's real `completion` via `mock_response`.

    Used by conversation tests: a purpose is available only while its script has entries left,
    so unscripted purposes take the offline path exactly as they would without a model.
    """

    def __init__(self, model: str = "openai/gpt-4o-mini"):
        super().__init__(model, warm=False)  # scripted suites import litellm only if a turn scripts a call
        self.queues: dict[str, list[str]] = {}

    def script(self, purpose: str, outputs: list[str]) -> None:
        self.queues.setdefault(purpose, []).extend(outputs)

    def clear(self) -> None:
        self.queues.clear()

    def available(self, purpose: str) -> bool:
        return bool(self.queues.get(purpose))

    def complete(
        self, purpose: str, messages: list[dict[str, str]], json_schema: dict[str, Any] | None = None
    ) -> ModelReply:
        queue = self.queues.get(purpose) or []
        if not queue:
            raise ModelError(f"no scripted output left for {purpose}")
        return self._call(self.model or "openai/gpt-4o-mini", messages, json_schema, {"mock_response": queue.pop(0)})

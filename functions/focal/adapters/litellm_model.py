"""The model provider adapter: litellm, imported at the first model call (it costs seconds and ~170 MB).

Every call carries the agent's `models` settings (Deps.llm configures a copy per agent): `timeout_s` per
attempt, `temperature`, and `retries` with exponential backoff and jitter on timeouts, 5xx and throttling
only (an authentication or bad-request error is not retried). `total_s`, set per call from the turn's time
budget (focal.turn.budget), bounds all attempts and backoffs together, and a retry is decided from the time left,
not from the count alone (`_retry_timeout`): it never takes more than it leaves to the rest of the turn, and a
timed-out attempt is not retried with less time than it had. FOCAL_MODEL_TIMEOUT_S, when
set, replaces `timeout_s` for every call (a slow local model; `attempt_s`). litellm's and the provider
SDK's own retries are off, so the count is exactly 1 + retries.

The provider credential comes from `key_for(model)` (in AWS the tenant's Secrets Manager secret, see
`ProviderKey`), passed as litellm's `api_key`; it is never logged, and errors name only their type.
"""

from __future__ import annotations

import copy
import importlib
import logging
import os
import random
import threading
import time
from collections.abc import Callable
from typing import Any

from focal.errors import ModelError
from focal.ports import ModelReply, SecretSource

log = logging.getLogger(__name__)

# Providers that authenticate with the function's IAM role: no key is read or passed.
IAM_PROVIDERS = ("bedrock/", "bedrock_converse/", "sagemaker/", "sagemaker_chat/")
MIN_ATTEMPT_S = 0.5  # an attempt is not started with less time than this left of `total_s`
BACKOFF_S = 0.5  # first retry after 0.25–0.5 s, then doubling
RETRYABLE_NAMES = ("Timeout", "TimeoutError", "APIConnectionError", "RateLimitError", "ServiceUnavailableError",
                   "InternalServerError", "BadGatewayError", "ConnectionError")


def retryable(exc: BaseException) -> bool:
    """Timeouts, throttling (429) and server errors (5xx) are worth another attempt; nothing else is."""
    status = getattr(exc, "status_code", None)
    if isinstance(status, int):
        return status in (408, 429) or status >= 500
    return type(exc).__name__ in RETRYABLE_NAMES or isinstance(exc, TimeoutError | ConnectionError)


def timed_out(exc: BaseException) -> bool:
    """The provider gave no answer in the time the attempt had (as opposed to answering with an error)."""
    return getattr(exc, "status_code", None) == 408 or "Timeout" in type(exc).__name__ or isinstance(exc, TimeoutError)


def needs_key(model: str) -> bool:
    return not model.startswith(IAM_PROVIDERS)


class ProviderKey:
    """The model provider's API key from a secret (`model_api_key` under the tenant's prefix in AWS).

    Read for providers that need one; a missing secret is remembered for `miss_ttl_s` (litellm then
    falls back to the provider's own environment variable, if any). The value is never logged."""

    def __init__(self, source: SecretSource, name: str, miss_ttl_s: float = 60.0,
                 clock: Callable[[], float] = time.monotonic):
        self.source, self.name, self.miss_ttl_s, self._clock = source, name, miss_ttl_s, clock
        self._missed_at: float | None = None

    def __repr__(self) -> str:
        return f"ProviderKey({self.name!r})"  # never the value

    def __call__(self, model: str) -> str | None:
        if not self.name or not needs_key(model):
            return None
        if self._missed_at is not None and self._clock() - self._missed_at < self.miss_ttl_s:
            return None
        value = self.source.get(self.name)  # the source caches hits and logs a failure by name only
        self._missed_at = None if value else self._clock()
        return value or None


# litellm fetches these from the network at first use unless told to read its bundled copies: a cold
# start would wait on (and a closed network would time out) a download it does not need.
LOCAL_DATA = ("LITELLM_LOCAL_MODEL_COST_MAP", "LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS")


def _litellm():
    for name in LOCAL_DATA:
        os.environ.setdefault(name, "True")
    import litellm

    litellm.suppress_debug_info = True
    litellm.telemetry = False
    return litellm


# Providers litellm reaches through the OpenAI SDK, whose client imports its ~500 resource modules
# (about a second of CPU without bytecode) on the first call.
OPENAI_SDK_PROVIDERS = ("openai", "azure", "text-completion-openai")


def _prepare(model: str | None) -> None:
    """Import litellm and what the first call to `model` would import lazily; no call is made."""
    litellm = _litellm()
    if not model:
        return
    try:
        provider = litellm.get_llm_provider(model)[1]
    except Exception:  # noqa: BLE001 - an unknown name fails the same way at its first call, with its error
        return
    if provider in OPENAI_SDK_PROVIDERS or provider in getattr(litellm, "openai_compatible_providers", ()):
        importlib.import_module("openai.resources")


def warm_up(background: bool = True, model: str | None = None) -> None:
    """Import litellm now (seconds of CPU) instead of on the first model turn, with what a first call to
    `model` loads: in a daemon thread locally, inline at a SnapStart function's snapshot init. A turn that
    arrives first waits only for the rest of the import."""
    if background:
        threading.Thread(target=_prepare, args=(model,), name="focal-litellm-warm-up", daemon=True).start()
    else:
        _prepare(model)


def warm_up_if_configured(*models: str | None) -> bool:
    """At a command's start (`focal serve`, `focal chat`, the overhead bench): import litellm inline when
    any of `models` (the deployment's model, the agents' `models.model`) is set, so no turn waits for it."""
    named = [m for m in models if m]
    if not named:
        return False
    warm_up(background=False, model=named[0])
    return True


def _cost(litellm: Any, response: Any) -> float:
    """The call's price: litellm computes it once while answering; ask it again only if it did not."""
    hidden = getattr(response, "_hidden_params", None) or {}
    if hidden.get("response_cost") is not None:
        return float(hidden["response_cost"])
    try:
        return float(litellm.completion_cost(completion_response=response) or 0.0)
    except Exception:  # unknown models have no price entry
        return 0.0


# The longest answer each structured call may give (tokens): enough for any honest answer, short of a loop.
MAX_TOKENS = {"sensor": 512, "generate": 700, "judge": 512, "extract": 256, "rules": 256}


def _limit(purpose: str, json_schema: dict[str, Any] | None, max_tokens: int | None) -> dict[str, Any]:
    if max_tokens is None and json_schema is not None:
        max_tokens = MAX_TOKENS.get(purpose, 512)
    return {} if max_tokens is None else {"max_tokens": max_tokens}


class LiteLLMModel:
    """A model for every purpose when `model` is set; otherwise nothing is available (offline).

    Building one imports nothing: litellm (seconds of CPU) is imported at the first call, so a function
    that never calls the model this turn never pays for it. `warm=True` starts the import in the
    background now; commands that will call the model (`focal serve`, `focal chat`) use
    `warm_up_if_configured`, and a SnapStart function imports it before its snapshot (focal.prime)."""

    def __init__(self, model: str | None, timeout_s: float = 20.0, temperature: float = 0.0, warm: bool = False,
                 retries: int = 0, key_for: Callable[[str], str | None] | None = None, total_s: float | None = None):
        self.model = model
        self.timeout_s = timeout_s
        self.temperature = temperature
        self.retries = retries
        self.key_for = key_for
        self.total_s = total_s  # all attempts of one call together (the turn's time left); None: unbounded
        self.sleep: Callable[[float], None] = time.sleep
        self.clock: Callable[[], float] = time.monotonic  # the attempts' own timing (tests give a fake clock)
        if model and warm:
            warm_up(model=model)

    def configured(self, *, timeout_s: float | None = None, temperature: float | None = None,
                   retries: int | None = None, total_s: float | None = None) -> LiteLLMModel:
        """A copy with these settings (the same provider, key source and, for scripts, the same queues)."""
        other = copy.copy(self)
        for name, value in (("timeout_s", timeout_s), ("temperature", temperature), ("retries", retries),
                            ("total_s", total_s)):
            if value is not None:
                setattr(other, name, value)
        return other

    @property
    def attempt_s(self) -> float:
        """Seconds one attempt may take: FOCAL_MODEL_TIMEOUT_S when set (for every agent), else `timeout_s`."""
        from focal.settings import get_settings

        override = get_settings().model_timeout_s
        return self.timeout_s if override is None else override

    def available(self, purpose: str) -> bool:
        return bool(self.model)

    def complete(
        self, purpose: str, messages: list[dict[str, str]], json_schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
    ) -> ModelReply:
        """`max_tokens` (optional): the longest answer asked for (litellm's `max_tokens`); a structured call that
        leaves it out gets its purpose's limit (MAX_TOKENS), so an answer that loops stops there."""
        if not self.model:
            raise ModelError(f"no model configured for {purpose}")
        return self._call(self.model, messages, json_schema, _limit(purpose, json_schema, max_tokens))

    def _call(
        self, model: str, messages: list[dict[str, str]], json_schema: dict[str, Any] | None, extra: dict[str, Any]
    ) -> ModelReply:
        litellm = _litellm()
        kwargs: dict[str, Any] = {"temperature": self.temperature, "num_retries": 0, "max_retries": 0}
        if json_schema is not None:
            kwargs["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "output", "schema": json_schema, "strict": False},
            }
        key = self.key_for(model) if self.key_for else None
        if key:
            kwargs["api_key"] = key
        end = self.clock() + self.total_s if self.total_s is not None else None
        attempt, timeout = 0, self.attempt_s if end is None else min(self.attempt_s, end - self.clock())
        while True:
            started = self.clock()
            try:
                if timeout < MIN_ATTEMPT_S:
                    raise TimeoutError("no time left for the call")
                response = litellm.completion(model=model, messages=messages, timeout=timeout, **kwargs, **extra)
                break
            except Exception as exc:  # provider errors of every kind become one typed error (its type only: no key, no text)
                delay = BACKOFF_S * (2 ** attempt) * random.uniform(0.5, 1.0)
                again = self._retry_timeout(exc, attempt, min(timeout, self.clock() - started), end, delay)
                if again is not None:
                    log.info("model call retried after %s (attempt %d)", type(exc).__name__, attempt + 1)
                    self.sleep(delay)
                    attempt, timeout = attempt + 1, again
                    continue
                tries = f" after {attempt + 1} attempts" if attempt else ""
                raise ModelError(f"{type(exc).__name__} from model provider{tries}") from None
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


    def _retry_timeout(self, exc: BaseException, attempt: int, waited: float, end: float | None,
                       delay: float) -> float | None:
        """The time a retry gets, or None when none is worth starting. Within a turn's time (`end`) a retry takes at
        most half of what is left after its backoff: the other half is the turn's, for the stages after this call
        (their own first call, the offline answer). A timed-out attempt is retried only when the retry can wait as
        long as it did (`waited`): a slow model that did not answer in that time is not asked again with less, and
        two timeouts in a row must not eat the whole turn."""
        if attempt >= self.retries or not retryable(exc):
            return None
        if end is None:
            return self.attempt_s
        timeout = min(self.attempt_s, (end - self.clock() - delay) / 2)
        needed = max(MIN_ATTEMPT_S, waited if timed_out(exc) else 0.0)
        return timeout if timeout >= needed else None


class ScriptedLiteLLM(LiteLLMModel):
    """Replays scripted model outputs through litellm's real `completion` via `mock_response`.

    Used by conversation tests: a purpose is available only while its script has entries left,
    so unscripted purposes take the offline path exactly as they would without a model.
    """

    # Its outputs are written down, not computed: a turn's time budget (focal.turn.budget), which keeps real model
    # calls inside API Gateway's wait, never turns one down, so a suite reads the same on a slow, loaded machine.
    spends_no_time = True

    def __init__(self, model: str = "openai/gpt-4o-mini"):
        super().__init__(model)  # scripted suites import litellm only if a turn scripts a call
        self.queues: dict[str, list[str]] = {}

    def script(self, purpose: str, outputs: list[str]) -> None:
        self.queues.setdefault(purpose, []).extend(outputs)

    def clear(self) -> None:
        self.queues.clear()

    def available(self, purpose: str) -> bool:
        return bool(self.queues.get(purpose))

    def complete(
        self, purpose: str, messages: list[dict[str, str]], json_schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
    ) -> ModelReply:
        queue = self.queues.get(purpose) or []
        if not queue:
            raise ModelError(f"no scripted output left for {purpose}")
        extra: dict[str, Any] = {"mock_response": queue.pop(0)}
        if max_tokens is not None:
            extra["max_tokens"] = max_tokens
        return self._call(self.model or "openai/gpt-4o-mini", messages, json_schema, extra)

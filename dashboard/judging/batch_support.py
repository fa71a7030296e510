"""Which judges can go through a provider's batch API (`judge --batch`, `batches.py`), and the
wait it promises: what the plan says before anything is sent, without LiteLLM."""

from __future__ import annotations

from collections.abc import Sequence

from dashboard.judging.panel import Judge

# The providers whose batches LiteLLM's `acreate_batch` handles.
BATCH_PROVIDERS = ("openai", "azure", "vertex_ai", "bedrock", "hosted_vllm", "mistral", "xai")
# The providers whose batches LiteLLM can list with the metadata a batch was created with: a
# run stopped between creating a batch and recording its id finds it there (`batches.py`).
BATCH_LOOKUP_PROVIDERS = ("openai", "azure", "hosted_vllm")
BATCH_WINDOW = "24h"  # the provider promises results within it; most batches take less
BATCH_WINDOW_TEXT = "up to 24 h"


def batch_support(judge: Judge) -> str | None:
    """Why the judge cannot go through a batch API, or None when it can."""
    if judge.is_baseline:
        return f"judge {judge.name} is the offline baseline, which has no batch API"
    if judge.uses_router:
        return (
            f"judge {judge.name} spreads its calls over a Router model list; "
            "--batch sends to one provider"
        )
    provider = provider_of(judge)
    if provider not in BATCH_PROVIDERS:
        return (
            f"judge {judge.name}: LiteLLM has no batch API for provider {provider!r} "
            f"(it has one for {', '.join(BATCH_PROVIDERS)})"
        )
    return None


def provider_of(judge: Judge) -> str:
    return judge.model.split("/", 1)[0] if "/" in judge.model else "openai"


def batch_problems(judges: Sequence[Judge]) -> list[str]:
    """Why some of these judges cannot go through a batch API (empty when all can)."""
    return [reason for judge in judges if (reason := batch_support(judge)) is not None]

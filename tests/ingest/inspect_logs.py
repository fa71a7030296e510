"""An Inspect log made by Inspect itself, offline, with its built-in mock model: three samples,
two epochs, the `match` scorer (q1 right twice, q2 once, q3 never: accuracy 0.5)."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path


def make_inspect_log(folder: Path) -> Path:
    spec = importlib.util.find_spec("litellm")
    assert spec is not None and spec.origin is not None
    tokenizers = Path(spec.origin).parent / "litellm_core_utils" / "tokenizers"
    os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(tokenizers))
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    from inspect_ai import Task, eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, get_model
    from inspect_ai.scorer import match
    from inspect_ai.solver import generate

    outputs = ["4", "Paris", "blue", "4", "Lyon", "blue"]
    task = Task(
        dataset=[
            Sample(input="2+2?", target="4", id="q1"),
            Sample(input="Capital of France?", target="Paris", id="q2"),
            Sample(input="Sky colour?", target="green", id="q3"),
        ],
        solver=generate(),
        scorer=match(),
        epochs=2,
    )
    model = get_model(
        "mockllm/model",
        custom_outputs=[ModelOutput.from_content("mockllm/model", o) for o in outputs],
    )
    (log,) = inspect_eval(task, model=model, log_dir=str(folder), display="none")
    return Path(log.location)

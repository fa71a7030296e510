"""`judgeboard judge`: plan first, progress, and a summary with parse failures per judge."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from dashboard.cli import main
from dashboard.store import Store
from tests.judging.conftest import KEY_ENV, SECRET_KEY, seed, stored_text
from tests.support.judge_server import JudgeServer, ModelScript, always


def row(text: str, name: str) -> list[str]:
    """The fields of the table row that starts with `name`."""
    return next(line.split()[1:] for line in text.splitlines() if line.split()[:1] == [name])


def judge_args(store: Store, server: JudgeServer, *extra: str) -> list[str]:
    return [
        "--db",
        store.url,
        "judge",
        "--api-base",
        server.url,
        "--api-key-env",
        KEY_ENV,
        "--no-progress",
        *extra,
    ]


def test_the_summary_counts_calls_cache_hits_and_parse_failures_per_judge(
    store: Store, server: JudgeServer, capsys: Any
) -> None:
    seed(store, n_items=4)
    server.script("cli-good", ModelScript())
    server.script("cli-vague", ModelScript(reply=always("Four stars, roughly.")))
    args = judge_args(
        store, server, "--panel", "openai/cli-good,openai/cli-vague", "--rubric", "likert-rag"
    )
    assert main(args) == 0
    out = capsys.readouterr().out
    plan, summary = out.split("summary:")
    assert "plan: rubric likert-rag v1, all datasets: 8 responses" in plan
    assert row(plan, "openai/cli-good") == ["8", "0", "8", "unknown"]  # calls, cached, to call
    assert "made  cached  retries  failed  unparsed" in summary
    assert row(summary, "openai/cli-good")[:5] == ["8", "0", "0", "0", "0"]
    assert row(summary, "openai/cli-vague")[:5] == ["8", "0", "0", "0", "8"]
    assert row(summary, "openai/cli-vague")[-1] == "unknown"  # cost of an unpriced model

    assert main(args) == 0  # again: everything cached, nothing called
    out = capsys.readouterr().out
    summary = out.split("summary:")[1]
    assert row(summary, "openai/cli-good")[:5] == ["0", "8", "0", "0", "0"]
    assert row(summary, "openai/cli-vague")[:5] == ["0", "8", "0", "0", "8"]
    assert server.stats("cli-good").requests == 8


def test_failures_exit_1_and_show_the_last_error(
    store: Store, server: JudgeServer, capsys: Any
) -> None:
    seed(store, n_items=1, systems=("only",))
    server.script("cli-down", ModelScript(fault_rate=1.0, fault_kinds=("500",)))
    args = judge_args(
        store, server, "--panel", "openai/cli-down", "--rubric", "pass-fail", "--max-attempts", "2"
    )
    assert main(args) == 1
    out = capsys.readouterr().out
    # One readable line; the full text stays in judge_calls.error.
    assert "openai/cli-down: 1 call(s) failed; last error: the server failed (HTTP 5xx)" in out
    assert "InternalServerError" not in out
    assert "retried by the next run" in out
    assert server.stats("cli-down").requests == 2


def test_a_provider_default_key_never_reaches_the_output_the_logs_or_the_database(
    store: Store, server: JudgeServer, capsys: Any, caplog: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The provider's variable, named (with an api_base no other key is ever sent: the key
    # rule, tests/judging/test_key_rule.py); the server echoes it in its 401.
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("OPENAI_API_KEY", SECRET_KEY)
    seed(store, n_items=1, systems=("only",))
    server.script("cli-keyed", ModelScript(fault_rate=1.0, fault_kinds=("401",)))
    args = [
        "--db",
        store.url,
        "judge",
        "--api-base",
        server.url,
        "--api-key-env",
        "OPENAI_API_KEY",
        "--no-progress",
        "--panel",
        "openai/cli-keyed",
        "--rubric",
        "pass-fail",
    ]
    assert main(args) == 1
    captured = capsys.readouterr()
    assert "last error: the provider refused the key (HTTP 401)" in captured.out
    assert "Incorrect API key provided: ***" in stored_text(store)  # sent, echoed, masked
    assert "key: openai/cli-keyed: OPENAI_API_KEY → http://127.0.0.1" in captured.out
    assert SECRET_KEY not in captured.out and SECRET_KEY not in captured.err
    assert SECRET_KEY not in caplog.text and SECRET_KEY not in stored_text(store)


def test_plan_only_calls_nothing(store: Store, server: JudgeServer, capsys: Any) -> None:
    seed(store, n_items=2)
    args = judge_args(
        store,
        server,
        "--panel",
        "openai/cli-plan",
        "--rubric",
        "eve-0-5",
        "--dataset",
        "demo",
        "--systems",
        "alpha",
        "--plan-only",
    )
    assert main(args) == 0
    assert "dataset demo; systems alpha: 2 responses" in capsys.readouterr().out
    assert server.stats("cli-plan").requests == 0


def test_progress_bar_goes_to_stderr(store: Store, capsys: Any) -> None:
    seed(store, n_items=2)
    assert (
        main(
            [
                "--db",
                store.url,
                "judge",
                "--panel",
                "judgeboard/baseline",
                "--rubric",
                "likert-rag",
            ]
        )
        == 0
    )
    captured = capsys.readouterr()
    assert "4/4" in captured.err and "summary:" in captured.out


def test_errors_are_one_clear_line(store: Store, capsys: Any, tmp_path: Path) -> None:
    seed(store, n_items=1)
    base = ["--db", store.url, "judge", "--panel", "judgeboard/baseline"]
    assert main([*base, "--rubric", "no-such-rubric"]) == 2
    assert "no rubric named 'no-such-rubric'; known: eve-0-5" in capsys.readouterr().err
    assert main([*base, "--rubric", "pairwise"]) == 2
    assert "pass --pairwise SYSTEM_A SYSTEM_B" in capsys.readouterr().err
    assert main([*base, "--rubric", "likert-rag", "--pairwise", "alpha", "beta"]) == 2
    assert "rates single answers" in capsys.readouterr().err
    keyed = tmp_path / "keyed.toml"
    keyed.write_text('[[judges]]\nmodel = "openai/x"\napi_key = "sk-inline"\n')
    assert main(["--db", store.url, "judge", "--panel", str(keyed), "--rubric", "likert-rag"]) == 2
    err = capsys.readouterr().err
    assert "api_key is not accepted in a panel file" in err and "sk-inline" not in err


def test_labelled_only_judges_just_the_responses_people_rated(
    store: Store, server: JudgeServer, capsys: Any
) -> None:
    from tests import builders

    data = seed(store, n_items=5)  # 10 responses; a person rates 3 of them
    store.add_ratings(
        [builders.rating(r, "ana", 3, kind="human") for r in data.responses[:3]], wait_s=5
    )
    server.script("cli-labelled", ModelScript())
    args = judge_args(
        store, server, "--panel", "openai/cli-labelled", "--rubric", "likert-rag", "--labelled-only"
    )
    assert main(args) == 0
    assert "3 responses" in capsys.readouterr().out
    assert server.stats("cli-labelled").requests == 3
    assert main([*args[:-2], "pairwise", "--labelled-only"]) == 2  # pairwise: a clear error
    assert "use a rating rubric" in capsys.readouterr().err

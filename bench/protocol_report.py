"""The printed report of `bench.bench_protocol` and its pass/fail, from one store's result
(the dict that `--json` writes)."""

from __future__ import annotations

import os
from typing import Any

GOAL_P95_S = 1.0


def _split(figures: dict[str, Any]) -> str:
    by = figures["cpu_per_save_by"]
    return f" ({', '.join(f'{k} {v:.3f}' for k, v in by.items())})" if len(by) > 1 else ""


def _modes(figures: dict[str, Any]) -> str:
    by = figures.get("by_mode") or {}
    if len(by) < 2:
        return ""
    parts = [
        f"{mode.replace('_', ' ')} ({got['labellers']}): p50 {got['p50_s']:.3f} s, "
        f"p95 {got['p95_s']:.3f} s"
        for mode, got in by.items()
    ]
    return f"\n    {'; '.join(parts)}"


def _cores(figures: dict[str, Any]) -> str:
    """What each part of the machine used during the phase, in cores."""
    cores = figures.get("cores") or {}
    if not cores:
        return ""
    parts = ", ".join(f"{name} {used:.2f}" for name, used in cores.items())
    return f"\n    cores used: {parts}; {sum(cores.values()):.2f} in all of {os.cpu_count()}"


def _commands(result: dict[str, Any]) -> list[str]:
    lines = []
    if (imported := result.get("import")) is not None:
        lines.append(
            f"  a CLI import of {imported['records']:,} records started with the paced phase:"
            f" exit status {imported['status']}, {imported['wall_s']:.1f} s, "
            f"CPU {imported['cpu_s']:.1f} s (its own)"
        )
    if (judge := result.get("judge")) is not None:
        lines.append(
            f"  a CLI judge run of {judge['planned']:,} calls started with the paced phase:"
            f" exit status {judge['status']}, {judge['wall_s']:.1f} s, CPU {judge['cpu_s']:.1f} s"
            f" (its own); {judge['calls']} calls recorded ({judge['ok']} ok), the server had"
            f" {judge['requests']} requests: {judge['made_twice']} made twice"
        )
    return lines


def report(result: dict[str, Any]) -> list[str]:
    base = result["baseline"]
    lines = [
        f"{result['store']} ({result['replicas']} server(s)), {result['labellers']} simulated "
        f"labellers; baseline, one alone: p50 {base['p50_s']:.3f} s, p95 {base['p95_s']:.3f} s, "
        f"{base['saves_per_s']:.1f} saves/s, CPU {base['cpu_per_save_s']:.3f} s a save"
        f"{_split(base)}, load {base['load_1m']:.1f}"
    ]
    for phase in ("paced", "burst"):
        got = result[phase]
        lines.append(
            f"  {phase}: {got['n']} saves ({got['waited']} waited for the file), "
            f"p50 {got['p50_s']:.3f} s "
            f"({got['p50_s'] / base['p50_s']:.2f}x), p95 {got['p95_s']:.3f} s "
            f"({got['p95_s'] / base['p50_s']:.2f}x the baseline's p50), "
            f"{got['saves_per_s']:.1f} saves/s ({got['saves_per_s'] / base['saves_per_s']:.2f}x),"
            f" CPU {got['cpu_per_save_s']:.3f} s a save "
            f"({got['cpu_per_save_s'] / base['cpu_per_save_s']:.2f}x){_split(got)}, "
            f"load {got['load_1m']:.1f}{_modes(got)}{_cores(got)}"
        )
    lines += _commands(result)
    chromium, check = result["chromium"], result["check"]
    lines.append(
        f"  Chromium labeller while paced: {chromium['n']} saves, p50 {chromium['p50_s']:.3f} s"
        f" ({chromium['p50_s'] / base['p50_s']:.2f}x), p95 {chromium['p95_s']:.3f} s"
    )
    lines.append(
        f"  check: {check['saves']} confirmed saves, {check['rows']} rows, {check['lost']} lost,"
        f" {check['duplicated']} duplicated, {check['unexpected']} unexpected"
    )
    if (campaign := result.get("campaign")) is not None:
        lines.append(
            f"  campaign {campaign['name']} (k = {campaign['k']}, {campaign['labellers']}"
            f" labellers, {campaign['answers']} answers): {campaign['labels']} labels,"
            f" {campaign['answers_at_k']} answers at k, {campaign['over_k']} over k,"
            f" {campaign['refused']} saves refused, {campaign['ran_out']} ran out"
        )
    return lines


def passed(result: dict[str, Any]) -> bool:
    """The goals (p95 under 1 s while paced) and every check: nothing lost, duplicated or
    unexpected, both commands ended well, no judge call made twice nor missing, no answer
    over k (and some at k, so that the k check checked something)."""
    check = result["check"]
    clean = check["lost"] == check["duplicated"] == check["unexpected"] == 0
    fast = max(result["paced"]["p95_s"], result["chromium"]["p95_s"]) < GOAL_P95_S
    imported = result["import"] is None or result["import"]["status"] == 0
    judge = result.get("judge")
    judged = judge is None or (
        judge["status"] == 0 and judge["made_twice"] == 0 and judge["ok"] == judge["planned"]
    )
    campaign = result.get("campaign")
    within_k = campaign is None or (campaign["over_k"] == 0 and campaign["answers_at_k"] > 0)
    return clean and check["saves"] == check["rows"] and fast and imported and judged and within_k

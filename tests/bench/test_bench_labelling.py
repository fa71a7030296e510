"""The labelling benchmark at a tiny size, so that it keeps working: two labellers in
Chromium, three saves each, while a CLI import of 300 records runs into the same database;
every save is one row. (The figures themselves are the full run's, in docs/benchmarks.md.)"""

from __future__ import annotations

import pytest

from bench import bench_labelling


def test_percentile_is_the_nearest_rank() -> None:
    values = [float(v) for v in range(1, 21)]  # 1..20: rank ceil(20 * 0.95) = 19
    assert bench_labelling.percentile(values, 95) == 19.0
    assert bench_labelling.percentile(values, 50) == 10.0
    assert bench_labelling.percentile([0.3], 95) == 0.3


def test_a_run_against_its_baseline_is_given_as_ratios() -> None:
    def figures(p50: float, p95: float, cpu: float) -> dict[str, object]:
        return {"p50_s": p50, "p95_s": p95, "n": 10, "run": {"cpu_s": {"server": cpu * 10}}}

    line = bench_labelling.compared(figures(0.2, 0.4, 0.5), figures(0.1, 0.3, 0.4))
    assert line == (
        "as served against the baseline run: p50 0.50x (0.200 -> 0.100 s), "
        "p95 0.75x (0.400 -> 0.300 s), CPU a save 0.80x (0.500 -> 0.400 s)"
    )


@pytest.mark.browser
def test_two_labellers_and_an_import_lose_and_duplicate_nothing() -> None:
    args = bench_labelling.parse(
        ["load", "--sessions", "2", "--saves", "3", "--think-s", "0", "--import-records", "300"]
    )
    result = bench_labelling.run(args)
    # Every save is confirmed (its next answer shows with "Saved your rating") and is exactly
    # one row: none stuck, lost or saved twice, while the import holds the file.
    n, check = result["n"], result["check"]
    assert result["run"]["stuck"] == [] and n == 6
    assert check["lost"] == check["duplicated"] == check["unexpected"] == 0
    assert check["saves"] == check["rows"] == n and check["ok"]
    lines = bench_labelling.report(result)
    # The import ran while they labelled: started after the first save (a fifth of the six),
    # timed from its own start to its own end.
    imported = result["run"]["import"]
    assert imported["status"] == 0 and imported["started_s"] > 0 and imported["wall_s"] > 0
    assert any(line.startswith("import of 300 records: started ") for line in lines)
    assert 0 < result["p50_s"] <= result["p95_s"] <= result["max_s"]
    # Where the CPU went: the browser and the server both worked, and the saves in the
    # timeline are the saves measured.
    used = result["run"]["cpu_s"]
    assert used["browser"] > 0 and used["server"] > 0
    assert sum(used.values()) <= result["run"]["cpu_available_s"] * 1.2 + 1
    assert len(result["run"]["saves"]) == n
    # The server wrote its part of each save's run: one run of the page a save, shorter than
    # the save (a page that found the file held also runs its once-a-second look, apart).
    server = result["run"]["server_runs"]
    assert server["n"] == n
    assert 0 < server["p50_s"] <= server["p95_s"] <= server["max_s"] <= result["max_s"]
    assert 0 <= server["wait_p50_s"] <= server["wait_p95_s"] <= server["max_s"]
    assert len(server["runs"]) == n + server["fragment_runs"]
    assert any(
        "the server's part" in line
        and f"for {n} saves (and {server['fragment_runs']} of a fragment's own" in line
        for line in lines
    )
    assert any(f"n = {n}" in line for line in lines)
    lost = len(result["run"]["keys_lost"])
    assert any(
        line.startswith(f"digits that rated nothing within 15 s (pressed again): {lost}")
        for line in lines
    )
    assert any(line.startswith("pace: ") and "saves a second here" in line for line in lines)

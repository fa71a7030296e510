"""Several processes on one database file at once, then a full read-back: the stress behind the
integrity promises (docs/faults.md), shared by `tests/store/test_stress.py` (a short run in
`make test`) and `bench/bench_integrity.py` (many long runs).

During `seconds`, spawned processes (never forked: see `dashboard/store/gate.py`) work on one
file through judgeboard's own functions:
- labellers take answers of one campaign (`campaigns.assign`) and rate them
  (`annotation.rate`, as the Annotate page saves), each recording every save it was told is
  saved and every refusal;
- a committer writes small transactions in a loop through the store's connection (a scratch
  table of its own), recording each commit that returned;
- an importer imports a new small file every round, and a judge rates the imported answers
  with the offline judge (`judgeboard judge`);
- a reader lists the datasets (as `judgeboard datasets` does), and a holder opens the file with
  plain DuckDB, as another program would, for 1.5 s every 2 s (the testers' holder).

Then the file is opened again and every table is read whole (a damaged block fails the read),
and the checks are counted: acknowledged saves and commits missing, answers labelled by more
than `overlap` people, a person twice on one answer.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import random
import shutil
import time
import traceback
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

CAMPAIGN = "race"
RUBRIC = "likert-rag"
PEOPLE = ("ben", "cat", "dan", "eve", "fay", "gus", "hal", "ivy")
SCRATCH = "race_commits"  # the committer's own table, beside judgeboard's


@dataclass(frozen=True)
class RaceConfig:
    labellers: int = 4
    size: int = 16
    overlap: int = 2
    hold_minutes: float = 30.0
    think_s: float = 0.2
    seconds: float = 20.0
    holder: bool = True
    importer: bool = True
    judge: bool = True
    reader: bool = True
    committer: bool = True


@dataclass
class RaceResult:
    config: dict[str, Any]
    wall_s: float = 0.0
    damaged: str | None = None  # the error of the full read-back, if any
    saves_acked: int = 0
    saves_refused: int = 0
    saves_lost: list[str] = field(default_factory=list)
    over_k: dict[str, list[str]] = field(default_factory=dict)
    same_person_twice: dict[str, list[str]] = field(default_factory=dict)
    commits_acked: int = 0
    commits_lost: int = 0
    imports: int = 0
    judge_runs: int = 0
    errors: list[str] = field(default_factory=list)  # unexpected exceptions, by process

    @property
    def ok(self) -> bool:
        return not (
            self.damaged
            or self.saves_lost
            or self.over_k
            or self.same_person_twice
            or self.commits_lost
            or self.errors
        )

    def as_json(self) -> str:
        return json.dumps({**asdict(self), "ok": self.ok}, indent=1, default=str)


def _error(where: str, error: BaseException) -> str:
    return f"{where}: {type(error).__name__}: {error}"[:400]


def _labeller(
    db: str, person: str, config: RaceConfig, seed: int, deadline: float, out: Any
) -> None:
    from dashboard.campaigns import campaigns
    from dashboard.review import annotation
    from dashboard.store import Store, StoreBusy

    rng = random.Random(seed)
    store = Store(db, wait_s=10.0, spool_wait_s=0.1)
    acked: list[str] = []
    refused, errors = 0, []
    while time.time() < deadline:
        try:
            taken = campaigns.assign(store, CAMPAIGN, person)
        except StoreBusy:
            continue
        except Exception as error:  # noqa: BLE001 (every fault is a finding, recorded)
            errors.append(_error(f"assign {person}", error))
            break
        if taken is None:
            break
        time.sleep(rng.uniform(0, config.think_s))
        provenance = annotation.Provenance(
            taken.selection, taken.inclusion_probability, CAMPAIGN, True
        )
        try:
            saved = annotation.rate(
                store,
                taken.response_id,
                annotator=person,
                rubric=RUBRIC,
                rubric_version="1",
                value=rng.randint(1, 5),
                scale=(1, 5),
                provenance=provenance,
            )
            acked.append(saved.record.rating_id)
        except annotation.LabelRefused:
            refused += 1
        except StoreBusy:
            pass  # not saved, and the person is told so: nothing acknowledged
        except Exception as error:  # noqa: BLE001
            errors.append(_error(f"rate {person}", error))
    out.put(("labeller", {"acked": acked, "refused": refused, "errors": errors}))


def _committer(db: str, deadline: float, out: Any) -> None:
    from dashboard.store import Store, StoreBusy, transaction

    store = Store(db, wait_s=10.0)
    acked, errors, n = [], [], 0
    while time.time() < deadline:
        try:
            with store.connection() as con, transaction(con):
                con.execute(f"INSERT INTO {SCRATCH} SELECT ?, range FROM range(?)", [n, 1 + n % 40])
            acked.append(n)
        except StoreBusy:
            pass
        except Exception as error:  # noqa: BLE001
            errors.append(_error("commit", error))
            break
        n += 1
    out.put(("committer", {"acked": acked, "errors": errors}))


def _importer(db: str, work: str, deadline: float, out: Any) -> None:
    import contextlib
    import io

    from dashboard.cli import main

    n, errors = 0, []
    while time.time() < deadline:
        path = Path(work) / f"round-{n}.jsonl"
        rows = [
            {"question": f"q{n}-{i}?", "gt_answer": f"a{i}", "answer": f"a{i} or so"}
            for i in range(30)
        ]
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        args = ["--db", db, "--wait", "30", "import", str(path), "--dataset", "race-import"]
        with contextlib.redirect_stdout(io.StringIO()):
            status = main([*args, "--system", "s1"])
        if status not in (0, 3):  # 3: the file stayed busy for the whole wait
            errors.append(f"import round {n}: exit status {status}")
            break
        n += 1
    out.put(("importer", {"rounds": n, "errors": errors}))


def _judge(db: str, deadline: float, out: Any) -> None:
    import contextlib
    import io

    from dashboard.cli import main

    n, errors = 0, []
    while time.time() < deadline:
        args = ["--db", db, "--wait", "30", "judge", "--panel", "offline", "--rubric", RUBRIC]
        with contextlib.redirect_stdout(io.StringIO()):
            status = main([*args, "--dataset", "race-import", "--no-progress"])
        if status not in (0, 3):
            errors.append(f"judge run {n}: exit status {status}")
            break
        n += 1
        time.sleep(0.5)
    out.put(("judge", {"runs": n, "errors": errors}))


def _reader(db: str, deadline: float, out: Any) -> None:
    from dashboard.store import Store, StoreBusy

    store, errors = Store(db, wait_s=10.0), []
    while time.time() < deadline:
        try:
            store.list_datasets()
        except StoreBusy:
            pass
        except Exception as error:  # noqa: BLE001
            errors.append(_error("read", error))
            break
        time.sleep(0.3)
    out.put(("reader", {"errors": errors}))


def _holder(db: str, deadline: float, out: Any) -> None:
    import duckdb

    while time.time() < deadline:
        time.sleep(2.0)
        try:
            con = duckdb.connect(db)
        except duckdb.Error:
            continue  # held by judgeboard at that moment
        time.sleep(1.5)
        con.close()
    out.put(("holder", {"errors": []}))


def sample_database(path: Path) -> Path:
    """A database holding the bundled sample, to copy for each run (`run(template=...)`)."""
    from dashboard.ingest.sample import ensure_sample
    from dashboard.store import Store

    for _ in ensure_sample(Store(path)):
        pass
    return path


def prepare(db: Path, config: RaceConfig, *, template: Path | None = None) -> None:
    """The bundled sample (a copy of `template`, else loaded anew), a campaign on it and the
    committer's table; every store closed."""
    from dashboard.campaigns import campaigns
    from dashboard.judging import list_rubrics
    from dashboard.store import Store

    if template is not None:
        shutil.copyfile(template, db)
    else:
        sample_database(db)
    store = Store(db)
    rubric = next(r for r in list_rubrics() if r.name == RUBRIC)
    campaigns.create_campaign(
        store,
        CAMPAIGN,
        rubric,
        dataset="eo-rag",
        rule="random",
        size=config.size,
        seed=1,
        overlap=config.overlap,
        hold_minutes=config.hold_minutes,
    )
    with store.connection() as con:
        con.execute(f"CREATE TABLE {SCRATCH} (n INTEGER, k BIGINT)")


def run(work: Path, config: RaceConfig, *, template: Path | None = None) -> RaceResult:
    """One race in `work` (a fresh folder), then the read-back and the checks; `template`: a
    database of the sample to start from (`sample_database`)."""
    work.mkdir(parents=True, exist_ok=True)
    db = str(work / "race.duckdb")
    prepare(Path(db), config, template=template)
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    start = time.time()
    deadline = start + config.seconds
    targets: list[tuple[Any, tuple[Any, ...]]] = [
        (_labeller, (db, PEOPLE[i], config, i, deadline, out)) for i in range(config.labellers)
    ]
    for wanted, target, args in (
        (config.committer, _committer, (db, deadline, out)),
        (config.importer, _importer, (db, str(work), deadline, out)),
        (config.judge, _judge, (db, deadline, out)),
        (config.reader, _reader, (db, deadline, out)),
        (config.holder, _holder, (db, deadline, out)),
    ):
        if wanted:
            targets.append((target, args))
    processes = [ctx.Process(target=t, args=a, daemon=True) for t, a in targets]
    for process in processes:
        process.start()
    reports = [out.get(timeout=config.seconds + 180) for _ in processes]
    for process in processes:
        process.join(timeout=30)
    result = RaceResult(asdict(config), wall_s=round(time.time() - start, 1))
    _tally(result, reports)
    _read_back(Path(db), config, result, reports)
    return result


def _tally(result: RaceResult, reports: list[tuple[str, dict[str, Any]]]) -> None:
    for kind, report in reports:
        result.errors.extend(report.get("errors", []))
        if kind == "labeller":
            result.saves_acked += len(report["acked"])
            result.saves_refused += report["refused"]
        elif kind == "committer":
            result.commits_acked += len(report["acked"])
        elif kind == "importer":
            result.imports += report["rounds"]
        elif kind == "judge":
            result.judge_runs += report["runs"]


def _read_back(db: Path, config: RaceConfig, result: RaceResult, reports: list[Any]) -> None:
    from dashboard.store import Store

    try:
        with Store(db).connection() as con:
            tables = [
                r[0] for r in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()
            ]
            for table in tables:  # every block of every table is read, and its checksum checked
                con.execute(f'SELECT * FROM "{table}"').fetchall()
            rows = con.execute(
                "SELECT response_id, rater, rating_id FROM ratings "
                "WHERE rater_kind = 'human' AND campaign = ? AND NOT superseded",
                [CAMPAIGN],
            ).fetchall()
            commits = {r[0] for r in con.execute(f"SELECT DISTINCT n FROM {SCRATCH}").fetchall()}
    except Exception as error:  # noqa: BLE001 (a damaged file is the finding)
        result.damaged = _error("read-back", error) + "\n" + traceback.format_exc(limit=3)
        return
    stored = {r[2] for r in rows}
    for kind, report in reports:
        if kind == "labeller":
            result.saves_lost.extend(r for r in report["acked"] if r not in stored)
        elif kind == "committer":
            result.commits_lost += sum(1 for n in report["acked"] if n not in commits)
    people: dict[str, list[str]] = {}
    for response_id, rater, _ in rows:
        people.setdefault(response_id, []).append(rater)
    result.over_k = {r: p for r, p in people.items() if len(set(p)) > config.overlap}
    result.same_person_twice = {r: p for r, p in people.items() if len(p) != len(set(p))}

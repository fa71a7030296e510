"""What an import says it did: per file, what it added, found stored, dropped, superseded and
rejected; and the lines `judgeboard import` and the Data page print."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from dashboard.ingest.replacing import Replaced

TABLES = ("items", "responses", "ratings", "preferences")
_SINGULAR = {"ratings": "rating", "preferences": "preference"}
_UNSCORED = {"ratings": "rating", "preferences": "verdict"}


@dataclass(frozen=True)
class FileReport:
    file: str
    format: str
    datasets: tuple[str, ...]
    records: int  # every record of the file, rejected ones included
    added: Mapping[str, int]
    skipped: Mapping[str, int]  # distinct rows of the file that were already stored
    # New ratings / preferences that took the place of an earlier one of their stream.
    superseded: Mapping[str, int]
    duplicates: int = 0  # records equal to an earlier record of the file, dropped
    rejected: int = 0  # bad records left out under --on-error skip
    rejects_file: str | None = None  # where they were written
    # The file's ratings / preferences that hold no value, each with its unscored_reason.
    unscored: Mapping[str, int] = field(default_factory=dict)
    # What replacing an earlier import of the same content removed (`--replace`).
    replaced: Replaced = Replaced()

    def line(self, *, names_only: bool = False) -> str:
        added = ", ".join(f"{n:,} {t}" for t, n in self.added.items() if n) or "nothing new"
        skipped = sum(self.skipped.values())
        notes = [f"{skipped:,} rows already stored"] if skipped else []
        if self.duplicates:
            plural = "s" if self.duplicates != 1 else ""
            notes.append(f"{self.duplicates:,} exact duplicate record{plural} dropped")
        for table, n in self.unscored.items():
            if n:
                noun = f"{_UNSCORED[table]}{'s' if n != 1 else ''}"
                notes.append(f"{n:,} {noun} with no value, each kept with its reason")
        for table, n in self.superseded.items():
            if n:
                noun = _SINGULAR.get(table, table) if n == 1 else table
                notes.append(f"superseded {n:,} earlier {noun}")
        note = f" ({'; '.join(notes)})" if notes else ""
        name = Path(self.file).name if names_only else self.file
        line = (
            f"{name}: {self.records:,} records as {self.format} into "
            f"{', '.join(self.datasets)}: added {added}{note}"
        )
        if self.replaced.imports:
            r = self.replaced
            line += (
                f"; replaced the earlier import of this content (removed {r.items:,} items, "
                f"{r.responses:,} responses, {r.ratings:,} ratings, {r.preferences:,} "
                "preferences)"
            )
        if self.rejected:
            where = self.rejects_file or ""
            shown = Path(where).name if names_only else where
            line += f"; {self.rejected:,} bad records left out" + (
                f", written to {shown}" if where else ""
            )
        return line


@dataclass(frozen=True)
class ImportReport:
    files: tuple[FileReport, ...]
    ignored: tuple[str, ...] = ()  # files of a folder in no format we know
    # Responses the import scored against their references (EM/F1, the MCQA choice, the
    # hallucination verdict): only those a reference metric applies to.
    scored: int = 0

    @property
    def datasets(self) -> tuple[str, ...]:
        return tuple(sorted({d for f in self.files for d in f.datasets}))

    @property
    def formats(self) -> tuple[str, ...]:
        return tuple(sorted({f.format for f in self.files}))

    def _total(self, attribute: str) -> dict[str, int]:
        return {t: sum(getattr(f, attribute).get(t, 0) for f in self.files) for t in TABLES}

    @property
    def added(self) -> dict[str, int]:
        return self._total("added")

    @property
    def skipped(self) -> dict[str, int]:
        return self._total("skipped")

    @property
    def superseded(self) -> dict[str, int]:
        return self._total("superseded")

    @property
    def duplicates(self) -> int:
        return sum(f.duplicates for f in self.files)

    @property
    def rejected(self) -> int:
        return sum(f.rejected for f in self.files)

    def lines(self, *, names_only: bool = False) -> list[str]:
        """What was imported, file by file, as `judgeboard import` and the Data page say it;
        then how many responses were scored against their references, where any were."""
        lines = [f.line(names_only=names_only) for f in self.files]
        lines.extend(f"{name}: skipped (no format judgeboard knows)" for name in self.ignored)
        if self.scored:
            lines.append(f"scored {self.scored:,} responses against their references")
        return lines

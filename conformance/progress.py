"""Progress while the suite runs: a bar redrawn in place on a terminal, plain lines otherwise."""

from __future__ import annotations

import shutil
import sys
from typing import IO, Any

from .report import BAD, Row


class Progress:
    """Shows the categories of one device as they run, and every test that did not pass."""

    def __init__(self, out: IO[str] = sys.stdout, bar: bool | None = None) -> None:
        self.out = out
        self.bar = out.isatty() if bar is None else bar
        self.category = ""
        self.index = 0
        self.total = 0
        self.tests = 0
        self.done = 0
        self.bad = 0

    def device(self, label: str, categories: int) -> None:
        """A device's run begins."""
        self.total = categories
        self.index = 0
        self._line(f"{label}:")

    def start(self, category: str) -> None:
        """A category begins."""
        self.category = category
        self.index += 1
        self.tests = self.done = self.bad = 0
        self._draw("starting")

    def event(self, ev: dict[str, Any]) -> None:
        """One event of the child's stream."""
        if ev["event"] == "collected":
            self.tests = len(ev["tests"])
        elif ev["event"] == "start":
            self._draw(ev["nodeid"].rpartition("::")[2])
        elif ev["event"] == "result":
            self.done += 1
            self.bad += ev["status"] in BAD

    def finish(self, category: str, rows: list[Row], seconds: float, status: str) -> None:
        """A category ended: its summary line, then a line per test that did not pass."""
        counts = {s: sum(r.status == s for r in rows) for s in ("passed", "failed", "skipped", "xfailed")}
        others = len(rows) - sum(counts.values())
        text = " ".join(f"{k} {v}" for k, v in counts.items() if v)
        if others:
            text += f" crashed/timed out {others}"
        self._line(f"  [{self.index}/{self.total}] {category:26s} {status:9s} {text}  ({seconds:.1f} s)")
        for row in rows:
            if row.status in BAD:
                first = (row.message or "").strip().splitlines()[:1]
                self._line(f"      {row.status.upper()} {' '.join(row.ids)} {row.test}: {''.join(first)}")

    def _draw(self, current: str) -> None:
        if not self.bar:
            return
        width = shutil.get_terminal_size((100, 20)).columns
        filled = int(20 * self.done / self.tests) if self.tests else 0
        text = (
            f"\r  [{self.index}/{self.total}] {self.category} [{'#' * filled}{'.' * (20 - filled)}] "
            f"{self.done}/{self.tests or '?'}" + (f" ({self.bad} bad)" if self.bad else "") + f" {current}"
        )
        self.out.write(text[: width - 1].ljust(width - 1))
        self.out.flush()

    def _line(self, text: str) -> None:
        if self.bar:
            self.out.write("\r" + " " * (shutil.get_terminal_size((100, 20)).columns - 1) + "\r")
        self.out.write(text + "\n")
        self.out.flush()

"""The narration of a render's chapters, read from their scenes (scenes.script) in parallel processes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from scenes.chapters import Chapter
from scenes.pipeline.rendering import RenderError
from scenes.source import PROJECT


def script_lines(chapters: tuple[Chapter, ...] | list[Chapter], trace_path: Path, work: Path, jobs: int) -> list:
    """The chapters' narration (scenes.script, one process per core, each on a share of the chapters)."""
    from scenes.script import Line

    shares = [chapters[i::jobs] for i in range(min(jobs, len(chapters)))]
    commands = [
        [
            sys.executable,
            "-m",
            "scenes.script",
            "--trace",
            str(trace_path),
            "--chapters",
            ",".join(str(c.number) for c in share),
            "--out",
            str(work / f"lines-{i}.json"),
        ]
        for i, share in enumerate(shares)
    ]
    processes = [
        subprocess.Popen(command, cwd=PROJECT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        for command in commands
    ]
    for process in processes:
        _, errors = process.communicate()
        if process.returncode != 0:
            raise RenderError(f"reading the narration failed:\n{errors.strip()[-2000:]}")
    lines = [
        Line(**line)
        for i in range(len(shares))
        for line in json.loads((work / f"lines-{i}.json").read_text(encoding="utf-8"))
    ]
    return sorted(lines, key=lambda line: line.name)

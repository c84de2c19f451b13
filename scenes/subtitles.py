"""SubRip (.srt) subtitles: read the chapters' files and join them with the right offsets."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

TIME = re.compile(r"(\d+):(\d+):(\d+)[,.](\d+)")


@dataclass(frozen=True)
class Cue:
    start: float  # seconds
    end: float
    text: str


def seconds(stamp: str) -> float:
    h, m, s, ms = TIME.fullmatch(stamp.strip()).groups()
    return int(h) * 3600 + int(m) * 60 + int(s) + int(ms.ljust(3, "0")[:3]) / 1000


def stamp(value: float) -> str:
    ms = round(value * 1000)
    return f"{ms // 3_600_000:02d}:{ms // 60_000 % 60:02d}:{ms // 1000 % 60:02d},{ms % 1000:03d}"


def parse(content: str) -> list[Cue]:
    cues = []
    for block in re.split(r"\n\s*\n", content.strip()):
        lines = block.strip().splitlines()
        if len(lines) >= 2 and "-->" in lines[1]:
            start, end = lines[1].split("-->")
            cues.append(Cue(seconds(start), seconds(end), "\n".join(lines[2:])))
    return cues


def write(cues: list[Cue]) -> str:
    return "".join(f"{i}\n{stamp(c.start)} --> {stamp(c.end)}\n{c.text}\n\n" for i, c in enumerate(cues, 1))


def join(paths: list[Path | None], durations: list[float], target: Path) -> None:
    """One .srt for clips played one after another: each chapter's cues shifted by its start."""
    cues, offset = [], 0.0
    for path, duration in zip(paths, durations):
        if path is not None:
            cues += [Cue(c.start + offset, c.end + offset, c.text) for c in parse(path.read_text(encoding="utf-8"))]
        offset += duration
    target.write_text(write(cues), encoding="utf-8")

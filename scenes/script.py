"""The narration of a render, line by line, without rendering it.

Each chapter's scene is built to its end with every animation skipped (Manim's dry run) and its
narrated lines collected, named by chapter and step: "05-03" is chapter 5's third narrated step.
The voice is synthesized from these lines, a teacher records them (``./render.sh script``), and a
recording is found by its name.

    python -m scenes.script --trace trace.json --chapters 4,5 --out lines.json

writes ``[{"name": "04-01", "text": "…"}, …]`` for the pipeline; it needs ``ATTENTION_TRACE`` unset or
equal to ``--trace``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from scenes.chapters import BY_NUMBER, Chapter


@dataclass(frozen=True)
class Line:
    name: str  # "05-03": chapter 5, narrated step 3
    text: str


def line_name(chapter_number: int, step: int) -> str:
    return f"{chapter_number:02d}-{step:02d}"


def chapter_lines(chapter: Chapter) -> list[Line]:
    """The chapter's narration, as its scene speaks it for the current Trace."""
    from manim import tempconfig

    scene_class = getattr(importlib.import_module(f"scenes.{chapter.module}"), chapter.scene)
    with (
        tempfile.TemporaryDirectory(prefix="attention-script-") as media,
        tempconfig(
            {
                "dry_run": True,
                "disable_caching": True,
                "quality": "low_quality",
                "media_dir": media,
                "verbosity": "ERROR",
                "progress_bar": "none",
            }
        ),
    ):
        scene = scene_class(skip_animations=True)
        scene.render()
    return [Line(line_name(chapter.number, step), text) for step, text in enumerate(scene.spoken, start=1)]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m scenes.script", description=__doc__.split("\n\n")[0])
    p.add_argument("--trace", required=True)
    p.add_argument("--chapters", required=True, help="chapter numbers separated by commas")
    p.add_argument("--out", required=True)
    args = p.parse_args(argv)
    os.environ["ATTENTION_TRACE"] = str(Path(args.trace).absolute())
    os.environ.pop("ATTENTION_VOICE", None)  # the lines, not their timing
    os.environ.pop("ATTENTION_PROGRESS", None)
    lines = [line for number in args.chapters.split(",") for line in chapter_lines(BY_NUMBER[int(number)])]
    Path(args.out).write_text(
        json.dumps([line.__dict__ for line in lines], ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

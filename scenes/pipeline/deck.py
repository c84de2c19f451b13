"""The slide deck: the chapters' slides as one HTML file with manim-slides, reveal.js beside it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from scenes.pipeline.rendering import RenderError
from scenes.pipeline.request import Request
from scenes.source import PROJECT
from scenes.strings import text
from scenes.theme import THEMES

REVEAL = Path(sys.prefix) / "share" / "reveal.js"  # reveal.js from the npm registry, set up by render.sh


def build_deck(scenes: list[str], request: Request, work: Path, folder: Path) -> None:
    """The chapters' slides as one HTML deck with manim-slides, reveal.js beside it: plays offline."""
    if not (REVEAL / "dist" / "reveal.js").exists():
        raise RenderError(f"reveal.js is missing from {REVEAL}: run ./render.sh setup")
    folder.mkdir()
    shutil.copytree(REVEAL / "dist", folder / "reveal.js" / "dist")
    theme = THEMES[request.theme]
    command = [
        sys.executable,
        "-m",
        "manim_slides",
        "convert",
        "--folder",
        str(work / "slides"),
        "--to",
        "html",
        *scenes,
        str(folder / "explainer.html"),
        "-ccdn_url=reveal.js",
        f"-creveal_version={(REVEAL / '.version').read_text().strip()}",
        f"-ctitle={text(request.lang, 'deck.title')}",
        f"-cbackground_color={theme.background}",
        f"-creveal_theme={'black' if request.theme == 'dark' else 'white'}",
    ]
    result = subprocess.run(command, cwd=PROJECT, capture_output=True, text=True)
    if result.returncode != 0:
        raise RenderError(f"making the slide deck failed:\n{result.stderr.strip()[-2000:]}")

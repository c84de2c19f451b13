"""Reuse: what a chapter's clip depends on (its key), and whether the clip the last render published
can stand for it."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from model.console import say
from scenes import voice
from scenes.chapters import CHAPTERS, Chapter
from scenes.outputs import file_digest
from scenes.pipeline.request import Request
from scenes.source import PROJECT


def drawing_sources(chapter: Chapter) -> list[Path]:
    """The code that draws a chapter: its own module and everything the chapters share, not the
    other chapters' modules nor the pipeline. Editing one chapter redraws only that chapter."""
    others = {c.path for c in CHAPTERS if c is not chapter}
    pipeline = {
        PROJECT / "scenes" / name
        for name in (
            "render.py",
            "outputs.py",
            "slides.py",
            "subtitles.py",
            "soundtrack.py",
            "mandarin_voice.py",
            "batch.py",
        )
    }
    return [
        p
        for p in sorted((PROJECT / "scenes").rglob("*.py"))
        if p not in others | pipeline and PROJECT / "scenes" / "pipeline" not in p.parents
    ]


def chapter_key(chapter: Chapter, request: Request, trace: dict) -> str:
    """What a chapter's clip depends on: reused when unchanged, redrawn otherwise."""
    sources = b"".join(p.read_bytes() for p in drawing_sources(chapter))
    parts = [
        trace["hash"],
        request.quality,
        request.format,
        str(request.transparent),
        request.theme,
        request.preset,
        str(request.burn_subtitles),
        str(request.sections),
        chapter.slug,
        hashlib.sha256(sources).hexdigest(),
        voice_key(chapter, request),
    ]
    return hashlib.sha256("|".join(parts).encode()).hexdigest()


def voice_key(chapter: Chapter, request: Request) -> str:
    """What a chapter's sound depends on: the engine and its voice, or the chapter's recordings."""
    if request.voice in ("none", "tts"):
        return request.voice if request.voice == "none" else voice.voice_id(request.lang)
    recordings = sorted(Path(request.voice).glob(f"{chapter.number:02d}-*"))
    return hashlib.sha256(b"".join(p.name.encode() + p.read_bytes() for p in recordings if p.is_file())).hexdigest()


def previous_chapters(out: Path) -> dict[str, dict]:
    """The chapters the last render in ``out`` published, by slug; none if its manifest is damaged."""
    path = out / "manifest.json"
    if not path.exists():
        return {}
    try:
        chapters = json.loads(path.read_text(encoding="utf-8"))["chapters"]
        return {c["slug"]: c for c in chapters if isinstance(c.get("file"), str) and isinstance(c.get("key"), str)}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        say(f"  ignoring the damaged {path}: every chapter is rendered again")
        return {}


def reusable(entry: dict | None, key: str, out: Path) -> bool:
    """The published clip was made from the same inputs and is byte for byte what was published."""
    if not entry or entry.get("key") != key or not (out / entry["file"]).exists():
        return False
    return entry.get("sha256") == file_digest(out / entry["file"])

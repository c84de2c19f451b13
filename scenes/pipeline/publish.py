"""Publishing: every output staged in a private folder, then moved into the output folder one file
at a time with os.replace, the manifest last; one render at a time per output folder; what killed
renders left behind, swept."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import tempfile
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

from model.console import say
from scenes import soundtrack, subtitles, voice
from scenes.outputs import (
    burn_subtitles,
    contact_sheet,
    file_digest,
    frames,
    join_clips,
    key_frame,
    make_gif,
    probe,
    stage_sections,
)
from scenes.pipeline.deck import build_deck
from scenes.pipeline.rendering import Rendered, scene_name
from scenes.pipeline.request import QUALITIES, VIDEO_FORMATS, Request
from scenes.strings import text
from scenes.theme import THEMES

WORK_PREFIX = "attention-render-"


@contextmanager
def output_lock(out: Path):
    """One render at a time per output folder; a second one waits with a message."""
    out.mkdir(parents=True, exist_ok=True)
    with open(out / ".render.lock", "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            say(f"waiting: another render is writing to {out}")
            fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def publish(staged: Path, out: Path) -> None:
    """Move finished files into place, each replacing its old version in one step; the manifest,
    which names them all, goes last. A folder (png frames) first moves its old version aside."""
    for path in sorted(staged.iterdir(), key=lambda p: p.name == "manifest.json"):
        target = out / path.name
        if path.is_dir() and target.exists():
            os.replace(target, staged / f".old-{path.name}")
            shutil.rmtree(staged / f".old-{path.name}")
        os.replace(path, target)


def sweep_leftovers(out: Path) -> None:
    """Staging folders of renders killed before publishing (we hold the output's lock), and work
    folders of renders killed so hard they could not clean up (named by the pid that made them)."""
    for leftover in out.glob(".staging-*"):
        shutil.rmtree(leftover, ignore_errors=True)
    for work in dead_work_folders():
        shutil.rmtree(work, ignore_errors=True)


def dead_work_folders() -> list[Path]:
    """Work folders (named attention-render-<pid>-…) whose render process is gone."""
    dead = []
    for work in Path(tempfile.gettempdir()).glob(f"{WORK_PREFIX}*-*"):
        pid = work.name.removeprefix(WORK_PREFIX).split("-")[0]
        if pid.isdigit() and not alive(int(pid)):
            dead.append(work)
    return dead


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    return True


def stage_chapter(request, chapter, rendered, old, keys, staged: Path, work: Path) -> tuple[dict, Path]:
    """A chapter's clip (with its sound, in the asked format), subtitles, sections and key frame in
    ``staged``, or the published ones reused: its manifest entry and the folder its files are in."""
    clip_name = chapter.slug if request.format == "png" else f"{chapter.slug}.{request.format}"
    if chapter.slug in rendered:
        done = rendered[chapter.slug]
        clip, track = done.clip, None
        if done.timeline:
            track = work / f"{chapter.slug}-track.wav"
            soundtrack.chapter_track(done.timeline, probe(clip)["duration"], track)
            clip = work / f"{chapter.slug}-voiced{clip.suffix}"
            soundtrack.with_sound(done.clip, track, clip)
        if request.format == "png":
            frames(clip, staged / clip_name)
        elif request.format == "gif":
            make_gif(clip, staged / clip_name)
        elif request.burn_subtitles and done.srt:
            burn_subtitles(clip, done.srt, staged / clip_name, work, THEMES[request.theme])
        else:
            shutil.copy(clip, staged / clip_name)
        if done.srt:
            shutil.copy(done.srt, staged / f"{chapter.slug}.srt")
        if done.sections:
            stage_sections(done.sections, staged / f"{chapter.slug}-sections", track)
        if request.slides and track:
            soundtrack.slides_with_sound(work / "slides", scene_name(chapter, request), track)
        facts = probe(staged / clip_name if request.format == "gif" else clip) | {
            "sha256": file_digest(staged / clip_name),
            "render_seconds": round(done.seconds, 2),
            "peak_memory_mb": round(done.peak_memory_mb, 1),
        }
        key_frame(clip, staged / f"{chapter.slug}.png")
    else:
        facts = {
            k: old[chapter.slug].get(k) for k in ("duration", "frames", "sha256", "render_seconds", "peak_memory_mb")
        }
    entry = {
        "number": chapter.number,
        "slug": chapter.slug,
        "file": clip_name,
        "title": text(request.lang, chapter.title_key),
        "key": keys[chapter.slug],
        **facts,
        **({"sections": f"{chapter.slug}-sections/index.json"} if request.sections else {}),
    }
    return entry, staged if chapter.slug in rendered else request.out


def stage(request, trace, rendered, old, keys, staged: Path, work: Path) -> list[dict]:
    """Write every output into ``staged``, the chapters side by side (each is mostly ffmpeg and
    ffprobe runs); the manifest last names them all."""
    with ThreadPoolExecutor(request.jobs) as pool:
        chapters = list(
            pool.map(lambda c: stage_chapter(request, c, rendered, old, keys, staged, work), request.chapters)
        )
    entries = [entry for entry, _ in chapters]
    clips = [where / entry["file"] for entry, where in chapters]
    srts = [where / f"{entry['slug']}.srt" for entry, where in chapters]
    key_frames = [where / f"{entry['slug']}.png" for entry, where in chapters]
    if request.format in VIDEO_FORMATS:
        # Silent: every clip, a reused one too (its key holds the voice it was made with).
        join_clips(clips, entries, staged / f"explainer.{request.format}", work, silent=request.voice == "none")
    contact_sheet([f for f in key_frames if f.exists()], staged / "contact-sheet.png", THEMES[request.theme].background)
    subtitles.join(
        [p if p.exists() else None for p in srts], [e["duration"] for e in entries], staged / "explainer.srt"
    )
    if request.slides:
        build_deck([scene_name(c, request) for c in request.chapters], request, work, staged / "slides")
    (staged / "trace.json").write_text(json.dumps(trace, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    manifest = {
        "sentence": request.sentence,
        "tokens": trace["tokens"],
        "lang": request.lang,
        "quality": QUALITIES[request.quality],
        "format": request.format,
        "models_digest": trace["models_digest"],
        "corpus_digest": trace["corpus"]["digest"],
        "trace_hash": trace["hash"],
        "chapters": entries,
        "explainer": f"explainer.{request.format}" if request.format in VIDEO_FORMATS else None,
        "slides": "slides/explainer.html" if request.slides else None,
        "theme": request.theme,
        "voice": voice_facts(request, rendered),
        "duration": sum(e["duration"] for e in entries),
    }
    (staged / "manifest.json").write_text(json.dumps(manifest, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return entries


def voice_facts(request: Request, rendered: dict[str, Rendered]) -> dict:
    """What the manifest says of the voice: where it came from, and how many lines this render
    synthesized (0 when every line came from the cache)."""
    if request.voice == "none":
        return {"source": "none"}
    spoken = [line for done in rendered.values() for line in done.timeline]
    facts = (
        {"source": "tts", "engine": voice.ENGINES[request.lang].id}
        if request.voice == "tts"
        else {"source": "recordings", "folder": request.voice}
    )
    return facts | {"lines_rendered": len(spoken), "synthesized": sum(line["synthesized"] for line in spoken)}

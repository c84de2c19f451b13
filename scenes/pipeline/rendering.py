"""Rendering the chapters: one Manim process and media folder per chapter, as many at once as
--jobs, their progress on stderr every 10 s, and what each one made (Rendered)."""

from __future__ import annotations

import os
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path

from model.console import say
from scenes import soundtrack
from scenes.chapters import Chapter
from scenes.pipeline.preloaded import HASH_SEED, Preloaded, PreloadedPool
from scenes.pipeline.request import DEFAULT_PRESET, MANIM_FORMAT, Request
from scenes.source import PROJECT


class RenderError(RuntimeError):
    """A chapter failed to render."""


@dataclass(frozen=True)
class Rendered:
    clip: Path
    srt: Path | None
    sections: Path | None  # Manim's folder of section clips and their index, with --sections
    timeline: list[dict]  # the lines the scene spoke and where (none when silent)
    seconds: float  # wall time of the chapter's Manim process
    peak_memory_mb: float  # its largest resident memory


def run_measured(command: list[str], cwd: Path, env: dict, logs: Path) -> tuple[int, str, str, float]:
    """Run ``command``, its output going to files in ``logs``; its exit code, output, errors and peak
    memory in MB (the process's own largest resident size, as the kernel reports it to wait4)."""
    logs.mkdir(parents=True, exist_ok=True)
    with open(logs / "stdout.txt", "w+") as out, open(logs / "stderr.txt", "w+") as err:
        process = subprocess.Popen(command, cwd=cwd, env=env, stdout=out, stderr=err)
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return process.returncode, out.read(), err.read(), usage.ru_maxrss / 1024


LIGHT_MOTION_SEARCH_QUALITIES = ("h", "k")  # 1080p60, 2160p60


def encoder_options(preset: str, manim_format: str, quality: str) -> str:
    """The ``[video_encoder.options]`` lines for Manim: libx264's preset when Manim writes mp4 (for
    mp4 and gif), Manim's defaults for its other codecs.

    libx264 runs frame threads, not the slice threads it gets by default here: with slice threads
    the same frames encode to slightly different pictures from run to run (measured on chapter 10:
    2 runs in 3 differed), which would make two renders of one sentence, or a batch on a cluster and
    on one machine, disagree. (One picture a frame is also what scenes/skip_frames.py rewrites.)

    At 1080p and above, where encoding is most of a frame's cost, the default preset also gets a
    lighter motion search (subme 1, diamond): on chapters 9 and 10 at 1080p60, rendered side by side,
    0.86x the CPU time (median of three runs each) for 4 % larger files. At 480p it would buy little
    and cost a moment of picture: chapter 4's moving mesh of links fell to SSIM 0.968 against a
    lossless render for a few frames (0.984 without it)."""
    if manim_format != "mp4":
        return ""
    options = f"preset = {preset}\nthread_type = frame\n"
    if preset == DEFAULT_PRESET and quality in LIGHT_MOTION_SEARCH_QUALITIES:
        options += "x264-params = subme=1:me=dia\n"
    return options


def encoder_config(request: Request, work: Path) -> Path:
    """A Manim config file with this render's encoder options."""
    manim_format = MANIM_FORMAT.get(request.format, request.format)
    path = work / f"encoder-{manim_format}.cfg"
    options = encoder_options(request.preset, manim_format, request.quality)
    path.write_text(f"[video_encoder.options]\n{options}", encoding="utf-8")
    return path


def scene_name(chapter: Chapter, request: Request) -> str:
    return f"{chapter.scene}Slide" if request.slides else chapter.scene


def render_chapter(
    chapter: Chapter, request: Request, trace_path: Path, work: Path, preloaded: Preloaded | None = None
) -> Rendered:
    """Render one chapter in its own Manim process and media folder, the process forked by ``preloaded``
    (by a preloaded process of its own when None, as on a Ray worker)."""
    media = work / chapter.slug
    manim_format = MANIM_FORMAT.get(request.format, request.format)
    arguments = [
        "render",
        "--quality",
        request.quality,
        "--media_dir",
        str(media),
        "--format",
        manim_format,
        "--disable_caching",
        "--progress_bar",
        "none",
        "--verbosity",
        "WARNING",
    ]
    if request.transparent:
        arguments.append("--transparent")
    if request.sections:
        arguments.append("--save_sections")
    arguments += ["--config_file", str(encoder_config(request, work))]
    # As slides, the chapter's class comes from scenes/slides.py, which makes each one a manim-slides Slide.
    source = PROJECT / "scenes" / "slides.py" if request.slides else chapter.path
    arguments += [str(source), scene_name(chapter, request)]
    spoken = work / f"{chapter.slug}.voice"
    env = {
        **os.environ,
        "ATTENTION_TRACE": str(trace_path),
        "ATTENTION_THEME": request.theme,
        "ATTENTION_PROGRESS": str(progress_file(work, chapter)),
        "ATTENTION_SLIDES": str(work / "slides"),
        "ATTENTION_VOICE": voice_source(request, work),
        "ATTENTION_VOICE_TIMELINE": str(spoken),
        "PYTHONHASHSEED": HASH_SEED,
    }
    started = time.monotonic()
    if preloaded is None:
        with PreloadedPool(1) as own, own.lend() as preloaded:
            code, out, err, peak = preloaded.run(arguments, env, work / f"{chapter.slug}-logs")
    else:
        code, out, err, peak = preloaded.run(arguments, env, work / f"{chapter.slug}-logs")
    seconds = time.monotonic() - started
    clips = (
        [
            p
            for p in (media / "videos").rglob(f"{scene_name(chapter, request)}.*")
            if p.suffix.lstrip(".") == manim_format and p.parent.name != "sections"
        ]
        if code == 0
        else []
    )
    if not clips:
        tail = "\n".join((err or out).strip().splitlines()[-15:])
        raise RenderError(f"chapter {chapter.number} failed to render:\n{tail}")
    srt = clips[0].with_suffix(".srt")
    sections = clips[0].parent / "sections"
    return Rendered(
        clips[0],
        srt if srt.exists() else None,
        sections if request.sections else None,
        soundtrack.timeline(spoken),
        seconds,
        peak,
    )


def voice_source(request: Request, work: Path) -> str:
    """ATTENTION_VOICE for the scenes: the recordings prepared in the work folder, or tts, or none."""
    return request.voice if request.voice in ("none", "tts") else str(work / "recordings")


def progress_file(work: Path, chapter: Chapter) -> Path:
    return work / f"{chapter.slug}.progress"


def steps_done(path: Path) -> str:
    """The chapter's last "done/total" narrated steps, as its scene reported them."""
    try:
        lines = path.read_text(encoding="utf-8").split()
    except OSError:
        return "starting"
    return f"step {lines[-1]}" if lines else "starting"


class Progress:
    """Which chapters are rendering, how far and for how long, on stderr every few seconds."""

    def __init__(self, work: Path):
        self.work = work
        self.running: dict[Chapter, float] = {}
        self.stop = threading.Event()
        self.lock = threading.Lock()

    def start(self, chapter: Chapter):
        with self.lock:
            self.running[chapter] = time.monotonic()
        say(f"  chapter {chapter.number}: rendering")

    def done(self, chapter: Chapter):
        with self.lock:
            elapsed = time.monotonic() - self.running.pop(chapter)
        say(f"  chapter {chapter.number}: done in {elapsed:.0f}s")

    def report(self):
        while not self.stop.wait(10):
            with self.lock:
                now = time.monotonic()
                busy = ", ".join(
                    f"chapter {c.number} {steps_done(progress_file(self.work, c))} {now - t:.0f}s"
                    for c, t in self.running.items()
                )
            if busy:
                say(f"  rendering: {busy}")


def render_all(
    request: Request, todo: list[Chapter], trace_path: Path, work: Path, manims: PreloadedPool | None = None
) -> dict[str, Rendered]:
    """Render ``todo``, as many chapters at once as --jobs, forked by ``manims`` (by a pool of its own
    when None)."""
    progress = Progress(work)
    reporter = threading.Thread(target=progress.report, daemon=True)
    reporter.start()

    try:
        with (
            nullcontext(manims) if manims is not None else PreloadedPool(min(request.jobs, len(todo))) as manims,
            ThreadPoolExecutor(request.jobs) as pool,
        ):

            def job(chapter: Chapter):
                with manims.lend() as preloaded:
                    progress.start(chapter)
                    result = render_chapter(chapter, request, trace_path, work, preloaded)
                    progress.done(chapter)
                    return chapter.slug, result

            return dict(pool.map(job, todo))
    finally:
        progress.stop.set()

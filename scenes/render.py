"""The render pipeline behind ./render.sh: sentence → Trace → one Manim process per chapter →
published clips, subtitles, key frames, the joined explainer, trace.json and manifest.json.

Every flag is checked before any work starts. Each chapter renders in its own process and media
folder inside a private work folder; finished files are published into the output folder with
os.replace (a killed render never leaves a partial file at a final path). One render at a time
per output folder: a second waits for the first.
"""

from __future__ import annotations

import argparse
import errno
import fcntl
import hashlib
import importlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from model.cli import USAGE_ERROR, Parser, UsageError, language, sentence_and_language
from model.console import interrupt, say
from model.files import sentence_folder
from scenes import soundtrack, subtitles, voice
from scenes.chapters import BY_NUMBER, CHAPTERS, Chapter
from scenes.outputs import (burn_subtitles, contact_sheet, file_digest, frames, join_clips, key_frame, make_gif,
                            probe, stage_sections)
from scenes.source import PROJECT
from scenes.strings import text
from scenes.theme import THEMES, FontError, font_for, missing_glyphs, theme
from scenes.math import TexMissing, check_tex

QUALITIES = {"l": "480p15", "m": "720p30", "h": "1080p60", "k": "2160p60"}  # Manim's -q letters
X264_PRESETS = ("ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow")
# Measured on chapter 10 at 1080p60 (benchmarks/render_speed.py): see README, Performance.
DEFAULT_PRESET = "veryfast"
FORMATS = ("mp4", "webm", "mov", "gif", "png")
VIDEO_FORMATS = ("mp4", "webm", "mov")  # the ones joined into the whole explainer
# A png chapter is a folder of frames, cut from Manim's lossless mov (PNG-coded QuickTime); a gif is
# made from the mp4 with one palette at a lower frame rate (Manim's own GIFs are tens of MB).
MANIM_FORMAT = {"png": "mov", "gif": "mp4"}


class RenderError(RuntimeError):
    """A chapter failed to render."""


# Flags ------------------------------------------------------------------------------------------


def parser() -> argparse.ArgumentParser:
    p = Parser(prog="render.sh", description="Render the attention explainer. Other commands: "
               "./render.sh slides (these flags, and a slide deck), list (the chapters), script (the narration to record), "
               "batch FILE (many sentences; see its --help), "
               "trace and train (see their --help), "
               "setup (install only), test (pytest; arguments go to it).")
    p.add_argument("--sentence", help="the sentence; its last word is the one predicted (default: 猫喜欢抓老鼠)")
    p.add_argument("--corpus", help="your own corpus: one sentence per line, words separated by spaces")
    p.add_argument("--lang", help="zh or en (default: the language the corpus, or else the sentence, is "
                   "written in; zh for the story's sentence)")
    p.add_argument("--quality", default="l", help="l 480p15 (default), m 720p30, h 1080p60, k 2160p60")
    p.add_argument("--chapters", help="chapter numbers separated by commas, or ranges: 4,5 or 3-6 (default: all; "
                   "see ./render.sh list)")
    p.add_argument("--format", default="mp4", help="mp4 (default), webm, mov, gif, or png (a folder of frames)")
    p.add_argument("--transparent", action="store_true", help="transparent background (webm, mov or png)")
    p.add_argument("--theme", default="dark", help="dark (default) or light (for slides and print)")
    p.add_argument("--subtitles", default="file", help="file: .srt beside each clip (default); burn: also "
                   "drawn into the video (mp4, webm, mov)")
    p.add_argument("--sections", action="store_true", help="also one clip per narrated step of each chapter, "
                   "with an index (mp4, webm, mov)")
    p.add_argument("--slides", action="store_true", help="also a slide deck (slides/explainer.html) that plays "
                   "offline in a browser, a slide per step, the narration as speaker notes")
    p.add_argument("--voice", help="tts: narrated by the offline voice for the language (default where the set-up "
                   "installed it); none: silent; or a folder of your recordings, one per line (see ./render.sh script). "
                   "gif and png have no sound")
    p.add_argument("--out", help="output folder (default: out/<sentence>/<lang>-<quality>)")
    p.add_argument("--jobs", default=str(os.cpu_count() or 1), help="chapters rendered at once (default: cores)")
    p.add_argument("--preset", default=DEFAULT_PRESET, help=f"libx264 preset for mp4 (default {DEFAULT_PRESET}: "
                   "fast to encode; medium is Manim's own, slower and a little smaller)")
    return p


@dataclass(frozen=True)
class Request:
    sentence: str
    corpus: str | None
    lang: str
    quality: str
    chapters: tuple[Chapter, ...]
    format: str
    transparent: bool
    out: Path
    jobs: int
    theme: str = "dark"
    preset: str = DEFAULT_PRESET
    burn_subtitles: bool = False
    sections: bool = False
    slides: bool = False
    voice: str = "none"  # "tts", "none" or the folder of a teacher's recordings


def request_from(args) -> Request:
    """Check every flag; a UsageError names the first problem."""
    sentence, lang = sentence_and_language(args.sentence, args.lang, args.corpus)
    if args.quality not in QUALITIES:
        raise UsageError(f"unknown quality {args.quality!r}: use one of {', '.join(QUALITIES)}")
    if args.format not in FORMATS:
        raise UsageError(f"unknown format {args.format!r}: use one of {', '.join(FORMATS)}")
    check_output_options(args)
    try:
        jobs = int(args.jobs)
    except ValueError:
        raise UsageError(f"--jobs {args.jobs!r} is not a number") from None
    if jobs < 1:
        raise UsageError("--jobs must be 1 or more")
    if args.corpus is not None and not Path(args.corpus).is_file():
        raise UsageError(f"cannot read corpus {args.corpus}: no such file")
    out = Path(args.out).absolute() if args.out else (PROJECT / "out" / sentence_folder(sentence)
                                           / f"{lang}-{QUALITIES[args.quality]}")
    check_output_folder(out, args.out)
    return Request(sentence, args.corpus, lang, args.quality, chapters_from(args.chapters),
                   args.format, args.transparent, out, jobs, args.theme, args.preset, args.subtitles == "burn",
                   args.sections, args.slides, voice_from(args.voice, args.format, lang))


def voice_from(value: str | None, format: str, lang: str) -> str:
    """What --voice asks for: "tts", "none" or a folder's absolute path. Left out, the voice is tts where
    the set-up installed the engine for ``lang`` and the format has sound, else none."""
    if value is None:
        return "tts" if format in VIDEO_FORMATS and voice.installed(lang) else "none"
    if value == "none":
        return value
    if format not in VIDEO_FORMATS:
        raise UsageError(f"--format {format} has no sound: use --format mp4, webm or mov for --voice {value}")
    if value == "tts":
        if not voice.installed(lang):
            raise UsageError(f"the {lang} voice is not installed: run ./render.sh setup, or use --voice none")
        return value
    folder = Path(value)
    if not folder.is_dir():
        raise UsageError(f"--voice {value}: no such folder; give tts, none or a folder of recordings "
                         "(./render.sh script writes the lines to record)")
    return str(folder.absolute())


def check_output_options(args) -> None:
    """The options that shape the outputs, and the ones that only work together."""
    if args.transparent and args.format not in ("webm", "mov", "png"):
        raise UsageError("--transparent needs --format webm, mov or png")
    if args.preset not in X264_PRESETS:
        raise UsageError(f"unknown preset {args.preset!r}: use one of {', '.join(X264_PRESETS)}")
    if args.theme not in THEMES:
        raise UsageError(f"unknown theme {args.theme!r}: use dark or light")
    if args.subtitles not in ("file", "burn"):
        raise UsageError(f"--subtitles {args.subtitles!r}: use file or burn")
    for wanted, flag in ((args.subtitles == "burn", "--subtitles burn"), (args.sections, "--sections"),
                         (args.slides, "--slides")):
        if wanted and args.format not in VIDEO_FORMATS:
            raise UsageError(f"{flag} needs a video format: --format mp4, webm or mov")
    if args.subtitles == "burn" and args.transparent:
        raise UsageError("--subtitles burn draws on an opaque band: leave out --transparent")
    if args.slides and args.format != "mp4":
        raise UsageError("--slides needs --format mp4 (what browsers play)")


def chapters_from(value: str | None) -> tuple[Chapter, ...]:
    """The chapters of --chapters: numbers and ranges separated by commas ("1,4-6")."""
    if value is None:
        return CHAPTERS
    numbers = []
    for part in value.split(","):
        first, dash, last = part.partition("-")
        try:
            low, high = int(first), int(last if dash else first)
        except ValueError:
            raise UsageError(f"--chapters {value!r}: give numbers separated by commas, or a range, e.g. 4,5 or "
                             "3-6") from None
        unknown = [n for n in (low, high) if n not in BY_NUMBER]
        if unknown:
            available = ", ".join(str(c.number) for c in CHAPTERS)
            raise UsageError(f"no chapter {unknown[0]}: the chapters are {available} (./render.sh list)")
        if low > high:
            raise UsageError(f"--chapters {value!r}: a range runs from low to high, e.g. 3-6")
        numbers.extend(range(low, high + 1))
    return tuple(BY_NUMBER[n] for n in sorted(set(numbers)))


def check_output_folder(out: Path, given: str | None) -> None:
    """A folder we can create and write in, or a UsageError saying what to choose instead."""
    if given and not Path(given).is_absolute():
        here = Path.cwd().resolve()
        if not (here / given).resolve().is_relative_to(here):
            raise UsageError(f"--out {given} leads out of the current folder: give an absolute path if you "
                             f"mean {(here / given).resolve()}")
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} is a file: give a folder")
    existing = out
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        raise UsageError(f"--out {out}: {existing} is a file, not a folder")
    try:  # permissions alone do not tell (root, read-only file systems): try
        with tempfile.TemporaryFile(dir=existing):
            pass
    except OSError as error:
        raise UsageError(f"--out {out}: cannot write in {existing} ({error.strerror}): choose another folder") from None


def undrawable(tokens: list[str]) -> str | None:
    """Why the sentence's words cannot be drawn (the font has the Chinese and Latin scripts, checked
    already; a word of another script, from a user's corpus, would come out as boxes), or None."""
    missing = missing_glyphs("".join(tokens))
    if missing:
        return (f"the font {theme().font!r} cannot draw {ascii(missing)} in the sentence: use words "
                "written in Chinese characters or Latin letters")
    return None


class SystemMissing(RuntimeError):
    """A system piece rendering needs is missing; the message names the package."""


def check_system(lang: str) -> None:
    """What rendering needs from the system, checked before any work starts."""
    for tool in ("ffmpeg", "ffprobe"):
        if shutil.which(tool) is None:
            raise SystemMissing(f"{tool} is missing: install it with 'apt-get install ffmpeg' (./render.sh does)")
    try:
        importlib.import_module("manimpango")  # Manim's text layout, built against Pango
    except ImportError as error:
        raise SystemMissing(f"Pango text layout is unavailable ({error}): install 'apt-get install libpango1.0-dev "
                            "libcairo2-dev pkg-config', then run ./render.sh setup") from None
    try:
        font_for(text(lang, "ch01.title") + text("zh", "ch01.title"))
    except FontError as error:
        raise SystemMissing(str(error)) from None
    try:
        check_tex()
    except TexMissing as error:
        raise SystemMissing(str(error)) from None


# Rendering --------------------------------------------------------------------------------------


STOPPING_SECONDS = 10  # what a stopped trace process gets to stop its training workers


def passed_on(command: list[str]) -> tuple[int, list[str]]:
    """Run ``command``, passing on each line it writes to stderr as it comes, indented, up to an error
    or a traceback (the caller reports those); its exit code and every line."""
    lines = []
    with subprocess.Popen(command, cwd=PROJECT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True) as process:
        try:
            for line in process.stderr:
                lines.append(line.rstrip("\n"))
                if lines[-1].startswith(("error:", "Traceback")):
                    break
                say(f"  {lines[-1]}")
            lines.extend(line.rstrip("\n") for line in process.stderr)
        except BaseException:  # interrupted: stop it too, letting it stop its own workers first
            process.terminate()
            try:
                process.wait(timeout=STOPPING_SECONDS)
            except subprocess.TimeoutExpired:
                process.kill()
            raise
    return process.returncode, lines


def build_trace(request: Request, work: Path) -> dict:
    """The Trace, built in its own process (the scenes never load torch); UsageError if refused.
    What the process reports as it goes (training on a new corpus: a minute or more) is passed on."""
    path = work / "trace.json"
    command = [sys.executable, "-m", "model.cli", "trace", "--sentence", request.sentence,
               "--lang", request.lang, "--out", str(path)]
    if request.corpus:
        command += ["--corpus", request.corpus]
    code, lines = passed_on(command)
    if code == USAGE_ERROR:
        raise UsageError(lines[-1].removeprefix("error: "))
    if code != 0:
        stderr = "\n".join(lines).strip()
        raise RenderError(f"building the trace failed:\n{stderr}")
    return json.loads(path.read_text(encoding="utf-8"))


def drawing_sources(chapter: Chapter) -> list[Path]:
    """The code that draws a chapter: its own module and everything the chapters share, not the
    other chapters' modules nor the pipeline. Editing one chapter redraws only that chapter."""
    others = {c.path for c in CHAPTERS if c is not chapter}
    pipeline = {PROJECT / "scenes" / name for name in ("render.py", "outputs.py", "slides.py", "subtitles.py",
                                                       "soundtrack.py", "mandarin_voice.py")}
    return [p for p in sorted((PROJECT / "scenes").rglob("*.py")) if p not in others | pipeline]


def chapter_key(chapter: Chapter, request: Request, trace: dict) -> str:
    """What a chapter's clip depends on: reused when unchanged, redrawn otherwise."""
    sources = b"".join(p.read_bytes() for p in drawing_sources(chapter))
    parts = [trace["hash"], request.quality, request.format, str(request.transparent), request.theme, request.preset,
             str(request.burn_subtitles), str(request.sections), chapter.slug, hashlib.sha256(sources).hexdigest(),
             voice_key(chapter, request)]
    return hashlib.sha256("|".join(parts).encode()).hexdigest()


def voice_key(chapter: Chapter, request: Request) -> str:
    """What a chapter's sound depends on: the engine and its voice, or the chapter's recordings."""
    if request.voice in ("none", "tts"):
        return request.voice if request.voice == "none" else voice.voice_id(request.lang)
    recordings = sorted(Path(request.voice).glob(f"{chapter.number:02d}-*"))
    return hashlib.sha256(b"".join(p.name.encode() + p.read_bytes() for p in recordings if p.is_file())).hexdigest()


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


def encoder_config(request: Request, work: Path) -> Path:
    """A Manim config file with the encoder options for this render: libx264's preset when Manim
    writes mp4 (for mp4 and gif), Manim's defaults for its other codecs."""
    manim_format = MANIM_FORMAT.get(request.format, request.format)
    options = f"preset = {request.preset}\n" if manim_format == "mp4" else ""
    path = work / f"encoder-{manim_format}.cfg"
    path.write_text(f"[video_encoder.options]\n{options}", encoding="utf-8")
    return path


def scene_name(chapter: Chapter, request: Request) -> str:
    return f"{chapter.scene}Slide" if request.slides else chapter.scene


def render_chapter(chapter: Chapter, request: Request, trace_path: Path, work: Path) -> Rendered:
    """Render one chapter in its own Manim process and media folder."""
    media = work / chapter.slug
    manim_format = MANIM_FORMAT.get(request.format, request.format)
    command = [sys.executable, "-m", "manim", "render", "--quality", request.quality,
               "--media_dir", str(media), "--format", manim_format, "--disable_caching",
               "--progress_bar", "none", "--verbosity", "WARNING"]
    if request.transparent:
        command.append("--transparent")
    if request.sections:
        command.append("--save_sections")
    command += ["--config_file", str(encoder_config(request, work))]
    # As slides, the chapter's class comes from scenes/slides.py, which makes each one a manim-slides Slide.
    source = PROJECT / "scenes" / "slides.py" if request.slides else chapter.path
    command += [str(source), scene_name(chapter, request)]
    spoken = work / f"{chapter.slug}.voice"
    env = {**os.environ, "ATTENTION_TRACE": str(trace_path),
           "ATTENTION_THEME": request.theme, "ATTENTION_PROGRESS": str(progress_file(work, chapter)),
           "ATTENTION_SLIDES": str(work / "slides"), "ATTENTION_VOICE": voice_source(request, work),
           "ATTENTION_VOICE_TIMELINE": str(spoken)}
    started = time.monotonic()
    code, out, err, peak = run_measured(command, PROJECT, env, work / f"{chapter.slug}-logs")
    seconds = time.monotonic() - started
    clips = [p for p in (media / "videos").rglob(f"{scene_name(chapter, request)}.*")
             if p.suffix.lstrip(".") == manim_format and p.parent.name != "sections"] if code == 0 else []
    if not clips:
        tail = "\n".join((err or out).strip().splitlines()[-15:])
        raise RenderError(f"chapter {chapter.number} failed to render:\n{tail}")
    srt = clips[0].with_suffix(".srt")
    sections = clips[0].parent / "sections"
    return Rendered(clips[0], srt if srt.exists() else None, sections if request.sections else None,
                    soundtrack.timeline(spoken), seconds, peak)


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
                busy = ", ".join(f"chapter {c.number} {steps_done(progress_file(self.work, c))} {now - t:.0f}s"
                                 for c, t in self.running.items())
            if busy:
                say(f"  rendering: {busy}")


def render_all(request: Request, todo: list[Chapter], trace_path: Path, work: Path) -> dict[str, Rendered]:
    progress = Progress(work)
    reporter = threading.Thread(target=progress.report, daemon=True)
    reporter.start()

    def job(chapter: Chapter):
        progress.start(chapter)
        result = render_chapter(chapter, request, trace_path, work)
        progress.done(chapter)
        return chapter.slug, result

    try:
        with ThreadPoolExecutor(request.jobs) as pool:
            return dict(pool.map(job, todo))
    finally:
        progress.stop.set()


# Publishing -------------------------------------------------------------------------------------


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


REVEAL = Path(sys.prefix) / "share" / "reveal.js"  # reveal.js from the npm registry, set up by render.sh


def build_deck(scenes: list[str], request: Request, work: Path, folder: Path) -> None:
    """The chapters' slides as one HTML deck with manim-slides, reveal.js beside it: plays offline."""
    if not (REVEAL / "dist" / "reveal.js").exists():
        raise RenderError(f"reveal.js is missing from {REVEAL}: run ./render.sh setup")
    folder.mkdir()
    shutil.copytree(REVEAL / "dist", folder / "reveal.js" / "dist")
    theme = THEMES[request.theme]
    command = [sys.executable, "-m", "manim_slides", "convert", "--folder", str(work / "slides"), "--to", "html",
               *scenes, str(folder / "explainer.html"), "-ccdn_url=reveal.js",
               f"-creveal_version={(REVEAL / '.version').read_text().strip()}",
               f"-ctitle={text(request.lang, 'deck.title')}", f"-cbackground_color={theme.background}",
               f"-creveal_theme={'black' if request.theme == 'dark' else 'white'}"]
    result = subprocess.run(command, cwd=PROJECT, capture_output=True, text=True)
    if result.returncode != 0:
        raise RenderError(f"making the slide deck failed:\n{result.stderr.strip()[-2000:]}")


WORK_PREFIX = "attention-render-"


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


def run(request: Request) -> Path:
    started = time.monotonic()
    check_system(request.lang)
    with tempfile.TemporaryDirectory(prefix=f"{WORK_PREFIX}{os.getpid()}-") as tmp:
        work = Path(tmp)
        say(f"building the trace for {request.sentence!r}")
        trace = build_trace(request, work)  # a refused sentence stops here, before anything is written
        problem = undrawable(trace["tokens"])
        if problem:
            raise UsageError(problem)
        if request.voice not in ("none", "tts"):  # every recording checked before anything is written
            say(f"checking the recordings in {request.voice}")
            lines = script_lines(request.chapters, work / "trace.json", work, request.jobs)
            soundtrack.prepare_recordings(Path(request.voice), lines, work / "recordings")
        with output_lock(request.out):
            sweep_leftovers(request.out)
            old = previous_chapters(request.out)
            keys = {c.slug: chapter_key(c, request, trace) for c in request.chapters}
            # A deck needs every chapter's slides, which only a render makes: with --slides nothing is reused.
            todo = [c for c in request.chapters
                    if request.slides or not reusable(old.get(c.slug), keys[c.slug], request.out)]
            for chapter in request.chapters:
                if chapter not in todo:
                    say(f"  chapter {chapter.number}: unchanged, reused")
            rendered = render_all(request, todo, work / "trace.json", work)
            staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=request.out))
            try:  # a failure here (a full disk) leaves the previous output as it was
                entries = stage(request, trace, rendered, old, keys, staging, work)
                publish(staging, request.out)
            finally:
                shutil.rmtree(staging, ignore_errors=True)
    spoken = [line for done in rendered.values() for line in done.timeline]
    if request.voice == "tts" and spoken:
        made = sum(line["synthesized"] for line in spoken)
        say(f"voice: {made} lines synthesized, {len(spoken) - made} from the cache")
    say(f"done in {time.monotonic() - started:.0f}s: {request.out}")
    for entry in entries:
        say(f"  {entry['file']}  {entry['duration']:.1f}s")
    return request.out


def stage(request, trace, rendered, old, keys, staged: Path, work: Path) -> list[dict]:
    """Write every output into ``staged``; the manifest last names them all."""
    entries, clips, srts, key_frames = [], [], [], []
    for chapter in request.chapters:
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
                "sha256": file_digest(staged / clip_name), "render_seconds": round(done.seconds, 2),
                "peak_memory_mb": round(done.peak_memory_mb, 1)}
            key_frame(clip, staged / f"{chapter.slug}.png")
        else:
            facts = {k: old[chapter.slug].get(k) for k in ("duration", "frames", "sha256", "render_seconds",
                                                           "peak_memory_mb")}
        where = staged if chapter.slug in rendered else request.out
        entries.append({"number": chapter.number, "slug": chapter.slug, "file": clip_name,
                        "title": text(request.lang, chapter.title_key), "key": keys[chapter.slug], **facts,
                        **({"sections": f"{chapter.slug}-sections/index.json"} if request.sections else {})})
        clips.append(where / clip_name)
        srts.append(where / f"{chapter.slug}.srt")
        key_frames.append(where / f"{chapter.slug}.png")
    if request.format in VIDEO_FORMATS:
        join_clips(clips, entries, staged / f"explainer.{request.format}", work)
    contact_sheet([f for f in key_frames if f.exists()], staged / "contact-sheet.png", THEMES[request.theme].background)
    subtitles.join([p if p.exists() else None for p in srts], [e["duration"] for e in entries],
                   staged / "explainer.srt")
    if request.slides:
        build_deck([scene_name(c, request) for c in request.chapters], request, work, staged / "slides")
    (staged / "trace.json").write_text(json.dumps(trace, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    manifest = {"sentence": request.sentence, "tokens": trace["tokens"], "lang": request.lang,
                "quality": QUALITIES[request.quality], "format": request.format,
                "models_digest": trace["models_digest"], "corpus_digest": trace["corpus"]["digest"],
                "trace_hash": trace["hash"], "chapters": entries,
                "explainer": f"explainer.{request.format}" if request.format in VIDEO_FORMATS else None,
                "slides": "slides/explainer.html" if request.slides else None, "theme": request.theme,
                "voice": voice_facts(request, rendered),
                "duration": sum(e["duration"] for e in entries)}
    (staged / "manifest.json").write_text(json.dumps(manifest, ensure_ascii=False, indent=1) + "\n",
                                          encoding="utf-8")
    return entries


def voice_facts(request: Request, rendered: dict[str, Rendered]) -> dict:
    """What the manifest says of the voice: where it came from, and how many lines this render
    synthesized (0 when every line came from the cache)."""
    if request.voice == "none":
        return {"source": "none"}
    spoken = [line for done in rendered.values() for line in done.timeline]
    facts = {"source": "tts", "engine": voice.ENGINES[request.lang].id} if request.voice == "tts" else {
        "source": "recordings", "folder": request.voice}
    return facts | {"lines_rendered": len(spoken), "synthesized": sum(line["synthesized"] for line in spoken)}


def script_lines(chapters: tuple[Chapter, ...] | list[Chapter], trace_path: Path, work: Path, jobs: int) -> list:
    """The chapters' narration (scenes.script, one process per core, each on a share of the chapters)."""
    from scenes.script import Line

    shares = [chapters[i::jobs] for i in range(min(jobs, len(chapters)))]
    commands = [[sys.executable, "-m", "scenes.script", "--trace", str(trace_path), "--chapters",
                 ",".join(str(c.number) for c in share), "--out", str(work / f"lines-{i}.json")]
                for i, share in enumerate(shares)]
    processes = [subprocess.Popen(command, cwd=PROJECT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                 for command in commands]
    for process in processes:
        _, errors = process.communicate()
        if process.returncode != 0:
            raise RenderError(f"reading the narration failed:\n{errors.strip()[-2000:]}")
    lines = [Line(**line) for i in range(len(shares))
             for line in json.loads((work / f"lines-{i}.json").read_text(encoding="utf-8"))]
    return sorted(lines, key=lambda line: line.name)


def write_script(argv: list[str]) -> None:
    """./render.sh script [--sentence … --lang … --corpus … --chapters …] --out DIR: the narration of that
    render, a file per line (05-03.txt) and lines.tsv (name, tab, line), for a teacher to record."""
    p = Parser(prog="render.sh script", description="Write the narration of a render, one file per line "
               "(e.g. 05-03.txt, chapter 5's third line) and lines.tsv, to record as 05-03.wav (or .flac, .mp3, .m4a) "
               "and render with --voice DIR.")
    for flag in ("--sentence", "--corpus", "--lang", "--chapters"):
        p.add_argument(flag, help=f"as for ./render.sh {flag}")
    p.add_argument("--out", required=True, help="the folder to write the lines into (your recordings go beside them)")
    args = p.parse_args(argv)
    sentence, lang = sentence_and_language(args.sentence, args.lang, args.corpus)
    if args.corpus is not None and not Path(args.corpus).is_file():
        raise UsageError(f"cannot read corpus {args.corpus}: no such file")
    out = Path(args.out).absolute()
    check_output_folder(out, args.out)
    with tempfile.TemporaryDirectory(prefix=f"{WORK_PREFIX}{os.getpid()}-") as tmp:
        work = Path(tmp)
        say(f"building the trace for {sentence!r}")
        build_trace(Request(sentence, args.corpus, lang, "l", (), "mp4", False, out, 1), work)
        chapters = chapters_from(args.chapters)
        say(f"reading the narration of {len(chapters)} chapters")
        lines = script_lines(chapters, work / "trace.json", work, os.cpu_count() or 1)
    out.mkdir(parents=True, exist_ok=True)
    for name, content in [(f"{line.name}.txt", line.text + "\n") for line in lines] + [
            ("lines.tsv", "".join(f"{line.name}\t{line.text}\n" for line in lines))]:
        temporary = out / f".{name}.{os.getpid()}"
        temporary.write_text(content, encoding="utf-8")
        os.replace(temporary, out / name)
    say(f"wrote {len(lines)} lines to {out}: record each as <name>.wav (or .flac, .mp3, .m4a) beside it, then "
        f"./render.sh --voice {out}")


def list_chapters(argv: list[str]) -> None:
    """./render.sh list [--lang zh|en]: each chapter's number and title."""
    p = Parser(prog="render.sh list", description="The chapters, by number (for --chapters).")
    p.add_argument("--lang", type=language, default="zh", help="zh (default) or en")
    lang = p.parse_args(argv).lang
    for chapter in CHAPTERS:
        print(f"{chapter.number:2d}  {text(lang, chapter.title_key)}")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    signal.signal(signal.SIGTERM, interrupt)
    try:
        if argv[:1] == ["list"]:
            list_chapters(argv[1:])
            return 0
        if argv[:1] == ["script"]:
            write_script(argv[1:])
            return 0
        if argv[:1] == ["batch"]:
            from scenes.batch import run_batch

            return run_batch(argv[1:])
        run(request_from(parser().parse_args(argv)))
    except UsageError as error:
        say(f"error: {error}")
        return USAGE_ERROR
    except (RenderError, SystemMissing) as error:
        say(f"error: {error}")
        return 1
    except subprocess.CalledProcessError as error:
        say(f"error: {Path(error.cmd[0]).name} failed while writing the outputs (exit {error.returncode}): if the "
            "disk is full, free some space or choose another --out; the previous output is unchanged")
        return 1
    except OSError as error:
        if error.errno not in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
            raise
        say(f"error: no space left to write {error.filename or 'the output'}: free some space or choose another "
            "--out; the previous output is unchanged")
        return 1
    except KeyboardInterrupt:
        say("interrupted: nothing was published")
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())

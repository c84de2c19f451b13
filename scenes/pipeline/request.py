"""What a render is asked for: ./render.sh's flags, every one checked before any work starts, and
the Request they make (a UsageError names the first problem)."""

from __future__ import annotations

import argparse
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from model.cli import Parser, UsageError, sentence_and_language
from model.files import sentence_folder
from scenes import voice
from scenes.chapters import BY_NUMBER, CHAPTERS, Chapter
from scenes.source import PROJECT
from scenes.theme import THEMES

QUALITIES = {"l": "480p15", "m": "720p30", "h": "1080p60", "k": "2160p60"}  # Manim's -q letters

X264_PRESETS = ("ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow")

# Measured on chapter 10 at 1080p60 (benchmarks/render_speed.py): see README, Performance.
DEFAULT_PRESET = "veryfast"

FORMATS = ("mp4", "webm", "mov", "gif", "png")

VIDEO_FORMATS = ("mp4", "webm", "mov")  # the ones joined into the whole explainer

# A png chapter is a folder of frames, cut from Manim's lossless mov (PNG-coded QuickTime); a gif is
# made from the mp4 with one palette at a lower frame rate (Manim's own GIFs are tens of MB).
MANIM_FORMAT = {"png": "mov", "gif": "mp4"}


def parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="render.sh",
        description="Render the attention explainer. Other commands: "
        "./render.sh slides (these flags, and a slide deck), list (the chapters), script (the narration to record), "
        "batch FILE (many sentences; see its --help), "
        "trace and train (see their --help), "
        "setup (install only), test (pytest; arguments go to it).",
    )
    p.add_argument("--sentence", help="the sentence; its last word is the one predicted (default: 猫喜欢抓老鼠)")
    p.add_argument("--corpus", help="your own corpus: one sentence per line, words separated by spaces")
    p.add_argument(
        "--lang",
        help="zh or en (default: the language the corpus, or else the sentence, is "
        "written in; zh for the story's sentence)",
    )
    p.add_argument("--quality", default="l", help="l 480p15 (default), m 720p30, h 1080p60, k 2160p60")
    p.add_argument(
        "--chapters",
        help="chapter numbers separated by commas, or ranges: 4,5 or 3-6 (default: all; see ./render.sh list)",
    )
    p.add_argument("--format", default="mp4", help="mp4 (default), webm, mov, gif, or png (a folder of frames)")
    p.add_argument("--transparent", action="store_true", help="transparent background (webm, mov or png)")
    p.add_argument("--theme", default="dark", help="dark (default) or light (for slides and print)")
    p.add_argument(
        "--subtitles",
        default="file",
        help="file: .srt beside each clip (default); burn: also drawn into the video (mp4, webm, mov)",
    )
    p.add_argument(
        "--sections",
        action="store_true",
        help="also one clip per narrated step of each chapter, with an index (mp4, webm, mov)",
    )
    p.add_argument(
        "--slides",
        action="store_true",
        help="also a slide deck (slides/explainer.html) that plays "
        "offline in a browser, a slide per step, the narration as speaker notes",
    )
    p.add_argument(
        "--voice",
        help="tts: narrated by the offline voice for the language (default where the set-up "
        "installed it); none: silent; or a folder of your recordings, one per line (see ./render.sh script). "
        "gif and png have no sound",
    )
    p.add_argument("--out", help="output folder (default: out/<sentence>/<lang>-<quality>)")
    p.add_argument("--jobs", default=str(os.cpu_count() or 1), help="chapters rendered at once (default: cores)")
    p.add_argument(
        "--preset",
        default=DEFAULT_PRESET,
        help=f"libx264 preset for mp4 (default {DEFAULT_PRESET}, at 1080p and above with a lighter motion search: "
        "fast to encode; medium is Manim's own, slower and a little smaller)",
    )
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
    out = (
        Path(args.out).absolute()
        if args.out
        else (PROJECT / "out" / sentence_folder(sentence) / f"{lang}-{QUALITIES[args.quality]}")
    )
    check_output_folder(out, args.out)
    return Request(
        sentence,
        args.corpus,
        lang,
        args.quality,
        chapters_from(args.chapters),
        args.format,
        args.transparent,
        out,
        jobs,
        args.theme,
        args.preset,
        args.subtitles == "burn",
        args.sections,
        args.slides,
        voice_from(args.voice, args.format, lang),
    )


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
        raise UsageError(
            f"--voice {value}: no such folder; give tts, none or a folder of recordings "
            "(./render.sh script writes the lines to record)"
        )
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
    for wanted, flag in (
        (args.subtitles == "burn", "--subtitles burn"),
        (args.sections, "--sections"),
        (args.slides, "--slides"),
    ):
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
            raise UsageError(
                f"--chapters {value!r}: give numbers separated by commas, or a range, e.g. 4,5 or 3-6"
            ) from None
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
            raise UsageError(
                f"--out {given} leads out of the current folder: give an absolute path if you "
                f"mean {(here / given).resolve()}"
            )
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

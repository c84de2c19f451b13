"""./render.sh's command: sentence → Trace → one Manim process per chapter → published clips,
subtitles, key frames, the joined explainer, trace.json and manifest.json; and its other commands
(list, script, batch).

This module holds the order of the steps (run), the Trace's own process, and the commands; each
stage is a module of scenes/pipeline/:

- request.py    the flags, every one checked before any work starts, and the Request they make
- system.py     what rendering needs from the machine and the font
- keys.py       what a chapter's clip depends on, and whether the published one can be reused
- rendering.py  one Manim process per chapter, in parallel, and their progress
- preloaded.py  the processes that import Manim once and fork each chapter's process
- publish.py    staging every output, the lock on the output folder, moving files into place
- deck.py       the slide deck (manim-slides, reveal.js)
- narration.py  the chapters' narration, for the voice and for ./render.sh script

Each chapter renders in its own process and media folder inside a private work folder; finished
files are published into the output folder with os.replace (a killed render never leaves a partial
file at a final path). One render at a time per output folder: a second waits for the first.

What scenes/batch.py, the tests and the benchmarks use as render.<name> stays importable from here
(imported ``as`` itself where this module does not use it).
"""

from __future__ import annotations

import errno
import importlib  # noqa: F401  (the system check's; the tests reach it, as before the split, as render.importlib)
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

from model.cli import USAGE_ERROR, Parser, UsageError, language, sentence_and_language
from model.console import interrupt, say
from scenes import soundtrack
from scenes.chapters import CHAPTERS, Chapter
from scenes.pipeline.keys import chapter_key, previous_chapters, reusable
from scenes.pipeline.keys import drawing_sources as drawing_sources
from scenes.pipeline.narration import script_lines
from scenes.pipeline.preloaded import PreloadedPool
from scenes.pipeline.publish import WORK_PREFIX, output_lock, publish, stage, sweep_leftovers
from scenes.pipeline.publish import dead_work_folders as dead_work_folders
from scenes.pipeline.rendering import Rendered as Rendered
from scenes.pipeline.rendering import RenderError, render_all
from scenes.pipeline.rendering import render_chapter as render_chapter
from scenes.pipeline.rendering import run_measured as run_measured
from scenes.pipeline.request import QUALITIES as QUALITIES
from scenes.pipeline.request import Request, chapters_from, check_output_folder, parser, request_from
from scenes.pipeline.system import SystemMissing, check_system, undrawable
from scenes.source import PROJECT
from scenes.strings import text

# The Trace's process -----------------------------------------------------------------------------


STOPPING_SECONDS = 10  # what a stopped trace process gets to stop its training workers


def passed_on(command: list[str]) -> tuple[int, list[str]]:
    """Run ``command``, passing on each line it writes to stderr as it comes, indented, up to an error
    or a traceback (the caller reports those); its exit code and every line."""
    lines = []
    with subprocess.Popen(
        command, cwd=PROJECT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    ) as process:
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
    command = [
        sys.executable,
        "-m",
        "model.cli",
        "trace",
        "--sentence",
        request.sentence,
        "--lang",
        request.lang,
        "--out",
        str(path),
    ]
    if request.corpus:
        command += ["--corpus", request.corpus]
    code, lines = passed_on(command)
    if code == USAGE_ERROR:
        raise UsageError(lines[-1].removeprefix("error: "))
    if code != 0:
        stderr = "\n".join(lines).strip()
        raise RenderError(f"building the trace failed:\n{stderr}")
    return json.loads(path.read_text(encoding="utf-8"))


# The commands -------------------------------------------------------------------------------------


def run(request: Request) -> Path:
    started = time.monotonic()
    check_system(request.lang)
    with tempfile.TemporaryDirectory(prefix=f"{WORK_PREFIX}{os.getpid()}-") as tmp, ExitStack() as early:
        work = Path(tmp)
        manims = None
        if not (request.out / "manifest.json").exists():
            # A first render renders every chapter: their processes import Manim while the Trace builds.
            manims = early.enter_context(PreloadedPool(min(request.jobs, len(request.chapters))))
        say(f"building the trace for {request.sentence!r}")
        trace = checked_trace(request, work, request.jobs)
        with output_lock(request.out):
            sweep_leftovers(request.out)
            old = previous_chapters(request.out)
            keys = {c.slug: chapter_key(c, request, trace) for c in request.chapters}
            todo = to_render(request, old, keys)
            for chapter in request.chapters:
                if chapter not in todo:
                    say(f"  chapter {chapter.number}: unchanged, reused")
            rendered = render_all(request, todo, work / "trace.json", work, manims)
            entries = stage_and_publish(request, trace, rendered, old, keys, work)
    spoken = [line for done in rendered.values() for line in done.timeline]
    if request.voice == "tts" and spoken:
        made = sum(line["synthesized"] for line in spoken)
        say(f"voice: {made} lines synthesized, {len(spoken) - made} from the cache")
    say(f"done in {time.monotonic() - started:.0f}s: {request.out}")
    for entry in entries:
        say(f"  {entry['file']}  {entry['duration']:.1f}s")
    return request.out


def checked_trace(request: Request, work: Path, jobs: int) -> dict:
    """The Trace (in work/trace.json), the sentence checked drawable and a teacher's recordings checked
    and prepared: a refused sentence or a bad recording stops here, before anything is written."""
    trace = build_trace(request, work)
    problem = undrawable(trace["tokens"])
    if problem:
        raise UsageError(problem)
    if request.voice not in ("none", "tts"):
        say(f"checking the recordings in {request.voice}")
        lines = script_lines(request.chapters, work / "trace.json", work, jobs)
        soundtrack.prepare_recordings(Path(request.voice), lines, work / "recordings")
    return trace


def to_render(request: Request, old: dict[str, dict], keys: dict[str, str]) -> list[Chapter]:
    """The chapters whose published clip cannot be reused. A deck needs every chapter's slides, which
    only a render makes: with --slides nothing is reused."""
    return [c for c in request.chapters if request.slides or not reusable(old.get(c.slug), keys[c.slug], request.out)]


def stage_and_publish(request: Request, trace: dict, rendered: dict, old: dict, keys: dict, work: Path) -> list[dict]:
    """Every output staged beside the output folder, then published; a failure while staging (a full
    disk) leaves the previous output as it was. The caller holds the output's lock."""
    staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=request.out))
    try:
        entries = stage(request, trace, rendered, old, keys, staging, work)
        publish(staging, request.out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return entries


def write_script(argv: list[str]) -> None:
    """./render.sh script [--sentence … --lang … --corpus … --chapters …] --out DIR: the narration of that
    render, a file per line (05-03.txt) and lines.tsv (name, tab, line), for a teacher to record."""
    p = Parser(
        prog="render.sh script",
        description="Write the narration of a render, one file per line "
        "(e.g. 05-03.txt, chapter 5's third line) and lines.tsv, to record as 05-03.wav (or .flac, .mp3, .m4a) "
        "and render with --voice DIR.",
    )
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
        ("lines.tsv", "".join(f"{line.name}\t{line.text}\n" for line in lines))
    ]:
        temporary = out / f".{name}.{os.getpid()}"
        temporary.write_text(content, encoding="utf-8")
        os.replace(temporary, out / name)
    say(
        f"wrote {len(lines)} lines to {out}: record each as <name>.wav (or .flac, .mp3, .m4a) beside it, then "
        f"./render.sh --voice {out}"
    )


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
        say(
            f"error: {Path(error.cmd[0]).name} failed while writing the outputs (exit {error.returncode}): if the "
            "disk is full, free some space or choose another --out; the previous output is unchanged"
        )
        return 1
    except OSError as error:
        if error.errno not in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
            raise
        say(
            f"error: no space left to write {error.filename or 'the output'}: free some space or choose another "
            "--out; the previous output is unchanged"
        )
        return 1
    except KeyboardInterrupt:
        say("interrupted: nothing was published")
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())

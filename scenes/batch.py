"""Many renders at once: ``./render.sh batch FILE [flags]`` (issue 43).

FILE has one job a line: a sentence, optionally followed by its own flags (``狗喜欢抓飞盘 --quality h``,
``the dog likes to catch frisbees --lang en``); ``#`` starts a comment; the flags after FILE apply to
every job, a job's own flags win. Each job publishes where a single render would:
``out/<sentence>/<lang>-<quality>/``, or under ``--out DIR`` as ``DIR/<sentence>/<lang>-<quality>/``.

Every line is checked before any work starts (the single render's checks); a bad line is reported by
its number. Then one Trace per job (the models for a corpus are trained once and cached), and the
chapters of all jobs rendered together over the cores — locally, or with ``--ray`` as Ray tasks on a
cluster — each job published as soon as its chapters are done, with the single render's reuse keys
(a rerun after a kill redoes only the jobs not yet published). A job that fails does not stop the
others; at the end a summary table on the terminal and ``batch-summary.json`` beside the outputs,
and exit 1 if any job failed.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import tempfile
import threading
import time
import unicodedata
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field, replace
from pathlib import Path

from model.cli import Parser, UsageError
from model.console import say
from model.files import sentence_folder
from scenes import render
from scenes.chapters import Chapter
from scenes.pipeline.preloaded import PreloadedPool
from scenes.source import PROJECT


@dataclass
class Job:
    number: int  # its line in FILE
    text: str
    request: render.Request
    work: Path | None = None
    trace: dict | None = None
    todo: list[Chapter] = field(default_factory=list)
    keys: dict[str, str] = field(default_factory=dict)
    old: dict = field(default_factory=dict)
    rendered: dict[str, render.Rendered] = field(default_factory=dict)
    pending: int = 0
    error: str | None = None
    started: float = 0.0
    seconds: float = 0.0
    published: bool = False


# The file ------------------------------------------------------------------------------------------


def batch_parser() -> Parser:
    p = Parser(
        prog="render.sh batch",
        description="Render a list of sentences: one job a line in FILE, a "
        "sentence optionally followed by its own flags; '#' starts a comment. The flags after FILE "
        "(every flag of ./render.sh) apply to every job; --out DIR puts each job in DIR/<sentence>/<lang>-<quality>.",
    )
    p.add_argument("file", help="the jobs, one a line")
    p.add_argument(
        "--ray",
        help="run the chapters as Ray tasks: 'local' starts a Ray cluster on this machine, "
        "or give a cluster's address (host:port); needs pip install '.[cluster]'",
    )
    return p


def job_lines(path: Path) -> list[tuple[int, list[str]]]:
    """Each job's line number and words (shell-style quoting), comments and blank lines left out."""
    try:
        content = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"cannot read the batch file {path}: {getattr(error, 'strerror', None) or error}") from None
    jobs = []
    for number, line in enumerate(content.splitlines(), start=1):
        try:
            words = shlex.split(line, comments=True)
        except ValueError as error:
            raise UsageError(f"{path} line {number}: {error}") from None
        if words:
            jobs.append((number, words))
    if not jobs:
        raise UsageError(f"{path} has no jobs: write one sentence a line")
    return jobs


def job_argv(words: list[str], common: list[str], out_root: Path | None) -> list[str]:
    """The render flags of a job: the sentence (its words up to the first flag), the common flags, its own."""
    first_flag = next((i for i, w in enumerate(words) if w.startswith("--")), len(words))
    if first_flag == 0:
        raise UsageError("the line starts with a flag: write the sentence first")
    argv = ["--sentence", " ".join(words[:first_flag]), *common, *words[first_flag:]]
    return argv + (["--out", str(out_root)] if out_root else [])


def checked_jobs(path: Path, common: list[str]) -> tuple[list[Job], Path]:
    """Every line made into a render request, or one UsageError naming the first bad line."""
    common, out_root = without_out(common)
    jobs = []
    for number, words in job_lines(path):
        try:
            argv = job_argv(words, common, None)
            request = render.request_from(render.parser().parse_args(argv))
        except UsageError as error:
            raise UsageError(f"{path} line {number}: {error}") from None
        if out_root is not None:  # --out names the root: each job in its own folder below it
            out = out_root / sentence_folder(request.sentence) / f"{request.lang}-{render.QUALITIES[request.quality]}"
            request = replace(request, out=out)
        jobs.append(Job(number, " ".join(words), request))
    seen: dict[Path, int] = {}
    for job in jobs:
        if job.request.out in seen:
            raise UsageError(
                f"{path} line {job.number} writes to the same folder as line {seen[job.request.out]} "
                f"({job.request.out}): give one of them another --quality, --lang or sentence"
            )
        seen[job.request.out] = job.number
    return jobs, out_root if out_root is not None else PROJECT / "out"


def without_out(common: list[str]) -> tuple[list[str], Path | None]:
    """The common flags without --out, and the --out folder (checked), if one was given."""
    flags, out = [], None
    words = iter(common)
    for word in words:
        if word == "--out" or word.startswith("--out="):
            value = word.split("=", 1)[1] if "=" in word else next(words, None)
            if value is None:
                raise UsageError("--out needs a folder")
            out = Path(value).absolute()
            render.check_output_folder(out, value)
        else:
            flags.append(word)
    return flags, out


# The work --------------------------------------------------------------------------------------------


class Scheduler:
    """Chapter tasks of all jobs over the cores (or a Ray cluster); each job published when done."""

    def __init__(self, jobs: list[Job], workers: int, ray_address: str | None):
        self.jobs = jobs
        self.workers = workers
        self.ray = RayChapters(ray_address) if ray_address else None
        self.lock = threading.Lock()
        self.done_chapters = 0
        self.total_chapters = 0
        self.started = time.monotonic()

    def prepare(self, job: Job, work: Path) -> None:
        """The job's Trace, its recordings checked, what it can reuse; any failure is the job's."""
        job.started = time.monotonic()
        job.work = work / f"job-{job.number}"
        job.work.mkdir()
        request = job.request
        job.trace = render.checked_trace(request, job.work, 1)
        job.old = render.previous_chapters(request.out)
        job.keys = {c.slug: render.chapter_key(c, request, job.trace) for c in request.chapters}
        job.todo = render.to_render(request, job.old, job.keys)
        job.pending = len(job.todo)

    def render_chapter(self, job: Job, chapter: Chapter, manims: PreloadedPool) -> render.Rendered:
        if self.ray:
            return self.ray.render(chapter, job)
        with manims.lend() as preloaded:
            return render.render_chapter(chapter, job.request, job.work / "trace.json", job.work, preloaded)

    def publish(self, job: Job) -> None:
        request = job.request
        with render.output_lock(request.out):
            render.sweep_leftovers(request.out)
            render.stage_and_publish(request, job.trace, job.rendered, job.old, job.keys, job.work)
        job.published = True

    def finish(self, job: Job) -> None:
        """Publish a job whose chapters are all done (or say why not)."""
        if job.error is None:
            try:
                self.publish(job)
            except (render.RenderError, OSError, UsageError) as error:
                job.error = str(error).splitlines()[0]
        job.seconds = time.monotonic() - job.started
        status = "published" if job.published else f"failed: {job.error}"
        say(f"  job {job.number} ({job.request.sentence}): {status}")
        if job.work is not None:
            shutil.rmtree(job.work, ignore_errors=True)

    def progress(self) -> str:
        jobs_done = sum(1 for job in self.jobs if job.published or job.error)
        elapsed = time.monotonic() - self.started
        left = ""
        if self.done_chapters:
            remaining = elapsed / self.done_chapters * (self.total_chapters - self.done_chapters)
            left = f", about {remaining:.0f}s left"
        return (
            f"jobs {jobs_done}/{len(self.jobs)}, chapters {self.done_chapters}/{self.total_chapters}, "
            f"{elapsed:.0f}s{left}"
        )

    def run(self, work: Path) -> None:
        for job in self.jobs:  # one Trace at a time: a new corpus is trained once, then cached
            say(f"job {job.number}: building the trace for {job.request.sentence!r}")
            try:
                self.prepare(job, work)
            except (UsageError, render.RenderError, OSError) as error:
                job.error = str(error).splitlines()[0]
            for chapter in job.request.chapters:
                if chapter not in job.todo and job.error is None:
                    say(f"  job {job.number} chapter {chapter.number}: unchanged, reused")
        tasks = [(job, chapter) for job in self.jobs if job.error is None for chapter in job.todo]
        self.total_chapters = len(tasks)
        for job in self.jobs:
            if job.error is not None or job.pending == 0:
                self.finish(job)
        stop = threading.Event()
        reporter = threading.Thread(target=self.report, args=(stop,), daemon=True)
        reporter.start()
        local = 0 if self.ray else min(self.workers, len(tasks))
        try:
            with PreloadedPool(local) as manims, ThreadPoolExecutor(self.workers) as pool:
                running = {
                    pool.submit(self.render_chapter, job, chapter, manims): (job, chapter) for job, chapter in tasks
                }
                while running:
                    finished, _ = wait(running, return_when=FIRST_COMPLETED)
                    for future in finished:
                        job, chapter = running.pop(future)
                        self.chapter_done(job, chapter, future)
        finally:
            stop.set()

    def chapter_done(self, job: Job, chapter: Chapter, future) -> None:
        try:
            job.rendered[chapter.slug] = future.result()
        except (render.RenderError, OSError) as error:
            job.error = job.error or f"chapter {chapter.number}: {str(error).splitlines()[-1]}"
        with self.lock:
            self.done_chapters += 1
        job.pending -= 1
        say(
            f"  job {job.number} chapter {chapter.number}: {'done' if job.error is None else 'failed'} "
            f"({self.progress()})"
        )
        if job.pending == 0:
            self.finish(job)

    def report(self, stop: threading.Event) -> None:
        while not stop.wait(10):
            say(f"  batch: {self.progress()}")


class RayChapters:
    """Chapter tasks on a Ray cluster. A task renders one chapter of one job in a temporary folder on
    its worker and hands back the files (clip, subtitles, step clips, the lines' audio) as bytes: the
    workers need no file system shared with the driver, which publishes them as a local render does.
    Every node needs this project set up at the same path (./render.sh setup)."""

    def __init__(self, address: str):
        try:
            import ray
        except ImportError:
            raise UsageError("--ray needs Ray: pip install '.[cluster]' (or ./render.sh setup --cluster)") from None
        self.ray = ray
        if not ray.is_initialized():
            ray.init(
                address=None if address == "local" else address,
                include_dashboard=False,
                log_to_driver=False,
                runtime_env={"env_vars": {"PYTHONPATH": str(PROJECT)}},
            )
        self.task = ray.remote(num_cpus=1)(chapter_task)

    def render(self, chapter: Chapter, job: Job) -> render.Rendered:
        trace = (job.work / "trace.json").read_text(encoding="utf-8")
        recordings = {p.name: p.read_bytes() for p in (job.work / "recordings").glob(f"{chapter.number:02d}-*")}
        files, timeline, seconds, peak = self.ray.get(self.task.remote(chapter.number, job.request, trace, recordings))
        folder = job.work / f"{chapter.slug}-from-ray"
        for name, content in files.items():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_bytes(content)
        for line in timeline:
            line["audio"] = str(folder / line["audio"])
        clip = next(folder / name for name in files if name.startswith("clip."))
        srt = folder / "clip.srt"
        sections = folder / "sections"
        return render.Rendered(
            clip, srt if srt.exists() else None, sections if job.request.sections else None, timeline, seconds, peak
        )


def chapter_task(number: int, request: render.Request, trace: str, recordings: dict[str, bytes]):
    """On a Ray worker: render chapter ``number`` and return its files, its timeline, time and memory."""
    from scenes.chapters import BY_NUMBER

    chapter = BY_NUMBER[number]
    with tempfile.TemporaryDirectory(prefix="attention-ray-") as tmp:
        work = Path(tmp)
        (work / "trace.json").write_text(trace, encoding="utf-8")
        if recordings:
            (work / "recordings").mkdir()
            for name, content in recordings.items():
                (work / "recordings" / name).write_bytes(content)
        done = render.render_chapter(chapter, request, work / "trace.json", work)
        files = {f"clip{done.clip.suffix}": done.clip.read_bytes()}
        if done.srt:
            files["clip.srt"] = done.srt.read_bytes()
        if done.sections:
            files.update({f"sections/{p.name}": p.read_bytes() for p in done.sections.iterdir() if p.is_file()})
        timeline = []
        for i, line in enumerate(done.timeline):
            files[f"voice/{i:03d}.wav"] = Path(line["audio"]).read_bytes()
            timeline.append(line | {"audio": f"voice/{i:03d}.wav"})
        return files, timeline, done.seconds, done.peak_memory_mb


# The command -------------------------------------------------------------------------------------------


def display_width(words: str) -> int:
    """Columns on a terminal: a Chinese character takes two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in words)


def summary(jobs: list[Job], root: Path) -> None:
    rows = [
        {
            "line": job.number,
            "job": job.text,
            "status": "published" if job.published else "failed",
            "seconds": round(job.seconds, 1),
            "output": str(job.request.out) if job.published else None,
            "error": job.error,
        }
        for job in jobs
    ]
    width = max(display_width(row["job"]) for row in rows)
    say(f"{'line':>4}  {'job' + ' ' * (width - 3)}  {'status':<9}  {'seconds':>7}  output or error")
    for row in rows:
        padded = row["job"] + " " * (width - display_width(row["job"]))
        say(f"{row['line']:>4}  {padded}  {row['status']:<9}  {row['seconds']:>7.1f}  {row['output'] or row['error']}")
    root.mkdir(parents=True, exist_ok=True)
    target = root / "batch-summary.json"
    temporary = root / ".batch-summary.json.tmp"
    temporary.write_text(json.dumps({"jobs": rows}, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    temporary.replace(target)


def run_batch(argv: list[str]) -> int:
    args, common = batch_parser().parse_known_args(argv)
    jobs, root = checked_jobs(Path(args.file), common)
    if args.ray and any(job.request.slides for job in jobs):
        raise UsageError("a slide deck is built from files only a Ray worker would have: render decks without --ray")
    for lang in {job.request.lang for job in jobs}:
        render.check_system(lang)
    workers = max(job.request.jobs for job in jobs)
    chapters = sum(len(job.request.chapters) for job in jobs)
    say(
        f"batch: {len(jobs)} jobs, {chapters} chapters, {workers} at once"
        + (f" on Ray ({args.ray})" if args.ray else "")
    )
    scheduler = Scheduler(jobs, workers, args.ray)
    with tempfile.TemporaryDirectory(prefix=f"{render.WORK_PREFIX}{os.getpid()}-batch-") as tmp:
        scheduler.run(Path(tmp))
    summary(jobs, root)
    return 0 if all(job.published for job in jobs) else 1

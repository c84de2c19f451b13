"""A process that has imported Manim once and forks each chapter's Manim process from itself, so the
chapters do not each spend most of a second importing it again. It reads one chapter a line on stdin
(JSON: Manim's arguments, environment and log files), forks, and writes back how the chapter's
process ended and its peak memory. The forked process is the one ``python -m manim`` would have
been, less the import: the same arguments, environment, folder (the project's) and hash seed (given
to this process when it starts, as a hash seed can only be)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import traceback
from contextlib import contextmanager
from pathlib import Path
from queue import Queue

from scenes.source import PROJECT

# The same frames from every run, on every machine of a cluster: some of a scene's drawing order
# follows Python's set order, which a random hash seed would change from run to run.
HASH_SEED = "0"


class Preloaded:
    """One preloaded process, as the pipeline sees it: its chapters rendered one after another."""

    def __init__(self):
        self.process = subprocess.Popen(
            [sys.executable, "-m", "scenes.pipeline.preloaded"],
            cwd=PROJECT,
            env={**os.environ, "PYTHONHASHSEED": HASH_SEED},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def run(self, arguments: list[str], env: dict, logs: Path) -> tuple[int, str, str, float]:
        """Manim's ``arguments`` in a forked process: its exit code, output, errors and peak memory in MB."""
        logs.mkdir(parents=True, exist_ok=True)
        out, err = logs / "stdout.txt", logs / "stderr.txt"
        job = {"arguments": arguments, "env": env, "stdout": str(out), "stderr": str(err)}
        try:
            self.process.stdin.write(json.dumps(job) + "\n")
            self.process.stdin.flush()
            reply = self.process.stdout.readline()
        except BrokenPipeError:
            reply = ""
        if not reply:
            return -1, "", f"the preloaded Manim process stopped (exit {self.process.poll()})", 0.0
        ended = json.loads(reply)
        return ended["code"], out.read_text(errors="replace"), err.read_text(errors="replace"), ended["peak_mb"]

    def close(self) -> None:
        try:
            self.process.stdin.close()
        except BrokenPipeError:
            pass
        self.process.wait()


class PreloadedPool:
    """``count`` preloaded processes, each lent to one chapter at a time."""

    def __init__(self, count: int):
        self.idle: Queue[Preloaded] = Queue()
        self.started = [Preloaded() for _ in range(count)]
        for preloaded in self.started:
            self.idle.put(preloaded)

    @contextmanager
    def lend(self):
        preloaded = self.idle.get()
        try:
            yield preloaded
        finally:
            self.idle.put(preloaded)

    def __enter__(self) -> PreloadedPool:
        return self

    def __exit__(self, *_) -> None:
        for preloaded in self.started:
            preloaded.close()


def chapter_process(job: dict) -> None:
    """In the forked process: become ``python -m manim ARGUMENTS`` and exit with its code."""
    code = 1
    try:
        signal.signal(signal.SIGINT, signal.default_int_handler)  # Ctrl-C stops a chapter, as before
        os.environ.clear()
        os.environ.update(job["env"])
        for fd, path, flags in (
            (0, os.devnull, os.O_RDONLY),
            (1, job["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
            (2, job["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
        ):
            opened = os.open(path, flags, 0o644)
            os.dup2(opened, fd)
            os.close(opened)
        sys.argv = ["manim", *job["arguments"]]
        from manim.__main__ import main

        main(args=job["arguments"], prog_name="manim")
        code = 0
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else int(stop.code is not None)
    except BaseException:
        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def serve() -> None:
    """Fork a chapter's process for each line on stdin, one at a time, until stdin closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the chapter; this process ends at EOF
    import manim.__main__  # noqa: F401  (what every chapter's process would import again)

    for line in sys.stdin:
        job = json.loads(line)
        pid = os.fork()
        if pid == 0:
            chapter_process(job)
        _, status, usage = os.wait4(pid, 0)
        reply = {"code": os.waitstatus_to_exitcode(status), "peak_mb": usage.ru_maxrss / 1024}
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    serve()

"""Interrupt renders at random points and check that nothing is lost or half-written (issue 9).

    .venv/bin/python benchmarks/interrupt_renders.py [--runs 20] [--seed 1]

A good render of chapter 10 is made first and fingerprinted (sha256 of every file). Then, run after
run, a render of another sentence into the same folder is started and sent SIGINT (as Ctrl-C
does, to its whole process group), SIGTERM or SIGKILL after a random delay shorter than a full
render. After each run: every published file is byte-identical to the good render (nothing
truncated, nothing half-replaced) — unless the signal came after the render had published all of
its files, which its manifest's checksums then show, and the good render is made again — and no
staging folder of an interrupted render is reused: the next run sweeps them. At the end a render
runs to completion in the same folder. Exit code 0 when every check held; one line per run either way.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT))

from scenes import render  # noqa: E402

SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGKILL)
GOOD, OTHER = "猫喜欢抓老鼠", "狗喜欢抓飞盘"


def command(out: Path, sentence: str) -> list[str]:
    return [sys.executable, "-m", "scenes.render", "--chapters", "10", "--sentence", sentence, "--out", str(out)]


def fingerprint(out: Path) -> dict[str, str]:
    """sha256 of every published file (hidden ones — the lock, staging — aside)."""
    return {
        str(p.relative_to(out)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(out.rglob("*"))
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(out).parts)
    }


def published_whole(out: Path, published: dict[str, str], sentence: str) -> bool:
    """Every file of a render of ``sentence`` is in place: its manifest (published last) names the
    sentence, and each clip it lists has, in ``published`` (a fingerprint), the sha256 it records."""
    try:
        manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return manifest.get("sentence") == sentence and all(
        published.get(entry["file"]) == entry["sha256"] for entry in manifest["chapters"]
    )


def full_render(out: Path, sentence: str) -> float:
    started = time.monotonic()
    subprocess.run(command(out, sentence), cwd=PROJECT, check=True, capture_output=True)
    return time.monotonic() - started


def interrupt(out: Path, how: signal.Signals, delay: float) -> int:
    """Start a render of the other sentence and send ``how`` to its process group after ``delay`` s."""
    process = subprocess.Popen(
        command(out, OTHER), cwd=PROJECT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    try:
        process.wait(timeout=delay)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, how)
        process.wait(timeout=120)
    return process.returncode


def isolate_work_folders(folder: Path) -> None:
    """Renders here, and the check of what they left, use their own temporary folder: work folders
    that other programs' killed renders leave in the system's one are not this run's to count."""
    folder.mkdir()
    os.environ["TMPDIR"] = str(folder)
    tempfile.tempdir = str(folder)


def main(argv: list[str] | None = None) -> int:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--runs", type=int, default=20)
    options.add_argument("--seed", type=int, default=1)
    args = options.parse_args(argv)
    randomness = random.Random(args.seed)
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        isolate_work_folders(Path(tmp) / "tmp")
        out = Path(tmp) / "out"
        duration = full_render(out, GOOD)
        good = fingerprint(out)
        print(f"good render: {len(good)} files in {duration:.1f}s")
        for run in range(1, args.runs + 1):
            how = randomness.choice(SIGNALS)
            delay = randomness.uniform(0.3, 0.9 * duration)
            code = interrupt(out, how, delay)
            now = fingerprint(out)
            if code == 0 or (now != good and published_whole(out, now, OTHER)):
                # It had published everything before the signal: start again from a good render.
                print(f"run {run:2d}: {how.name} at {delay:4.1f}s came after publishing; re-rendering the good output")
                full_render(out, GOOD)
                good = fingerprint(out)  # the manifest records this render's own seconds and memory
                continue
            changed = sorted(name for name in good.keys() | now.keys() if good.get(name) != now.get(name))
            ok = not changed
            failures += not ok
            print(
                f"run {run:2d}: {how.name:7s} at {delay:4.1f}s, exit {code}: "
                f"{'published files unchanged' if ok else 'CHANGED: ' + ', '.join(changed)}"
            )
        leftovers = len(list(out.glob(".staging-*"))) + len(render.dead_work_folders())
        final_ok = subprocess.run(command(out, OTHER), cwd=PROJECT, capture_output=True).returncode == 0
        swept = not list(out.glob(".staging-*")) and not render.dead_work_folders()
        print(
            f"staging and work folders left by SIGKILL before the last render: {leftovers}; after it: "
            f"{'none' if swept else 'some'}; last render {'succeeded' if final_ok else 'FAILED'}"
        )
        failures += (not final_ok) + (not swept)
    print("every check held" if not failures else f"{failures} checks failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

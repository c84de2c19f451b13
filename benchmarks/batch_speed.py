"""A batch on this machine's local pool against the same batch as Ray tasks, and one sentence alone,
in one run (issue 43).

    .venv/bin/python benchmarks/batch_speed.py                      # 4 sentences x all chapters, 480p
    .venv/bin/python benchmarks/batch_speed.py --chapters 9,10      # a quicker look

Each batch renders into a fresh folder with the voice off (the voice's cost is benchmarks/voice_speed.py's);
Ray runs a local cluster started by the batch (``--ray local``), the pool as many chapters at once as
there are cores. Prints a Markdown table: wall seconds, video seconds, and Ray's overhead.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
SENTENCES = ["猫喜欢抓老鼠", "狗喜欢抓飞盘", "狐狸每天偷偷喜欢抓鸡", '"the dog likes to catch frisbees" --lang en']


def timed(command: list[str], folder: Path) -> tuple[float, float]:
    """Wall seconds of ``command`` and the seconds of video it published."""
    started = time.monotonic()
    result = subprocess.run(command, cwd=folder, stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - started
    if result.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{result.stderr[-2000:]}")
    video = sum(json.loads(p.read_text(encoding="utf-8"))["duration"] for p in (folder / "out").rglob("manifest.json"))
    return wall, video


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--chapters", default="1-11")
    p.add_argument("--quality", default="l")
    args = p.parse_args()
    flags = ["--chapters", args.chapters, "--quality", args.quality, "--voice", "none", "--out", "out"]
    render = [sys.executable, "-m", "scenes.render"]
    rows = []
    with tempfile.TemporaryDirectory(prefix="batch-bench-") as tmp:
        for name, command in [
            ("one sentence alone", render + flags[:-2] + ["--out", "out/one"]),
            ("4 sentences, local pool", render + ["batch", "jobs.txt", *flags]),
            ("4 sentences, Ray (local cluster)", render + ["batch", "jobs.txt", *flags, "--ray", "local"]),
        ]:
            folder = Path(tmp) / name.split(",")[-1].strip().replace(" ", "-")
            folder.mkdir()
            (folder / "jobs.txt").write_text("\n".join(SENTENCES) + "\n", encoding="utf-8")
            wall, video = timed(command, folder)
            rows.append((name, wall, video))
            print(f"{name}: {wall:.1f} s for {video:.1f} s of video", file=sys.stderr, flush=True)
    print("| run | wall (s) | video (s) | wall / video |\n|---|---|---|---|")
    for name, wall, video in rows:
        print(f"| {name} | {wall:.1f} | {video:.1f} | {wall / video:.3f} |")
    print(f"\nRay's overhead against the local pool: {rows[2][1] / rows[1][1] - 1:+.1%}")


if __name__ == "__main__":
    main()

"""How much of the picture the chapters use: one frame a second, on a 16×9 grid of cells, a cell
counting as used when its pixels differ from the background.

    .venv/bin/python benchmarks/frame_use.py out/猫喜欢抓老鼠/zh-480p15     # a render folder
    .venv/bin/python benchmarks/frame_use.py clip.mp4                       # one video

Prints, per chapter, the frames sampled, the median share of cells used, and the share of frames that
use less than half of the cells (issue 40's bar: at most 35 % of a chapter's frames), then the same
over all chapters. The background is each frame's commonest colour, so either theme measures alike.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

import av
import numpy as np

COLUMNS, ROWS = 16, 9
DIFFERENCE = 24  # levels (of 255) a pixel must differ from the background by: above codec noise
PIXELS_PER_CELL = 0.02  # share of a cell's pixels that must differ for the cell to count


def used_share(frame: np.ndarray) -> float:
    """The share of the grid's cells in which the picture differs from its background."""
    height, width, _ = frame.shape
    colours, counts = np.unique(frame[::4, ::4].reshape(-1, 3), axis=0, return_counts=True)
    background = colours[counts.argmax()].astype(int)
    differs = np.abs(frame.astype(int) - background).max(axis=2) > DIFFERENCE
    used = 0
    for row in range(ROWS):
        for column in range(COLUMNS):
            cell = differs[
                row * height // ROWS : (row + 1) * height // ROWS,
                column * width // COLUMNS : (column + 1) * width // COLUMNS,
            ]
            used += cell.mean() > PIXELS_PER_CELL
    return used / (ROWS * COLUMNS)


def sampled_shares(video: Path) -> list[float]:
    """The used share of one frame a second (the first frame at or after 0.5 s, 1.5 s, …)."""
    shares, next_time = [], 0.5
    with av.open(str(video)) as container:
        for frame in container.decode(video=0):
            if frame.time is not None and frame.time + 1e-6 >= next_time:
                shares.append(used_share(frame.to_ndarray(format="rgb24")))
                next_time += 1.0
    return shares


def report(name: str, shares: list[float]) -> str:
    sparse = sum(share < 0.5 for share in shares) / len(shares)
    return f"{name:<28} {len(shares):>7} {statistics.median(shares):>7.0%} {sparse:>12.0%}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", type=Path, help="a render folder (its chapter clips) or one video")
    args = parser.parse_args(argv)
    if args.path.is_dir():
        videos = sorted(v for v in args.path.glob("[0-9][0-9]-*.*") if v.suffix in (".mp4", ".webm", ".mov"))
    else:
        videos = [args.path] if args.path.exists() else []
    if not videos:
        print(
            f"error: no chapter videos in {args.path}: give a render folder (out/<sentence>/<lang>-<quality>) "
            f"or a video file",
            file=sys.stderr,
        )
        return 2
    print(f"{'chapter':<28} {'frames':>7} {'median':>7} {'under half':>12}")
    every = []
    for video in videos:
        shares = sampled_shares(video)
        every += shares
        print(report(video.stem, shares))
    if len(videos) > 1:
        print(report("all chapters", every))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""A before/after contact sheet: for each chapter, frames of two renders side by side.

    .venv/bin/python benchmarks/contact_sheet.py BEFORE_DIR AFTER_DIR docs/contact-sheet.png

Each render folder holds the chapter clips (NN-name.mp4) of one render at the same quality. For each
chapter the sheet shows, left to right, the before and after frames at a third of the clip, at two
thirds, and its key frame (half a second before the end), with the chapter's number on the left.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from PIL import Image, ImageDraw

THUMB = (320, 180)
SHARES = (1 / 3, 2 / 3, None)  # None: the key frame


def duration(video: Path) -> float:
    out = subprocess.run(
        ["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", str(video)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return float(out)


def frame_at(video: Path, seconds: float, folder: Path) -> Image.Image:
    target = folder / f"{video.stem}-{seconds:.2f}.png"
    subprocess.run(
        ["ffmpeg", "-v", "error", "-y", "-ss", f"{seconds:.3f}", "-i", str(video), "-frames:v", "1", str(target)],
        check=True,
    )
    return Image.open(target).convert("RGB").resize(THUMB)


def frames(video: Path, folder: Path) -> list[Image.Image]:
    length = duration(video)
    return [frame_at(video, length * share if share else max(0.0, length - 0.5), folder) for share in SHARES]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("sheet", type=Path)
    args = parser.parse_args(argv)
    pairs = [
        (old, args.after / old.name)
        for old in sorted(args.before.glob("[0-9][0-9]-*.mp4"))
        if (args.after / old.name).exists()
    ]
    if not pairs:
        print(f"error: no chapter clips named alike in {args.before} and {args.after}", file=sys.stderr)
        return 2
    gap, margin = 8, 60
    width = margin + 2 * len(SHARES) * (THUMB[0] + gap) + 4 * gap
    height = 40 + len(pairs) * (THUMB[1] + gap)
    sheet = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(sheet)
    draw.text((margin + 10, 12), "before", fill="black")
    draw.text((margin + len(SHARES) * (THUMB[0] + gap) + 10, 12), "after", fill="black")
    with tempfile.TemporaryDirectory() as scratch:
        for row, (old, new) in enumerate(pairs):
            y = 40 + row * (THUMB[1] + gap)
            draw.text((12, y + THUMB[1] // 2), old.name[:2], fill="black")
            for column, image in enumerate(frames(old, Path(scratch)) + frames(new, Path(scratch))):
                sheet.paste(image, (margin + column * (THUMB[0] + gap) + (gap * 3 if column >= len(SHARES) else 0), y))
    args.sheet.parent.mkdir(parents=True, exist_ok=True)
    sheet.save(args.sheet)
    print(f"{args.sheet}: {len(pairs)} chapters")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""What our held frames buy (issue 42, scenes/encoding.py and scenes/skip_frames.py), in one run: a
chapter rendered with Manim's own segment encoder, then with ours, one after the other, both with the
pipeline's encoder settings (libx264 preset and frame threads); wall and CPU seconds, file sizes, and
the SSIM of the two videos (every frame compared).

    .venv/bin/python benchmarks/held_frames.py --quality h --chapters 9,10
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT))

from manims_own import command  # noqa: E402

from scenes.chapters import BY_NUMBER  # noqa: E402
from scenes.pipeline.rendering import encoder_options  # noqa: E402
from scenes.pipeline.request import DEFAULT_PRESET  # noqa: E402


def encoder_settings(folder: Path, quality: str) -> Path:
    """The config file the pipeline gives Manim for mp4 at its default preset."""
    path = folder / "encoder.cfg"
    path.write_text(f"[video_encoder.options]\n{encoder_options(DEFAULT_PRESET, 'mp4', quality)}", encoding="utf-8")
    return path


def render(writer: str, chapter, quality: str, media: Path, settings: Path) -> tuple[float, float, Path]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    subprocess.run(
        command(
            writer,
            "render",
            f"-q{quality}",
            "--media_dir",
            str(media),
            "--disable_caching",
            "--progress_bar",
            "none",
            "-v",
            "WARNING",
            "--config_file",
            str(settings),
            str(chapter.path),
            chapter.scene,
        ),
        cwd=PROJECT,
        check=True,
        env={**os.environ, "PYTHONPATH": str(PROJECT)},
    )
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return wall, cpu, next(media.rglob(f"{chapter.scene}.mp4"))


def ssim(first: Path, second: Path) -> float:
    result = subprocess.run(
        ["ffmpeg", "-nostats", "-i", str(first), "-i", str(second), "-lavfi", "[0:v][1:v]ssim", "-f", "null", "-"],
        capture_output=True,
        text=True,
    )
    return float(re.search(r"All:([0-9.]+)", result.stderr).group(1))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quality", default="h")
    p.add_argument("--chapters", default="9,10")
    args = p.parse_args()
    print("| chapter | writer | wall (s) | CPU (s) | size (MB) | SSIM to Manim's |\n|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="held-frames-") as tmp:
        settings = encoder_settings(Path(tmp), args.quality)
        for number in map(int, args.chapters.split(",")):
            chapter = BY_NUMBER[number]
            results = {
                writer: render(writer, chapter, args.quality, Path(tmp) / f"{number}-{writer}", settings)
                for writer in ("manim", "ours")
            }
            for writer, (wall, cpu, video) in results.items():
                similarity = ssim(results["manim"][2], video)
                print(
                    f"| {number} | {writer} | {wall:.1f} | {cpu:.1f} | {video.stat().st_size / 1e6:.2f} | "
                    f"{similarity:.4f} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()

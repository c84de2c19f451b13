"""How fast the explainer renders, against plain Manim on the same chapters, in one run (issue 10).

    .venv/bin/python benchmarks/render_speed.py --quality l      # 480p15
    .venv/bin/python benchmarks/render_speed.py --quality h      # 1080p60 (about half an hour)

Ours: `./render.sh --voice none` (silent, as plain Manim is; the pipeline: chapters in parallel, the
project's encoder settings) into a fresh folder, then the same command again (everything reused),
and a Trace for a new sentence.
Plain Manim: `manim render -q<quality>` of each chapter one after the other, with Manim's default
encoder settings (libx264 preset medium, crf 23), its own segment encoder, drawing and copies
(benchmarks/manims_own.py takes ours out again) and its own caching, from a folder without our
manim.cfg. Prints a table per chapter and in total: video seconds, wall seconds, wall/video, peak
memory of the chapter's process, file size, and how alike ours and plain Manim's pictures are (SSIM
of every tenth frame pair: the mean and the lowest); then the ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT))

from manims_own import command  # noqa: E402

from scenes.chapters import CHAPTERS  # noqa: E402
from scenes.outputs import probe  # noqa: E402
from scenes.render import QUALITIES, run_measured  # noqa: E402


def ours(out: Path, quality: str) -> tuple[float, dict]:
    started = time.monotonic()
    subprocess.run(
        [sys.executable, "-m", "scenes.render", "--quality", quality, "--voice", "none", "--out", str(out)],
        cwd=PROJECT,
        check=True,
        stderr=subprocess.DEVNULL,
    )
    wall = time.monotonic() - started
    return wall, json.loads((out / "manifest.json").read_text(encoding="utf-8"))


def plain_manim(chapter, quality: str, trace: Path, folder: Path) -> dict:
    """One chapter with plain Manim, its defaults (its own segment encoder), in a folder without the
    project's manim.cfg."""
    env = {**os.environ, "PYTHONPATH": str(PROJECT), "ATTENTION_TRACE": str(trace)}
    started = time.monotonic()
    code, _, _, peak = run_measured(
        command("plain", "render", f"-q{quality}", "--progress_bar", "none", str(chapter.path), chapter.scene),
        cwd=folder,
        env=env,
        logs=folder,
    )
    wall = time.monotonic() - started
    if code != 0:
        raise SystemExit(f"plain Manim failed on chapter {chapter.number}: see {folder}")
    (clip,) = [
        p for p in (folder / "media" / "videos").rglob(f"{chapter.scene}.mp4") if p.parent.name != "partial_movie_files"
    ]
    return {"wall": wall, "peak_mb": peak, "bytes": clip.stat().st_size, "video": probe(clip)["duration"], "clip": clip}


SAMPLE_EVERY = 10  # frames: SSIM of every tenth frame pair, across the whole chapter


def similarity(ours_clip: Path, manim_clip: Path) -> tuple[float, float]:
    """SSIM of the two clips' frames at the same timestamps: the mean and the lowest frame pair."""
    graph = f"[0:v]framestep={SAMPLE_EVERY}[a];[1:v]framestep={SAMPLE_EVERY}[b];[a][b]ssim=stats_file=-"
    result = subprocess.run(
        ["ffmpeg", "-v", "error", "-i", str(ours_clip), "-i", str(manim_clip), "-lavfi", graph, "-f", "null", "-"],
        capture_output=True,
        text=True,
        check=True,
    )
    frames = [float(line.split("All:")[1].split()[0]) for line in result.stdout.splitlines() if "All:" in line]
    return sum(frames) / len(frames), min(frames)


def trace_seconds() -> float:
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [
                sys.executable,
                "-m",
                "model.cli",
                "trace",
                "--sentence",
                "熊每天早上喜欢抓鱼",
                "--out",
                str(Path(tmp) / "t.json"),
            ],
            cwd=PROJECT,
            check=True,
            capture_output=True,
        )
    return time.monotonic() - started


def row(cells: list) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


def main(argv: list[str] | None = None) -> int:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--quality", default="l", choices=sorted(QUALITIES))
    args = options.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        first, manifest = ours(tmp / "ours", args.quality)
        again, _ = ours(tmp / "ours", args.quality)
        baseline = {}
        for chapter in CHAPTERS:
            folder = tmp / f"manim-{chapter.number}"
            folder.mkdir()
            baseline[chapter.slug] = plain_manim(chapter, args.quality, tmp / "ours" / "trace.json", folder)
            print(f"  plain Manim, chapter {chapter.number}: {baseline[chapter.slug]['wall']:.0f}s", file=sys.stderr)
        print(
            f"{QUALITIES[args.quality]} on {platform.machine()}, {os.cpu_count()} cores, "
            f"{os.sysconf('SC_PHYS_PAGES') * os.sysconf('SC_PAGE_SIZE') / 2**30:.0f} GiB, "
            f"Python {platform.python_version()}\n"
        )
        print(
            row(
                [
                    "chapter",
                    "video s",
                    "ours wall s",
                    "ours wall/video",
                    "ours peak MB",
                    "ours MB",
                    "Manim wall s",
                    "Manim wall/video",
                    "Manim peak MB",
                    "Manim MB",
                    "SSIM mean / lowest",
                ]
            )
        )
        print(row(["---"] * 11))
        alike = {}
        for entry in manifest["chapters"]:
            plain = baseline[entry["slug"]]
            alike[entry["slug"]] = similarity(tmp / "ours" / entry["file"], plain["clip"])
            print(
                row(
                    [
                        entry["number"],
                        f"{entry['duration']:.1f}",
                        f"{entry['render_seconds']:.0f}",
                        f"{entry['render_seconds'] / entry['duration']:.2f}",
                        f"{entry['peak_memory_mb']:.0f}",
                        f"{(tmp / 'ours' / entry['file']).stat().st_size / 1e6:.1f}",
                        f"{plain['wall']:.0f}",
                        f"{plain['wall'] / plain['video']:.2f}",
                        f"{plain['peak_mb']:.0f}",
                        f"{plain['bytes'] / 1e6:.1f}",
                        "{:.3f} / {:.3f}".format(*alike[entry["slug"]]),
                    ]
                )
            )
        video = manifest["duration"]
        manim_wall = sum(p["wall"] for p in baseline.values())
        ours_bytes = sum((tmp / "ours" / e["file"]).stat().st_size for e in manifest["chapters"])
        manim_bytes = sum(p["bytes"] for p in baseline.values())
        print(
            row(
                [
                    "**all**",
                    f"{video:.1f}",
                    f"**{first:.0f}**",
                    f"**{first / video:.2f}**",
                    f"{max(e['peak_memory_mb'] for e in manifest['chapters']):.0f}",
                    f"{ours_bytes / 1e6:.1f}",
                    f"{manim_wall:.0f}",
                    f"{manim_wall / video:.2f}",
                    f"{max(p['peak_mb'] for p in baseline.values()):.0f}",
                    f"{manim_bytes / 1e6:.1f}",
                    f"{min(mean for mean, _ in alike.values()):.3f} / {min(low for _, low in alike.values()):.3f}",
                ]
            )
        )
        print(f"\nours / plain Manim: wall {first / manim_wall:.2f}×, files {ours_bytes / manim_bytes:.2f}×")
        print(f"unchanged re-render: {again:.1f}s = {again / first:.2f}× the first render")
        print(f"a Trace for a new sentence (new process, models trained): {trace_seconds():.1f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""What the voice costs (issue 41), in one run: each engine's synthesis time per second of speech, and
the voiced explainer's render time against the silent one.

    .venv/bin/python benchmarks/voice_speed.py                          # 480p, all chapters
    .venv/bin/python benchmarks/voice_speed.py --render l:1-11 h:4,5    # and 1080p60, chapters 4 and 5

Synthesis: every narrated line of the chapters (``./render.sh script``), in each language, spoken by
its engine into an empty cache; the engine's start-up (loading the voice) is counted once.
Renders: ``./render.sh --voice none`` then ``--voice tts`` with an empty voice cache (synthesis
included), each into a fresh folder, for each quality. Prints the tables as Markdown.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT))


def lines_of(lang: str, chapters: str, folder: Path) -> list[str]:
    out = folder / f"script-{lang}"
    subprocess.run(
        [sys.executable, "-m", "scenes.render", "script", "--lang", lang, "--chapters", chapters, "--out", str(out)],
        cwd=PROJECT,
        check=True,
        stderr=subprocess.DEVNULL,
    )
    return [row.split("\t", 1)[1] for row in (out / "lines.tsv").read_text(encoding="utf-8").splitlines()]


def synthesis(lang: str, lines: list[str]) -> dict:
    from scenes import voice

    started = time.monotonic()
    speeches = [voice.synthesized(line, lang) for line in lines]  # the first one starts the engine
    wall = time.monotonic() - started
    speech = sum(s.seconds for s in speeches)
    return {"lang": lang, "engine": voice.ENGINES[lang].id, "lines": len(lines), "speech": speech, "wall": wall}


def render(quality: str, chapters: str, voice: str, out: Path, cache: Path) -> dict:
    started = time.monotonic()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "scenes.render",
            "--quality",
            quality,
            "--chapters",
            chapters,
            "--voice",
            voice,
            "--out",
            str(out),
        ],
        cwd=PROJECT,
        check=True,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "XDG_CACHE_HOME": str(cache)},
    )
    wall = time.monotonic() - started
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    return {"quality": quality, "voice": voice, "video": manifest["duration"], "wall": wall}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--chapters", default="1-11", help="the chapters whose lines are synthesized (default: all)")
    p.add_argument(
        "--render",
        nargs="+",
        default=["l:1-11"],
        metavar="QUALITY:CHAPTERS",
        help="the renders, each silent then voiced, e.g. l:1-11 h:4,5 (default: l:1-11)",
    )
    p.add_argument("--keep", help="a folder to keep the renders in (for benchmarks/frame_use.py, say)")
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="voice-bench-") as tmp:
        folder = Path(tmp)
        os.environ["XDG_CACHE_HOME"] = str(folder / "synthesis-cache")
        print("| voice | lines | speech (s) | synthesis (s) | per second of speech |\n|---|---|---|---|---|")
        for lang in ("zh", "en"):
            row = synthesis(lang, lines_of(lang, args.chapters, folder))
            print(
                f"| {row['engine']} ({lang}) | {row['lines']} | {row['speech']:.1f} | {row['wall']:.1f} | "
                f"{row['wall'] / row['speech']:.3f} |",
                flush=True,
            )
        print("\n| quality:chapters | voice | video (s) | render (s) | render / video |\n|---|---|---|---|---|")
        for spec in args.render:
            quality, chapters = spec.split(":")
            for voice in ("none", "tts"):
                out = Path(args.keep or folder) / f"{quality}-{chapters}-{voice}"
                row = render(quality, chapters, voice, out, folder / f"cache-{quality}")
                print(
                    f"| {spec} | {voice} | {row['video']:.1f} | {row['wall']:.1f} | {row['wall'] / row['video']:.3f} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()

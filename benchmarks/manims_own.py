"""Plain Manim for the benchmarks: the chapters' modules install our segment encoder and garbage
collector threshold when they are imported (scenes/base.py); ``command("manim", …)`` puts Manim's and
Python's own back before rendering, ``command("ours", …)`` keeps ours."""

from __future__ import annotations

import sys

BOOTSTRAP = """
import gc, sys
from manim.scene.video_segment_encoder import VideoSegmentEncoder
manims_own = VideoSegmentEncoder.write_frame, VideoSegmentEncoder.finish
pythons_own = gc.get_threshold()
import scenes.base
if sys.argv[1] == "manim":
    VideoSegmentEncoder.write_frame, VideoSegmentEncoder.finish = manims_own
    gc.set_threshold(*pythons_own)
from manim.__main__ import main
sys.argv = ["manim", *sys.argv[2:]]
main()
"""


def command(writer: str, *manim_args: str) -> list[str]:
    """``manim render …`` with Manim's own encoder (writer "manim") or ours ("ours")."""
    return [sys.executable, "-c", BOOTSTRAP, writer, *manim_args]

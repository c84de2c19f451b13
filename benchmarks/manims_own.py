"""Plain Manim for the benchmarks: the chapters' modules install, when they are imported, our segment
encoder with the renderer's copies of frames for it (scenes/encoding.py), the garbage collector's
threshold (scenes/base.py), bystanders drawn once (scenes/bystanders.py),
faster copies of text (scenes/copies.py, labels without id groups and through the SVG cache) and a camera
measuring its frame once a frame and tracing outlines in fewer steps (scenes/camera.py).
``command("manim", …)`` puts Manim's and Python's own encoder and threshold back before rendering;
``command("plain", …)`` puts back all of Manim's own; ``command("ours", …)`` keeps ours."""

from __future__ import annotations

import sys

BOOTSTRAP = """
import gc, sys
from manim import Scene, Text
from manim.mobject.svg.svg_mobject import VMobjectFromSVGPath
from manim.renderer.cairo_renderer import CairoRenderer
from manim.scene.video_segment_encoder import VideoSegmentEncoder
manims_own = CairoRenderer.render, VideoSegmentEncoder.write_frame, VideoSegmentEncoder.finish
pythons_own = gc.get_threshold()
import scenes.base, scenes.bystanders, scenes.camera, scenes.mobjects.nodes
if sys.argv[1] in ("manim", "plain"):
    CairoRenderer.render, VideoSegmentEncoder.write_frame, VideoSegmentEncoder.finish = manims_own
    gc.set_threshold(*pythons_own)
if sys.argv[1] == "plain":
    scenes.bystanders.DrawsBystandersOnce.update_to_time = Scene.update_to_time
    del VMobjectFromSVGPath.__deepcopy__
    scenes.mobjects.nodes.without_id_groups = lambda written: written
    camera = scenes.camera.ExplainerCamera
    del camera.frame_width, camera.capture_mobjects, camera.set_cairo_context_path
    texts_own = Text.__init__
    Text.__init__ = lambda self, *args, use_svg_cache=False, **kwargs: texts_own(self, *args, **kwargs)
from manim.__main__ import main
sys.argv = ["manim", *sys.argv[2:]]
main()
"""


def command(writer: str, *manim_args: str) -> list[str]:
    """``manim render …`` with Manim's own encoder (writer "manim"), all of Manim's own ("plain") or
    ours ("ours")."""
    return [sys.executable, "-c", BOOTSTRAP, writer, *manim_args]

"""Every chapter as a manim-slides Slide: a slide per narrated step, the narration as its speaker
notes. The pipeline renders ``<Scene>Slide`` from this file with ``--slides`` and converts the
slides into one HTML deck (``manim-slides convert``).
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path

from manim import Scene
from manim_slides import Slide
from manim_slides.slide.base import BaseSlide

from scenes.chapters import CHAPTERS


class NarratedSlides(Slide):
    """A new slide at each narrated step, its notes the step's narration."""

    def __init__(self, *args, **kwargs):
        # Slide.__init__ only sets config.write_to_movie (for the OpenGL renderer), an option Manim 0.22
        # no longer has; the Cairo renderer writes the movie anyway. Skip it and run the rest of the chain.
        BaseSlide.__init__(self, *args, output_folder=Path(os.environ.get("ATTENTION_SLIDES", "slides")), **kwargs)

    def render(self, *args, **kwargs):
        # Slide.render widens config.max_files_cached to infinity, which Manim 0.22 refuses; with caching
        # disabled (as the pipeline renders) nothing is cleaned anyway. Render, then save the slides.
        Scene.render(self, *args, **kwargs)
        self._save_slides(use_cache=False, flush_cache=False, skip_reversing=True)

    def begin_step(self, name: str, line: str) -> None:
        self.next_slide(self.section_name(name), notes=line)


def slide_class(chapter) -> type:
    scene = getattr(importlib.import_module(f"scenes.{chapter.module}"), chapter.scene)
    return type(f"{chapter.scene}Slide", (NarratedSlides, scene), {"__module__": __name__})


for _chapter in CHAPTERS:
    globals()[f"{_chapter.scene}Slide"] = slide_class(_chapter)

"""The explainer's camera traces every shape's outline into Cairo as Manim's own camera does
(scenes/camera.py): the same subpaths, the same curves, the same closed ends, and the same pixels."""

from __future__ import annotations

import random

import numpy as np
import pytest
from manim import DOWN, LEFT, RIGHT, UP, Arc, Arrow, Circle, DashedLine, Line, Square, Text, VGroup, VMobject
from manim.camera.moving_camera import MovingCamera

from scenes.camera import ExplainerCamera


def path(points: list) -> VMobject:
    shape = VMobject()
    shape.points = np.array(points, dtype=float)
    return shape


CURVE = [[0, 0, 0], [1, 1, 0], [2, 1, 0], [3, 0, 0]]


def shifted(curve: list, dx: float, dy: float = 0.0) -> list:
    return [[x + dx, y + dy, z] for x, y, z in curve]


SHAPES = {
    "text with holes": Text("猫喜欢 0.9926 attention", font_size=30),
    "closed curves": VGroup(Circle(), Square()),
    "open lines": VGroup(Line(LEFT, RIGHT), Arc(angle=2), Arrow(DOWN, UP)),
    "many subpaths": DashedLine(3 * LEFT, 3 * RIGHT),
    # a curve's end a hair from the next curve's start (within Manim's tolerance: one subpath) …
    "ends within tolerance": path(CURVE + shifted(CURVE, 3 + 1e-9)),
    # … and just beyond it (two subpaths), in x and then in y
    "ends apart in x": path(CURVE + shifted(CURVE, 3 + 1e-3)),
    "ends apart in y, then x": path(CURVE + shifted(CURVE, 3, 1e-3) + shifted(CURVE, 6 + 1e-3, 1e-3)),
    # a gap of exactly the tolerance (1e-6) is no split
    "ends a tolerance apart": path([[-4, 0, 0], [-3, 1, 0], [-2, 1, 0], [-1e-6, 0, 0]] + CURVE),
    # far from the origin, the tolerance grows with the start's own coordinate (and only its own):
    # measured from the end before it, this gap would split
    "ends within relative tolerance": path(shifted(CURVE, 997) + shifted(CURVE, 1000.01000105)),
    "ends apart near the x axis": path(shifted(CURVE, 7) + shifted(CURVE, 10, 2e-5)),
    "closed a hair off": path(CURVE + [[3, 0, 0], [2, -1, 0], [1, -1, 0], [1e-9, 0, 0]]),
}
# shapes Manim draws nothing of, or draws its own way
DEGENERATE = {
    "three points": path(CURVE[:3]),
    "six points": path(CURVE + CURVE[:2]),
    "not finite": path([[0, 0, 0], [np.nan, 1, 0], [2, 1, 0], [3, 0, 0]]),
    "no points": VMobject(),
}


class Recording:
    """A stand-in for a Cairo context that notes every call and its numbers, exactly (Cairo itself
    would round them to its own fixed point)."""

    def __init__(self):
        self.calls = []

    def __getattr__(self, name):
        return lambda *numbers: self.calls.append((name, [float(n).hex() for n in numbers]))


def traced(camera, shape: VMobject) -> list:
    """What Cairo is told, call by call, to trace each part of ``shape``."""
    recording = Recording()
    for part in shape.get_family():
        camera.set_cairo_context_path(recording, part)
    return recording.calls


@pytest.mark.parametrize("shape", [*SHAPES.values(), *DEGENERATE.values()], ids=[*SHAPES, *DEGENERATE])
def test_outlines_are_traced_as_manim_traces_them(shape):
    assert traced(ExplainerCamera(), shape) == traced(MovingCamera(), shape)


def test_a_shapes_subpaths_and_closed_ends_are_kept():
    """The comparisons above would pass if both cameras dropped subpaths: count them."""
    kinds = [name for name, _ in traced(ExplainerCamera(), SHAPES["ends apart in y, then x"])]
    assert kinds == ["new_path"] + ["new_sub_path", "move_to", "curve_to"] * 3
    kinds = [name for name, _ in traced(ExplainerCamera(), SHAPES["closed a hair off"])]
    assert kinds == ["new_path", "new_sub_path", "move_to", "curve_to", "curve_to", "close_path"]
    kinds = [name for name, _ in traced(ExplainerCamera(), SHAPES["ends a tolerance apart"])]
    assert kinds == ["new_path", "new_sub_path", "move_to", "curve_to", "curve_to"]


def test_random_outlines_near_the_tolerance_are_traced_as_manim_traces_them():
    """Curves whose ends meet the next start exactly, within, at and beyond the tolerance, in x or y,
    near and far from the origin, some closed."""
    chance = random.Random(42)
    ours, manims = ExplainerCamera(), MovingCamera()
    for _ in range(300):
        points = []
        for _ in range(chance.randint(1, 6)):
            if points and chance.random() < 0.7:
                x, y, _ = points[-1]
                gap = chance.choice([0, 1e-6, 1.0000001e-6, 9.99999e-7, 1e-6 + 1e-5 * abs(x), 2e-5, 1e-3])
                start = [x + gap * chance.randint(0, 1), y + gap * chance.randint(0, 1), 0]
            else:
                start = [chance.uniform(-1000, 1000), chance.uniform(-8, 8), 0]
            curve = [start] + [[chance.uniform(-10, 10), chance.uniform(-8, 8), 0] for _ in range(3)]
            if points and chance.random() < 0.3:
                curve[3] = list(points[0])
            points += curve
        assert traced(ours, path(points)) == traced(manims, path(points))


def test_points_manim_keeps_otherwise_are_traced_by_manims_own(monkeypatch):
    """float32 points (where Manim's comparison runs in float32) go to Manim's method."""
    handed = []
    manims = MovingCamera.set_cairo_context_path
    monkeypatch.setattr(MovingCamera, "set_cairo_context_path", lambda *a: handed.append(a) or manims(*a))
    shape = VMobject()
    shape.points = np.array(CURVE * 2, dtype=np.float32)
    traced(ExplainerCamera(), shape)
    traced(ExplainerCamera(), path(CURVE * 2))
    assert len(handed) == 1


def test_a_picture_is_manims_pixel_for_pixel():
    picture = VGroup(*SHAPES.values()).arrange_in_grid(cols=4, buff=0.3).scale_to_fit_width(13)
    pixels = []
    for camera in (MovingCamera(), ExplainerCamera()):
        camera.capture_mobjects([picture])
        pixels.append(camera.pixel_array.copy())
    assert np.array_equal(*pixels)
    assert pixels[0].any()

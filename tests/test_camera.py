"""The explainer's camera traces every shape's outline into Cairo as Manim's own camera does
(scenes/camera.py): the same subpaths, the same curves, the same closed ends, and the same pixels."""

from __future__ import annotations

import cairo
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
    # far from the origin, the tolerance grows with the start's own coordinate (and only its own)
    "ends within relative tolerance": path(shifted(CURVE, 997) + shifted(CURVE, 1000 + 1e-3)),
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


def traced(camera, shape: VMobject) -> list:
    """Every path Cairo is given for each part of ``shape``: its moves, curves and closes."""
    context = cairo.Context(cairo.ImageSurface(cairo.FORMAT_ARGB32, 8, 8))
    paths = []
    for part in shape.get_family():
        context.new_path()
        context.move_to(-1, -1)  # what a part that draws nothing leaves in place shows up too
        camera.set_cairo_context_path(context, part)
        paths.append(list(context.copy_path()))
    return paths


@pytest.mark.parametrize("shape", [*SHAPES.values(), *DEGENERATE.values()], ids=[*SHAPES, *DEGENERATE])
def test_outlines_are_traced_as_manim_traces_them(shape):
    assert traced(ExplainerCamera(), shape) == traced(MovingCamera(), shape)


def test_a_shapes_subpaths_and_closed_ends_are_kept():
    """The comparison above would pass if both cameras dropped subpaths: count them."""
    move, curve, close = cairo.PATH_MOVE_TO, cairo.PATH_CURVE_TO, cairo.PATH_CLOSE_PATH
    kinds = [kind for kind, _ in traced(ExplainerCamera(), SHAPES["ends apart in y, then x"])[0]]
    assert kinds == [move, curve] * 3
    kinds = [kind for kind, _ in traced(ExplainerCamera(), SHAPES["closed a hair off"])[0]]
    assert kinds == [move, curve, curve, close, move]  # Cairo moves to where a closed path began


def test_a_picture_is_manims_pixel_for_pixel():
    picture = VGroup(*SHAPES.values()).arrange_in_grid(cols=4, buff=0.3).scale_to_fit_width(13)
    pixels = []
    for camera in (MovingCamera(), ExplainerCamera()):
        camera.capture_mobjects([picture])
        pixels.append(camera.pixel_array.copy())
    assert np.array_equal(*pixels)
    assert pixels[0].any()

"""Bystanders drawn once an animation (scenes/bystanders.py): every frame is Manim's own, pixel for
pixel, and fewer shapes are drawn per frame than Manim draws."""

from __future__ import annotations

import numpy as np
import pytest
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Circle,
    Dot,
    FadeOut,
    Indicate,
    Line,
    MovingCamera,
    MovingCameraScene,
    Rectangle,
    Scene,
    ShowPassingFlash,
    Text,
    VGroup,
    VMobject,
    tempconfig,
)
from manim.renderer.cairo_renderer import CairoRenderer

from scenes import bystanders
from scenes.bystanders import DrawsBystandersOnce, boxes, meeting
from scenes.camera import ExplainerCamera

YELLOW = "#ffee00"


class Crowded(MovingCameraScene):
    """A mesh of links under nodes and labels, animated in ways that reach past where the shapes
    start and end (Indicate grows its label, a flash runs along a link, a dot drawn first crosses
    the picture under everything), with shapes stacked by z_index and a camera that moves at the end."""

    def construct(self):
        nodes = VGroup(*(Circle(0.25, color="#5fd3a4", fill_opacity=1).shift(1.2 * i * RIGHT) for i in range(5)))
        nodes.shift(2.4 * LEFT + UP)
        lower = nodes.copy().shift(2 * DOWN)
        links = VGroup(*(Line(a.get_center(), b.get_center(), stroke_width=3) for a in nodes for b in lower))
        labels = VGroup(*(Text(f"{i}", font_size=28).next_to(n, UP, buff=0.1) for i, n in enumerate(nodes)))
        under = Rectangle(width=1.5, height=0.6, fill_opacity=1, color="#333355").move_to(3 * DOWN).set_z_index(-1)
        dot = Dot(radius=0.15, color=YELLOW).move_to(4 * LEFT + 2.7 * DOWN)
        # The dot passes just under this line's stroke, clear of its points: only the stroke's reach
        # makes the line a bystander to redraw.
        rail = Line(3.5 * LEFT + 2.5 * DOWN, 3 * RIGHT + 2.5 * DOWN, stroke_width=20)
        self.add(dot, links, nodes, lower, labels, under, rail)
        self.play(links[7].animate.set_color("#ffaa33"), run_time=0.5)
        self.play(Indicate(labels[2], scale_factor=1.6), run_time=0.5)
        self.play(ShowPassingFlash(links[12].copy().set_color(YELLOW), time_width=0.5), run_time=0.5)
        self.play(dot.animate.shift(7 * RIGHT), run_time=0.8)
        self.play(dot.animate.move_to(4 * RIGHT + 2 * UP), run_time=0.8)
        self.play(FadeOut(labels[4]), under.animate.shift(RIGHT), run_time=0.5)
        self.play(self.camera.frame.animate.scale(0.7).move_to(nodes[1]), run_time=0.5)


class Stacked(MovingCameraScene):
    """A square sliding under a circle: the one bystander is redrawn every frame."""

    def construct(self):
        square = Rectangle(width=1, height=1, fill_opacity=1, color="#5fd3a4")
        self.add(square, Circle(0.8, fill_opacity=0.8, color="#ffaa33"))
        self.play(square.animate.shift(RIGHT), run_time=0.5)


class StackedOnManimsFirstCamera(Scene):
    """The same on a Scene's own camera, which has no frame to move."""

    construct = Stacked.construct


def drawing_bystanders_once(scene_class):
    return type(f"{scene_class.__name__}Once", (DrawsBystandersOnce, scene_class), {})


def frames_of(scene_class, monkeypatch) -> list[np.ndarray]:
    drawn = []
    render = CairoRenderer.render

    def keep(self, scene, time, moving_mobjects=None):
        render(self, scene, time, moving_mobjects)
        drawn.append(self.camera.pixel_array.copy())

    monkeypatch.setattr(CairoRenderer, "render", keep)
    with tempconfig({"dry_run": True, "disable_caching": True, "quality": "low_quality"}):
        scene_class().render()
    return drawn


def assert_manims_frames(ours_class, manims_class, monkeypatch) -> None:
    """Every frame of ``ours_class`` equals, pixel for pixel, the frame of ``manims_class`` (rendered
    after the test's patches are undone)."""
    ours = frames_of(ours_class, monkeypatch)
    monkeypatch.undo()
    manims = frames_of(manims_class, monkeypatch)
    assert len(ours) == len(manims) > 0
    for number, (mine, theirs) in enumerate(zip(ours, manims)):
        assert np.array_equal(mine, theirs), f"frame {number} differs from Manim's"


@pytest.mark.parametrize("scene_class", [Crowded, Stacked, StackedOnManimsFirstCamera])
def test_every_frame_is_manims_own(scene_class, monkeypatch):
    assert_manims_frames(drawing_bystanders_once(scene_class), scene_class, monkeypatch)


def on_the_explainers_camera(scene_class):
    def init(self, **kwargs):
        scene_class.__init__(self, camera_class=ExplainerCamera, **kwargs)

    return type(f"{scene_class.__name__}OnExplainerCamera", (scene_class,), {"__init__": init})


def test_the_explainers_camera_draws_manims_frames(monkeypatch):
    """The explainer's camera measures its frame once a frame (scenes/camera.py); with bystanders drawn
    once, the frames of a scene that zooms are still Manim's own."""
    widths = []  # (the width drawing is given, the frame's width measured now), a frame each
    draw = MovingCamera.capture_mobjects

    def drawing(self, mobjects, **kwargs):
        widths.append((self.measured_width, self.frame.width))
        draw(self, mobjects, **kwargs)

    monkeypatch.setattr(MovingCamera, "capture_mobjects", drawing)
    assert_manims_frames(drawing_bystanders_once(on_the_explainers_camera(Crowded)), Crowded, monkeypatch)
    assert all(given == measured for given, measured in widths)
    assert len({measured for _, measured in widths}) > 1  # the zoom changed it


def test_most_frames_draw_fewer_shapes_than_manim(monkeypatch):
    shapes_per_frame = []
    frame = bystanders.OneAnimation.frame

    def counted(self, scene):
        shapes = frame(self, scene)
        display = scene.renderer.camera.get_mobjects_to_display
        shapes_per_frame.append((len(display(shapes)), len(display(self.manims))))
        return shapes

    monkeypatch.setattr(bystanders.OneAnimation, "frame", counted)
    frames_of(drawing_bystanders_once(Crowded), monkeypatch)
    fewer = [drawn for drawn, manim in shapes_per_frame if drawn < manim]
    assert len(fewer) >= len(shapes_per_frame) // 2  # most frames drew fewer shapes than Manim…
    assert any(drawn == manim for drawn, manim in shapes_per_frame)  # … and some (the camera move) all


def test_boxes_reach_past_the_points_by_the_stroke_and_the_margin():
    line = Line(LEFT, RIGHT, stroke_width=4)
    (box,) = boxes([line], margin=0.1)
    reach = 4 * bystanders.LINE_WIDTH_PER_STROKE * bystanders.MITER_REACH + 0.1
    assert box == pytest.approx([-1 - reach, -reach, 1 + reach, reach])


def test_a_shape_without_points_has_a_box_that_meets_none():
    empty, line = VMobject(), Line(LEFT, RIGHT)
    found = boxes([empty, line, VMobject()], margin=0.1)
    assert meeting(found, found).tolist() == [[False, False, False], [False, True, False], [False, False, False]]
    assert not meeting(boxes([VMobject()], 0.1), found).any()


def test_boxes_meet_when_they_overlap_or_touch():
    these = np.array([[0.0, 0.0, 1.0, 1.0]])
    those = np.array([[1.0, 0.5, 2.0, 2.0], [1.01, 0.0, 2.0, 1.0], [0.2, -3.0, 0.4, -0.01]])
    assert meeting(these, those).tolist() == [[True, False, False]]

"""Line charts of real measurements: a box on screen that maps data to points, and its curves."""

from __future__ import annotations

from collections.abc import Sequence

from manim import RIGHT, Dot, Text, VGroup, VMobject

from scenes.mobjects.nodes import chart_axes, label
from scenes.theme import SMALL, role_colour


class Plot:
    """``box`` (left, right, bottom, top on screen) showing x in [0, x_max] and y in [y_min, y_max]."""

    def __init__(self, box: dict, x_max: float, y_min: float = 0.0, y_max: float = 1.0):
        self.box, self.x_max, self.y_min, self.y_max = box, x_max, y_min, y_max

    def point(self, x: float, y: float) -> list[float]:
        b = self.box
        return [
            b["left"] + x / self.x_max * (b["right"] - b["left"]),
            b["bottom"] + (y - self.y_min) / (self.y_max - self.y_min) * (b["top"] - b["bottom"]),
            0,
        ]

    def axes(
        self,
        x_ticks: Sequence[float],
        y_ticks: Sequence[float],
        x_title: str,
        y_title: str,
        x_format: str = "{:g}",
        y_format: str = "{:.1f}",
    ) -> VGroup:
        return chart_axes(
            self.box,
            [(x_format.format(x), self.point(x, self.y_min)) for x in x_ticks],
            [(y_format.format(y), self.point(0, y)) for y in y_ticks],
            x_title,
            y_title,
            y_title_buff=0.15,
        )

    def line(self, xs: Sequence[float], ys: Sequence[float], role: str, dots: bool = False) -> VGroup:
        """The polyline through the data (and a dot on each point if ``dots``)."""
        points = [self.point(x, y) for x, y in zip(xs, ys)]
        curve = VMobject(stroke_color=role_colour(role), stroke_width=3).set_points_as_corners(points)
        marks = VGroup(*(Dot(p, radius=0.05, color=role_colour(role)) for p in points)) if dots else VGroup()
        return VGroup(curve, marks)


def accuracy_curve(plot: Plot, rows: Sequence[dict], model: str, role: str, end: Text) -> VGroup:
    """One model's object accuracy against distance: line, dots, and its name with ``end`` (the
    last value's text, made by the caller) beside the last point."""
    curve = plot.line([r["distance"] for r in rows], [r[model] for r in rows], role, dots=True)
    name = label("Transformer" if model == "transformer" else "RNN", SMALL, role)
    tag = VGroup(name, end).arrange(RIGHT, buff=0.12).next_to(curve[1][-1], RIGHT, buff=0.15)
    return VGroup(curve[0], curve[1], tag)

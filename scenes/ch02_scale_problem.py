"""Chapter 2 — the size problem (seed 1.2): a network sized to its input grows faster than the
input, past what the machine holds; the attention model's size stays the same."""

from __future__ import annotations

import math

from manim import (DOWN, LEFT, RIGHT, UP, Create, DashedLine, Dot, FadeIn, FadeTransform, Flash, Line, Square,
                   Transform, VGroup, VMobject, Write)

from scenes.base import ExplainerScene
from scenes.mobjects import chart_axes, emphasise, label
from scenes.theme import role_colour

GROWING = (1, 2, 4, 8)  # input lengths drawn as a square of connections
SQUARE_UNIT = 0.55  # side of one word's block of connections
CHART = {"left": 0.6, "right": 6.6, "bottom": -2.9, "top": 2.6}
DECADES = range(2, 12)  # powers of ten on the parameter axis


def power_of_ten(exponent: int) -> str:
    """10^exponent written short: 100, 100K, 100M, 100B."""
    thousands, rest = divmod(exponent, 3)
    return f"{10 ** rest}{['', 'K', 'M', 'B', 'T'][thousands]}"


class ScaleProblem(ExplainerScene):
    title_key = "ch02.title"
    narration_lines = 10  # with the question and the recap

    def construct(self):
        self.show_small_network()
        self.grow_input()
        self.plot_growth()
        self.hit_the_limit()
        self.show_attention_flat()

    def row(self, length: int) -> dict:
        return next(r for r in self.trace["scale"] if r["length"] == length)

    def connections(self, length: int) -> VGroup:
        """Input words down the left, as many hidden nodes along the top, a cell per pair of words."""
        side = SQUARE_UNIT * length
        square = Square(side, stroke_color=role_colour("muted"), fill_color=role_colour("key"), fill_opacity=0.35)
        corner = square.get_corner(UP + LEFT)
        # line 0 lies unseen on the square's edge, so that a bigger square's new lines grow out of the
        # square (a square of one word has no other line to grow from)
        cells = VGroup(*(Line(corner + RIGHT * SQUARE_UNIT * i, corner + RIGHT * SQUARE_UNIT * i + DOWN * side)
                         for i in range(length)),
                       *(Line(corner + DOWN * SQUARE_UNIT * i, corner + DOWN * SQUARE_UNIT * i + RIGHT * side)
                         for i in range(length)))
        for i, line in enumerate(cells):
            line.set_stroke(role_colour("text"), 1, opacity=0.4 if i % length else 0)
        inputs = VGroup(*(Dot(corner + DOWN * SQUARE_UNIT * (i + 0.5) + LEFT * 0.2,
                              radius=0.08, color=role_colour("input")) for i in range(length)))
        group = VGroup(square, cells, inputs)
        return group.move_to([-3.6, -0.3, 0], aligned_edge=DOWN).shift(DOWN * 2.1)

    def count_label(self, length: int) -> VGroup:
        count = self.shown(f"fully connected {length}", self.row(length)["fully_connected"], 0, 22,
                           "highlight", grouped=True)
        words = label(f"{length} {self.say('word' if length == 1 else 'words')}", 20)
        return VGroup(words, label(self.say("parameters"), 18), count).arrange(RIGHT, buff=0.2).move_to([-3.6, 2.5, 0])

    def show_small_network(self):
        self.show_title()
        self.square = self.connections(1)
        self.count = self.count_label(1)
        with self.narration("ch02.one", count=f"{self.row(1)['fully_connected']:,}"):
            self.play(FadeIn(self.square), Write(self.count))

    def grow_input(self):
        for length in GROWING[1:]:
            bigger, count = self.connections(length), self.count_label(length).align_to(self.count, LEFT)
            with self.narration("ch02.grow", length=length, count=f"{self.row(length)['fully_connected']:,}"):
                # numbers cross-fade: morphing one digit's outline into another's draws shapes that are neither
                self.play(Transform(self.square, bigger),
                          *(FadeTransform(part, new) for part, new in zip(self.count, count)), run_time=1.5)
            self.count = count
        with self.narration("ch02.square"):
            self.play(emphasise(self.square[0], scale_factor=1.05))

    def position(self, length: int, count: float):
        """Chart coordinates: length on a log₂ axis, parameters on a log₁₀ axis."""
        lengths = [r["length"] for r in self.trace["scale"]]
        x = (math.log2(length) / math.log2(max(lengths)))
        y = (math.log10(count) - DECADES[0]) / (DECADES[-1] - DECADES[0])
        return [CHART["left"] + x * (CHART["right"] - CHART["left"]),
                CHART["bottom"] + y * (CHART["top"] - CHART["bottom"]), 0]

    def axes(self) -> VGroup:
        bottom = 10 ** DECADES[0]
        return chart_axes(CHART, [(str(n), self.position(n, bottom)) for n in (1, 16, 256, 4096)],
                          [(power_of_ten(d), self.position(1, 10**d)) for d in DECADES[::3]],
                          self.say("input_length"), self.say("parameters"))

    def plot_growth(self):
        rows = self.trace["scale"]
        self.points = VGroup(*(Dot(self.position(r["length"], r["fully_connected"]), radius=0.05,
                                   color=role_colour("key")) for r in rows))
        curve = VMobject(stroke_color=role_colour("key"), stroke_width=3).set_points_as_corners(
            [p.get_center() for p in self.points])
        with self.narration("ch02.curve", length=f"{rows[-1]['length']:,}"):
            self.play(FadeIn(self.axes()))
            self.play(Create(curve), FadeIn(self.points, lag_ratio=0.1), run_time=2.5)

    def hit_the_limit(self):
        fit = self.trace["hardware"]["parameters_that_fit"]
        first = next(r for r in self.trace["scale"] if r["fully_connected"] > fit)
        y = self.position(1, fit)[1]
        limit = DashedLine([CHART["left"], y, 0], [CHART["right"], y, 0], color=role_colour("highlight"))
        limit_label = VGroup(label(self.say("memory"), 16, "highlight"),
                             self.shown("parameters that fit", fit, 0, 16, "highlight", grouped=True))
        limit_label.arrange(RIGHT, buff=0.15).next_to(limit, UP, buff=0.08)
        limit_label.align_to(limit, LEFT).shift(0.15 * RIGHT)  # clear of the axis
        point = self.points[self.trace["scale"].index(first)]
        need = VGroup(label(f"{first['length']:,} {self.say('words')}", 16, "highlight"),
                      self.shown(f"fully connected {first['length']}", first["fully_connected"], 0, 16, "highlight",
                                 grouped=True))
        need.arrange(RIGHT, buff=0.15).next_to(point, UP, buff=0.15).align_to(point, RIGHT)
        # a point just above the line (a machine of less memory) would put the two labels on one another
        need.set_y(max(need.get_y(), limit_label.get_top()[1] + 0.08 + need.height / 2))
        with self.narration("ch02.limit", length=f"{first['length']:,}", count=f"{first['fully_connected']:,}",
                            fit=f"{fit:,}"):
            self.play(Create(limit), FadeIn(limit_label))
            self.play(Flash(point, color=role_colour("highlight")),
                      point.animate.scale(2).set_color(role_colour("highlight")), FadeIn(need))

    def show_attention_flat(self):
        count = self.trace["scale"][0]["attention"]
        self.numbers_on_screen["attention"] = count
        start, end = self.position(1, count), self.position(self.trace["scale"][-1]["length"], count)
        flat = Line(start, end, stroke_width=4, color=role_colour("query"))
        name = label(f"Attention: {count:,}", 18, "query").next_to(flat, UP, buff=0.1).align_to(flat, RIGHT)
        with self.narration("ch02.attention", count=f"{count:,}"):
            self.play(Create(flat), FadeIn(name), run_time=1.5)

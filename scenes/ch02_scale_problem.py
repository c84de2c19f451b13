"""Chapter 2 — the size problem (seed 1.2): a network sized to its input grows faster than the
input, past what the machine holds; the attention model's size stays the same.

The square of connections fills the left of the frame at every size: when the input doubles, the
square drawn so far shrinks into the corner of the new one, a quarter of it, and the real parameter
count beside it jumps. Then a log-log chart across the frame: the count against the input length,
the machine's memory as a line it crosses, the attention model's count flat below.
"""

from __future__ import annotations

import math

from manim import (
    DOWN,
    LEFT,
    PI,
    RIGHT,
    UL,
    UP,
    UR,
    Create,
    DashedLine,
    Dot,
    FadeIn,
    FadeOut,
    FadeTransform,
    Flash,
    Line,
    MoveToTarget,
    Rectangle,
    Square,
    VGroup,
    VMobject,
)

from scenes.base import ExplainerScene
from scenes.mobjects import chart_axes, emphasise, label
from scenes.theme import EDGE_OPACITY, HEADING, LABEL, OUTLINE_WIDTH, SMALL, role_colour

GROWING = (1, 2, 4, 8)  # input lengths drawn as a square of connections
SQUARE = {"side": 5.4, "x": -2.5, "y": -0.2}  # the square of connections, as big at every length
MESH_OPACITY = 0.2  # the line between two connections: a faint mesh, one cell per parameter of the square
COUNT_X = 3.9  # the middle of the counts written beside the square
COUNT_SIZE = 64  # the current parameter count, written large
HISTORY_TOP, HISTORY_PITCH = 2.3, 0.55  # the earlier lengths' counts, top down
CHART = {"left": -4.4, "right": 6.2, "bottom": -2.3, "top": 2.35}
Y_TITLE_BUFF = 0.28  # the axis title clear of the top tick label beside it
DECADES = range(2, 12)  # powers of ten on the parameter axis
GRID_OPACITY = 0.3  # a faint line at each power of ten, to read the chart by


def power_of_ten(exponent: int) -> str:
    """10^exponent written short: 100, 100K, 100M, 100B."""
    thousands, rest = divmod(exponent, 3)
    return f"{10**rest}{['', 'K', 'M', 'B', 'T'][thousands]}"


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
        """Input words down the left, as many groups of hidden nodes along the top: ``square`` (outline,
        fill, a faint line between any two connections — one per number of a word — and a brighter one
        between words) and ``ends`` (a dot per word on both sides)."""
        side = SQUARE["side"]
        unit, per_word = side / length, self.trace["attention"]["config"]["d_model"]
        square = Square(
            side,
            stroke_color=role_colour("key"),
            stroke_width=OUTLINE_WIDTH,
            fill_color=role_colour("key"),
            fill_opacity=0.3,
        )
        corner = square.get_corner(UL)
        lines = length * per_word
        mesh = VGroup()
        for i in range(1, lines):
            step = side * i / lines
            between_words = i % per_word == 0
            for line in (
                Line(corner + RIGHT * step, corner + RIGHT * step + DOWN * side),
                Line(corner + DOWN * step, corner + DOWN * step + RIGHT * side),
            ):
                mesh.add(
                    line.set_stroke(
                        role_colour("text"),
                        1.5 if between_words else 1,
                        opacity=EDGE_OPACITY if between_words else MESH_OPACITY,
                    )
                )
        radius = min(0.12, unit / 4)
        inputs = VGroup(
            *(
                Dot(corner + DOWN * unit * (i + 0.5) + LEFT * 0.3, radius=radius, color=role_colour("input"))
                for i in range(length)
            )
        )
        hidden = VGroup(
            *(
                Dot(corner + RIGHT * unit * (i + 0.5) + UP * 0.3, radius=radius, color=role_colour("value"))
                for i in range(length)
            )
        )
        group = VGroup(VGroup(square, mesh), VGroup(inputs, hidden))
        return group.shift([SQUARE["x"], SQUARE["y"], 0])

    def square_tags(self, drawn: VGroup) -> VGroup:
        """The input words' name stood upright along their column of dots (the frame's edge leaves no
        room for it written across), the hidden layer's after the row of dots on top."""
        inputs, hidden = drawn[1]
        name = self.say("ch02.inputs")
        upright = (
            label("\n".join(name), SMALL, "input") if not name.isascii() else label(name, SMALL, "input").rotate(PI / 2)
        )
        hidden_tag = label(self.say("ch02.hidden"), SMALL, "value")
        hidden_tag.next_to(drawn[0].get_corner(UR), RIGHT, buff=0.15).set_y(hidden.get_y())
        return VGroup(upright.next_to(inputs, LEFT, buff=0.2).set_y(drawn[0].get_y()), hidden_tag)

    def words(self, length: int, size: float) -> VGroup:
        return label(f"{length} {self.say('word' if length == 1 else 'words')}", size, "input")

    def count_label(self, length: int) -> VGroup:
        count = self.shown(
            f"fully connected {length}", self.row(length)["fully_connected"], 0, COUNT_SIZE, "highlight", grouped=True
        )
        return (
            VGroup(self.words(length, HEADING), count, label(self.say("parameters"), LABEL))
            .arrange(DOWN, buff=0.3)
            .move_to([COUNT_X, SQUARE["y"] - 0.6, 0])
        )

    def history_row(self, length: int, rank: int) -> VGroup:
        """An earlier length's count, small, in a column above the current one."""
        count = self.shown(
            f"fully connected {length}", self.row(length)["fully_connected"], 0, LABEL, "highlight", grouped=True
        )
        row = VGroup(self.words(length, LABEL), count).arrange(RIGHT, buff=0.3)
        return row.move_to([COUNT_X, HISTORY_TOP - rank * HISTORY_PITCH, 0])

    def show_small_network(self):
        self.show_title()
        self.square = self.connections(1)
        self.tags = self.square_tags(self.square)
        self.count = self.count_label(1)
        self.history = VGroup()  # the counts of the shorter inputs, above the current one
        self.earlier = VGroup()  # the squares of the shorter inputs, shrunk into the corner of the latest
        with self.narration("ch02.one", count=f"{self.row(1)['fully_connected']:,}"):
            self.play(FadeIn(self.square[0]), FadeIn(self.square[1]), FadeIn(self.tags))
            self.play(FadeIn(self.count, shift=0.3 * UP))

    def grow_input(self):
        for rank, length in enumerate(GROWING[1:]):
            bigger, count = self.connections(length), self.count_label(length)
            tags = self.square_tags(bigger)
            corner = bigger[0].get_corner(UL)
            drawn_so_far = VGroup(*self.earlier, self.square[0])
            drawn_so_far.generate_target()
            drawn_so_far.target.scale(0.5, about_point=corner)
            for outline, _ in drawn_so_far.target:  # the earlier squares' outlines stand out, not their mesh
                outline.set_stroke(role_colour("highlight"))
            done = self.history_row(GROWING[rank], rank)
            with self.narration("ch02.grow", length=length, count=f"{self.row(length)['fully_connected']:,}"):
                # the square drawn so far becomes the new one's top-left quarter: the input's words
                # doubled, the connections four-fold; its count goes up to the list of counts so far
                self.add(bigger[0])
                self.bring_to_back(bigger[0])
                self.play(
                    MoveToTarget(drawn_so_far),
                    FadeOut(self.square[1]),
                    FadeIn(bigger[1]),
                    FadeTransform(self.tags, tags),
                    FadeTransform(self.count[:2], done),
                    FadeOut(self.count[2]),
                    FadeIn(count, shift=0.3 * UP),
                    run_time=1.6,
                )
            self.earlier.add(self.square[0])
            self.history.add(done)
            self.square, self.tags, self.count = bigger, tags, count
        with self.narration("ch02.square"):
            self.play(emphasise(self.earlier[-1], role="highlight", scale_factor=1.05))

    def position(self, length: int, count: float):
        """Chart coordinates: length on a log₂ axis, parameters on a log₁₀ axis."""
        lengths = [r["length"] for r in self.trace["scale"]]
        x = math.log2(length) / math.log2(max(lengths))
        y = (math.log10(count) - DECADES[0]) / (DECADES[-1] - DECADES[0])
        return [
            CHART["left"] + x * (CHART["right"] - CHART["left"]),
            CHART["bottom"] + y * (CHART["top"] - CHART["bottom"]),
            0,
        ]

    def axes(self) -> VGroup:
        bottom = 10 ** DECADES[0]
        lengths = (1, 16, 256, 4096)
        grid = VGroup(
            *(Line(self.position(1, 10**d), [CHART["right"], self.position(1, 10**d)[1], 0]) for d in DECADES[1:]),
            *(Line(self.position(n, bottom), [self.position(n, bottom)[0], CHART["top"], 0]) for n in lengths[1:]),
        )
        grid.set_stroke(role_colour("muted"), 2, opacity=GRID_OPACITY)
        return VGroup(
            grid,
            chart_axes(
                CHART,
                [(f"{n:,}", self.position(n, bottom)) for n in lengths],
                [(power_of_ten(d), self.position(1, 10**d)) for d in DECADES[::3]],
                self.say("input_length"),
                self.say("parameters"),
                y_title_buff=Y_TITLE_BUFF,
            ),
        )

    def plot_growth(self):
        rows = self.trace["scale"]
        self.points = VGroup(
            *(
                Dot(self.position(r["length"], r["fully_connected"]), radius=0.07, color=role_colour("key"))
                for r in rows
            )
        )
        curve = VMobject(stroke_color=role_colour("key"), stroke_width=4).set_points_as_corners(
            [p.get_center() for p in self.points]
        )
        known = self.points[: len(GROWING)]
        with self.narration("ch02.curve", length=f"{rows[-1]['length']:,}"):
            # the square and its counts are the chart's first points: they go there
            self.play(
                FadeOut(VGroup(self.square, self.earlier, self.tags), target_position=known[-1], scale=0.05),
                *(
                    FadeOut(row, target_position=point, scale=0.2)
                    for row, point in zip([*self.history, self.count], known)
                ),
                FadeIn(self.axes()),
                FadeIn(known, lag_ratio=0.2),
                run_time=1.5,
            )
            self.play(Create(curve), FadeIn(self.points[len(GROWING) :], lag_ratio=0.1), run_time=2.5)

    def hit_the_limit(self):
        fit = self.trace["hardware"]["parameters_that_fit"]
        first = next(r for r in self.trace["scale"] if r["fully_connected"] > fit)
        y = self.position(1, fit)[1]
        limit = DashedLine(
            [CHART["left"], y, 0], [CHART["right"], y, 0], color=role_colour("highlight"), stroke_width=4
        )
        # what this machine cannot hold: all of the chart above its memory
        beyond = Rectangle(
            width=CHART["right"] - CHART["left"],
            height=max(0.01, CHART["top"] - y),
            stroke_width=0,
            fill_color=role_colour("highlight"),
            fill_opacity=0.15,
        )
        beyond.move_to([CHART["left"], y, 0], aligned_edge=DOWN + LEFT)
        limit_label = VGroup(
            label(self.say("memory"), SMALL, "highlight"),
            self.shown("parameters that fit", fit, 0, LABEL, "highlight", grouped=True),
        )
        limit_label.arrange(RIGHT, buff=0.2).next_to(limit, DOWN, buff=0.12)
        limit_label.align_to(limit, LEFT).shift(0.2 * RIGHT)  # clear of the axis
        point = self.points[self.trace["scale"].index(first)]
        need = VGroup(
            label(f"{first['length']:,} {self.say('words')}", SMALL, "key"),
            self.shown(f"fully connected {first['length']}", first["fully_connected"], 0, LABEL, "key", grouped=True),
        )
        need.arrange(RIGHT, buff=0.2).next_to(point, UP, buff=0.15).align_to(point, RIGHT)
        # a point just above the line (a machine of less memory) would put the two labels on one another
        need.set_y(max(need.get_y(), limit.get_y() + 0.1 + need.height / 2))
        with self.narration(
            "ch02.limit", length=f"{first['length']:,}", count=f"{first['fully_connected']:,}", fit=f"{fit:,}"
        ):
            self.play(Create(limit), FadeIn(beyond), FadeIn(limit_label))
            self.play(
                Flash(point, color=role_colour("highlight")),
                point.animate.scale(2).set_color(role_colour("highlight")),
                FadeIn(need, shift=0.2 * UP),
            )

    def show_attention_flat(self):
        count = self.trace["scale"][0]["attention"]
        self.numbers_on_screen["attention"] = count
        start, end = self.position(1, count), self.position(self.trace["scale"][-1]["length"], count)
        flat = Line(start, end, stroke_width=5, color=role_colour("query"))
        name = label(f"Attention: {count:,}", LABEL, "query").next_to(flat, UP, buff=0.12).align_to(flat, RIGHT)
        with self.narration("ch02.attention", count=f"{count:,}"):
            self.play(Create(flat), FadeIn(name), run_time=1.5)

"""Chapter 9 — why divide by √d_k (Q8): the variance of q·k grows with d_k; undivided, a softmax
row turns one-hot and its gradient vanishes; divided, the spread stays near 1. Seeded sampling
from the Trace."""

from __future__ import annotations

import math

from manim import (DOWN, RIGHT, UP, Create, DashedLine, Dot, FadeIn, FadeTransform, Line, ReplacementTransform,
                   Transform, VGroup)

from scenes.base import ExplainerScene
from scenes.mobjects import Plot, bar, chart_axes, emphasise, label
from scenes.theme import role_colour

CHART = {"left": -4.5, "right": 3.5, "bottom": -2.5, "top": 2.2}
PANELS = {"unscaled": -3.4, "scaled": 3.4}  # centres of the two softmax panels
BARS = {"base": -2.2, "height": 3.6, "width": 0.42, "step": 0.6}
COLUMNS = (-4.6, -2.3, 0.0, 2.3, 4.6)  # the table's columns: d_k, two largest weights, two gradients


class SqrtDk(ExplainerScene):
    title_key = "ch09.title"
    narration_lines = 6  # with the question and the recap

    def construct(self):
        self.variance_grows()
        self.scaled_variance_stays()
        self.softmax_sharpens()
        self.gradient_vanishes()

    @property
    def rows(self) -> list[dict]:
        return self.trace["sqrt_dk"]

    def plot(self) -> Plot:
        """d_k and variance on log₂ axes: x from the smallest d_k, y from 1/2."""
        self.smallest = math.log2(self.rows[0]["d_k"])
        return Plot(CHART, x_max=math.log2(self.rows[-1]["d_k"]) - self.smallest, y_min=-1,
                    y_max=math.log2(self.rows[-1]["d_k"]) + 1)

    def point(self, d_k: float, variance: float):
        return self.chart.point(math.log2(d_k) - self.smallest, math.log2(variance))

    def variance_grows(self):
        self.title = self.show_title()
        self.chart = self.plot()
        sizes = [row["d_k"] for row in self.rows]
        axes = chart_axes(CHART, [(str(d), self.point(d, 0.5)) for d in sizes],
                          [(f"{v:g}", self.point(sizes[0], v)) for v in (1, 4, 16, 64, 256, 1024) if v <= 2 * sizes[-1]],
                          "d_k", self.say("variance"), y_title_buff=0.15)
        reference = DashedLine(self.point(sizes[0], sizes[0]), self.point(sizes[-1], sizes[-1]))
        reference.set_stroke(role_colour("muted"), 2)
        tag = label("= d_k", 16, "muted").next_to(reference.get_end(), RIGHT, buff=0.15).shift(0.3 * DOWN)
        self.measured = VGroup(*(Dot(self.point(row["d_k"], row["score_variance"]), radius=0.08,
                                     color=role_colour("highlight")) for row in self.rows))
        last = self.rows[-1]
        number = self.shown("variance last", last["score_variance"], 1, 18, "highlight")
        number.next_to(self.measured[-1], UP, buff=0.15)
        with self.narration("ch09.variance", d_k=last["d_k"], variance=f"{last['score_variance']:.1f}"):
            self.play(FadeIn(axes), Create(reference), FadeIn(tag))
            for dot in self.measured:
                self.play(FadeIn(dot, scale=2), run_time=0.4)
            self.play(FadeIn(number))

    def scaled_variance_stays(self):
        dots = VGroup(*(Dot(self.point(row["d_k"], row["score_variance_scaled"]), radius=0.08,
                            color=role_colour("query")) for row in self.rows))
        line = Line(dots[0].get_center(), dots[-1].get_center()).set_stroke(role_colour("query"), 2)
        last = self.rows[-1]
        number = self.shown("scaled variance last", last["score_variance_scaled"], 2, 18, "query")
        name = label(self.say("scaled"), 16, "query")
        VGroup(name, number).arrange(RIGHT, buff=0.15).next_to(dots[-1], UP, buff=0.2)
        with self.narration("ch09.scaled", scaled=f"{last['score_variance_scaled']:.2f}"):
            self.play(*(Transform(self.measured[i].copy(), dot) for i, dot in enumerate(dots)), run_time=1.5)
            self.play(Create(line), FadeIn(name), FadeIn(number))

    def softmax_bars(self, weights: list[float], centre: float, role: str) -> VGroup:
        bars = VGroup()
        for i, weight in enumerate(weights):
            x = centre + (i - (len(weights) - 1) / 2) * BARS["step"]
            bars.add(bar(weight, BARS["height"], BARS["width"], role).move_to([x, BARS["base"], 0], aligned_edge=DOWN))
        return bars

    def panel(self, row: dict, kind: str) -> VGroup:
        """One d_k's example row: its softmax weights as bars and the largest weight written above."""
        role = "highlight" if kind == "unscaled" else "query"
        weights = row[f"example_weights_{kind}"]
        bars = self.softmax_bars(weights, PANELS[kind], role)
        largest = self.shown(f"max {kind} {row['d_k']}", max(weights), 3, 20, role)
        return VGroup(bars, largest.move_to([PANELS[kind], BARS["base"] + BARS["height"] + 0.35, 0]))

    def softmax_sharpens(self):
        self.clear_stage()
        first, last = self.rows[0], self.rows[-1]
        names = VGroup(*(label(self.say(kind), 20, "highlight" if kind == "unscaled" else "query")
                         .move_to([PANELS[kind], BARS["base"] + BARS["height"] + 0.9, 0]) for kind in PANELS))
        floor = VGroup(*(Line([c - 2.5, BARS["base"], 0], [c + 2.5, BARS["base"], 0]) for c in PANELS.values()))
        floor.set_stroke(role_colour("muted"), 2)
        size = label(self.say("d_k_is", d_k=first["d_k"]), 22).move_to([0, BARS["base"] - 0.5, 0])
        panels = VGroup(self.panel(first, "unscaled"), self.panel(first, "scaled"))
        with self.narration("ch09.softmax", d_k=last["d_k"], unscaled=f"{last['max_weight_unscaled']:.3f}",
                            scaled=f"{max(last['example_weights_scaled']):.3f}"):
            self.play(FadeIn(names), FadeIn(floor), FadeIn(size), FadeIn(panels))
            for row in self.rows[1:]:
                shown = label(self.say("d_k_is", d_k=row["d_k"]), 22).move_to(size)
                changed = VGroup(self.panel(row, "unscaled"), self.panel(row, "scaled"))
                self.play(*(ReplacementTransform(bars, new_bars) for (bars, _), (new_bars, _) in zip(panels, changed)),
                          *(FadeTransform(largest, new) for (_, largest), (_, new) in zip(panels, changed)),
                          FadeTransform(size, shown), run_time=1.0)
                panels, size = changed, shown
                self.wait(0.4)

    def gradient_vanishes(self):
        self.clear_stage()
        heads = [("d_k",), ("max_weight", "unscaled"), ("max_weight", "scaled"), ("gradient", "unscaled"),
                 ("gradient", "scaled")]
        roles = ("text", "highlight", "query", "highlight", "query")
        lines = [[line for key in head for line in (self.say(key) if key != "d_k" else key).split("\n")]
                 for head in heads]  # a name too wide for its column is written on two lines
        table = VGroup(VGroup(*(VGroup(*(label(line, 16, role) for line in head)).arrange(DOWN, buff=0.06)
                                .move_to([x, 2.2, 0]) for head, role, x in zip(lines, roles, COLUMNS))))
        fields = ("max_weight_unscaled", "max_weight_scaled", "grad_norm_unscaled", "grad_norm_scaled")
        for r, row in enumerate(self.rows):
            y = 1.2 - 0.75 * r
            cells = [label(str(row["d_k"]), 20).move_to([COLUMNS[0], y, 0])]
            cells += [self.shown(f"{field} {row['d_k']}", row[field], 3, 20, role).move_to([x, y, 0])
                      for field, role, x in zip(fields, roles[1:], COLUMNS[1:])]
            table.add(VGroup(*cells))
        rule = Line([COLUMNS[0] - 0.8, 1.65, 0], [COLUMNS[-1] + 0.9, 1.65, 0]).set_stroke(role_colour("muted"), 1)
        first, last = self.rows[0], self.rows[-1]
        with self.narration("ch09.gradient", start=f"{first['grad_norm_unscaled']:.3f}",
                            end=f"{last['grad_norm_unscaled']:.3f}", scaled=f"{last['grad_norm_scaled']:.2f}"):
            self.play(FadeIn(table[0]), Create(rule))
            for line in table[1:]:
                self.play(FadeIn(line, shift=0.1 * DOWN), run_time=0.5)
            self.play(emphasise(table[-1][3]), emphasise(table[-1][4]))

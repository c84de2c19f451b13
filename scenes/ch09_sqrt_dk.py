"""Chapter 9 — why divide by √d_k (Q8): the variance of q·k grows with d_k; undivided, a softmax
row turns one-hot and its gradient vanishes; divided, the spread stays near 1. Seeded sampling
from the Trace."""

from __future__ import annotations

import math

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Create,
    DashedLine,
    Dot,
    FadeIn,
    FadeTransform,
    GrowFromEdge,
    Line,
    Rectangle,
    ReplacementTransform,
    Transform,
    VGroup,
)

from scenes.base import ExplainerScene
from scenes.math import formula
from scenes.mobjects import Plot, bar, emphasise, label
from scenes.theme import HEADING, LABEL, SMALL, role_colour

CHART = {"left": -5.7, "right": 4.9, "bottom": -2.4, "top": 2.45}
PANELS = {"unscaled": -3.45, "scaled": 3.45}  # centres of the two softmax panels
BARS = {"base": -1.85, "height": 3.9, "width": 0.52, "step": 0.7}
COLUMNS = (-5.5, -3.2, -0.7, 1.9, 4.6)  # the table's columns: d_k, two largest weights, two gradients
ROW_PITCH = 0.75  # between the table's rows
TABLE_BAR = 1.9  # the longest bar behind a table's number

# What is divided and what is not, typeset: the two softmaxes and the two columns of the table.
SOFTMAX = {
    "unscaled": r"\mathrm{softmax}(q\cdot k)",
    "scaled": r"\mathrm{softmax}\left(\frac{q\cdot k}{\sqrt{d_k}}\right)",
}
SCORE = {"unscaled": r"q\cdot k", "scaled": r"\dfrac{q\cdot k}{\sqrt{d_k}}"}
ROLE = {"unscaled": "highlight", "scaled": "query"}


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
        return Plot(
            CHART,
            x_max=math.log2(self.rows[-1]["d_k"]) - self.smallest,
            y_min=-1,
            y_max=math.log2(self.rows[-1]["d_k"]) + 1,
        )

    def point(self, d_k: float, variance: float):
        return self.chart.point(math.log2(d_k) - self.smallest, math.log2(variance))

    def log_axes(self, sizes: list[int], variances: list[float]) -> VGroup:
        """Axes on log₂ scales, a faint line across the chart at every tick (on a log scale the eye
        cannot guess where 64 falls), the tick labels and the two axes' names typeset."""
        low, high = sizes[0], sizes[-1]
        corner = self.point(low, 0.5)
        axes = VGroup(Line(corner, self.point(high, 0.5)), Line(corner, [corner[0], CHART["top"], 0]))
        axes.set_stroke(role_colour("muted"), 2.5)
        grid = VGroup(
            *(Line(self.point(d, 0.5), [self.point(d, 0.5)[0], CHART["top"], 0]) for d in sizes[1:]),
            *(Line(self.point(low, v), self.point(high, v)) for v in variances),
        )
        grid.set_stroke(role_colour("muted"), 2, opacity=0.3)
        ticks = VGroup(
            *(label(str(d), SMALL, "muted").next_to(self.point(d, 0.5), DOWN, buff=0.12) for d in sizes),
            *(label(f"{v:g}", SMALL, "muted").next_to(self.point(low, v), LEFT, buff=0.22) for v in variances),
        )
        names = VGroup(
            formula("d_k", size=HEADING, role="muted")
            .next_to(ticks, DOWN, buff=0.15)
            .set_x((CHART["left"] + CHART["right"]) / 2),
            formula(r"\mathrm{Var}(q\cdot k)", size=HEADING, role="muted").next_to(
                [corner[0], CHART["top"], 0], UP, buff=0.15
            ),
        )
        return VGroup(grid, axes, ticks, names)

    def variance_grows(self):
        self.title = self.show_title()
        self.chart = self.plot()
        sizes = [row["d_k"] for row in self.rows]
        variances = [v for v in (1, 4, 16, 64, 256, 1024) if v <= 2 * sizes[-1]]
        axes = self.log_axes(sizes, variances)
        reference = DashedLine(self.point(sizes[0], sizes[0]), self.point(sizes[-1], sizes[-1]))
        reference.set_stroke(role_colour("muted"), 3)
        tag = formula(r"\mathrm{Var}=d_k", size=HEADING, role="muted").next_to(reference.get_end(), RIGHT, buff=0.2)
        tag.shift(0.45 * DOWN)
        self.measured = VGroup(
            *(
                Dot(self.point(row["d_k"], row["score_variance"]), radius=0.12, color=role_colour("highlight"))
                for row in self.rows
            )
        )
        # each point's measured variance written beside it, below the dashed line (clear of the tick
        # labels at the left): read along the chart, every one is close to its d_k; the last, which the
        # narration names, larger and above its point
        last = self.rows[-1]
        numbers = VGroup(
            *(
                self.shown(f"variance {row['d_k']}", row["score_variance"], 1, SMALL, "highlight").next_to(
                    dot, DOWN + RIGHT, buff=0.05
                )
                for row, dot in zip(self.rows[:-1], self.measured)
            ),
            self.shown("variance last", last["score_variance"], 1, LABEL, "highlight").next_to(
                self.measured[-1], UP + LEFT, buff=0.1
            ),
        )
        with self.narration("ch09.variance", d_k=last["d_k"], variance=f"{last['score_variance']:.1f}"):
            self.play(FadeIn(axes), Create(reference), FadeIn(tag))
            for dot, value in zip(self.measured, numbers):
                self.play(FadeIn(dot, scale=2), FadeIn(value), run_time=0.4)

    def scaled_variance_stays(self):
        dots = VGroup(
            *(
                Dot(self.point(row["d_k"], row["score_variance_scaled"]), radius=0.12, color=role_colour("query"))
                for row in self.rows
            )
        )
        line = Line(dots[0].get_center(), dots[-1].get_center()).set_stroke(role_colour("query"), 4)
        last = self.rows[-1]
        number = self.shown("scaled variance last", last["score_variance_scaled"], 2, LABEL, "query")
        name = formula(r"\mathrm{Var}\left(\frac{q\cdot k}{\sqrt{d_k}}\right)=", size=HEADING, role="query")
        VGroup(name, number).arrange(RIGHT, buff=0.15).next_to(dots[-1], UP, buff=0.3).align_to(dots[-1], RIGHT)
        with self.narration("ch09.scaled", scaled=f"{last['score_variance_scaled']:.2f}"):
            # each measured dot falls to where dividing by √d_k puts it
            self.play(*(Transform(self.measured[i].copy(), dot) for i, dot in enumerate(dots)), run_time=1.5)
            self.play(Create(line), FadeIn(name), FadeIn(number))

    def softmax_bars(self, weights: list[float], centre: float, role: str) -> VGroup:
        bars = VGroup()
        for i, weight in enumerate(weights):
            x = centre + (i - (len(weights) - 1) / 2) * BARS["step"]
            bars.add(bar(weight, BARS["height"], BARS["width"], role).move_to([x, BARS["base"], 0], aligned_edge=DOWN))
        return bars

    def panel(self, row: dict, kind: str) -> VGroup:
        """One d_k's example row: its softmax weights as bars, the largest weight written over its bar."""
        weights = row[f"example_weights_{kind}"]
        bars = self.softmax_bars(weights, PANELS[kind], ROLE[kind])
        largest = self.shown(f"max {kind} {row['d_k']}", max(weights), 3, LABEL, ROLE[kind])
        tallest = bars[max(range(len(weights)), key=weights.__getitem__)]
        top = BARS["base"] + BARS["height"] + 0.12  # over the bar's track, which reaches a weight of 1
        return VGroup(bars, largest.move_to([tallest.get_x(), top + largest.height / 2, 0]))

    def softmax_sharpens(self):
        self.clear_stage()
        first, last = self.rows[0], self.rows[-1]
        names = VGroup(
            *(
                formula(SOFTMAX[kind], size=HEADING, role=ROLE[kind]).move_to([PANELS[kind], BARS["base"] - 0.7, 0])
                for kind in PANELS
            )
        )
        # each bar's track, as tall as a weight of 1: how far a row is from one-hot reads off at a glance
        tracks = VGroup(
            *(
                Rectangle(width=BARS["width"], height=BARS["height"]).move_to(bar, aligned_edge=DOWN)
                for kind in PANELS
                for bar in self.softmax_bars(first[f"example_weights_{kind}"], PANELS[kind], ROLE[kind])
            )
        )
        tracks.set_stroke(role_colour("muted"), 2, opacity=0.4)
        half = (len(first["example_weights_scaled"]) * BARS["step"]) / 2 + 0.1
        floor = VGroup(*(Line([c - half, BARS["base"], 0], [c + half, BARS["base"], 0]) for c in PANELS.values()))
        floor.set_stroke(role_colour("muted"), 2.5)
        size = self.size_label(first["d_k"])
        panels = VGroup(self.panel(first, "unscaled"), self.panel(first, "scaled"))
        with self.narration(
            "ch09.softmax",
            d_k=last["d_k"],
            count=len(first["example_weights_scaled"]),
            unscaled=f"{last['max_weight_unscaled']:.3f}",
            scaled=f"{max(last['example_weights_scaled']):.3f}",
        ):
            self.play(FadeIn(names), FadeIn(floor), Create(tracks), FadeIn(size), FadeIn(panels))
            for row in self.rows[1:]:
                shown = self.size_label(row["d_k"])
                changed = VGroup(self.panel(row, "unscaled"), self.panel(row, "scaled"))
                self.play(
                    *(ReplacementTransform(bars, new_bars) for (bars, _), (new_bars, _) in zip(panels, changed)),
                    *(FadeTransform(largest, new) for (_, largest), (_, new) in zip(panels, changed)),
                    FadeTransform(size, shown),
                    run_time=1.0,
                )
                panels, size = changed, shown
                self.wait(0.4)

    @staticmethod
    def size_label(d_k: int):
        return formula(rf"d_k={d_k}", size=HEADING).move_to([0, BARS["base"] - 0.7, 0])

    def table_bars(self, values: list[float], x: float, ys: list[float], role: str) -> VGroup:
        """Behind each number of a column, a bar as long as the number against the column's largest:
        down the column the eye sees the weight grow to 1 and the gradient fade."""
        largest = max(values)
        return VGroup(
            *(
                Rectangle(
                    width=max(0.02, TABLE_BAR * v / largest),
                    height=0.5,
                    stroke_width=0,
                    fill_color=role_colour(role),
                    fill_opacity=0.3,
                ).move_to([x - TABLE_BAR / 2, y, 0], aligned_edge=LEFT)
                for v, y in zip(values, ys)
            )
        ).set_z_index(-1)  # behind the numbers

    def gradient_vanishes(self):
        self.clear_stage()
        kinds = ("unscaled", "scaled")
        groups = VGroup(
            *(
                label(self.say(key), LABEL).move_to([(COLUMNS[1 + 2 * g] + COLUMNS[2 + 2 * g]) / 2, 2.5, 0])
                for g, key in enumerate(("max_weight", "gradient"))
            )
        )
        heads = VGroup(
            formula("d_k", size=HEADING).move_to([COLUMNS[0], 1.6, 0]),
            *(
                formula(SCORE[kind], size=HEADING, role=ROLE[kind]).move_to([x, 1.6, 0])
                for x, kind in zip(COLUMNS[1:], kinds * 2)
            ),
        )
        rule = Line([COLUMNS[0] - 0.8, 1.05, 0], [COLUMNS[-1] + 1.0, 1.05, 0]).set_stroke(role_colour("muted"), 2)
        fields = ("max_weight_unscaled", "max_weight_scaled", "grad_norm_unscaled", "grad_norm_scaled")
        ys = [0.6 - ROW_PITCH * r for r in range(len(self.rows))]
        lines = []
        for y, row in zip(ys, self.rows):
            cells = [label(str(row["d_k"]), LABEL).move_to([COLUMNS[0], y, 0])]
            cells += [
                self.shown(f"{field} {row['d_k']}", row[field], 3, LABEL, ROLE[kind]).move_to([x, y, 0])
                for field, kind, x in zip(fields, kinds * 2, COLUMNS[1:])
            ]
            lines.append(VGroup(*cells))
        bars = [
            self.table_bars([row[field] for row in self.rows], x, ys, ROLE[kind])
            for field, kind, x in zip(fields, kinds * 2, COLUMNS[1:])
        ]
        first, last = self.rows[0], self.rows[-1]
        with self.narration(
            "ch09.gradient",
            start=f"{first['grad_norm_unscaled']:.3f}",
            end=f"{last['grad_norm_unscaled']:.3f}",
            scaled=f"{last['grad_norm_scaled']:.2f}",
        ):
            self.play(FadeIn(groups), FadeIn(heads), Create(rule))
            for r, line in enumerate(lines):
                self.play(
                    *(GrowFromEdge(column[r], LEFT) for column in bars), FadeIn(line, shift=0.1 * DOWN), run_time=0.5
                )
            self.play(emphasise(lines[-1][3]), emphasise(lines[-1][4]))

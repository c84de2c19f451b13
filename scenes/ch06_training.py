"""Chapter 6 — how attention trains itself (seed 3.1–3.3): input and target at the two ends, the
difference sent back; the recorded training history; Query and Key specialising; the copies'
updates averaged into one."""

from __future__ import annotations

import math

from manim import (DOWN, DR, LEFT, RIGHT, UP, UR, Create, CurvedArrow, FadeIn, FadeOut, FadeTransform, Line, Rectangle,
                   Text, Transform, VGroup)

from scenes.base import LEFT_MARGIN, ExplainerScene
from scenes.layout import drawn_slots
from scenes.mobjects import (Connections, HeatGrid, NodeLayer, Plot, TokenRow, bar, column_labels, emphasise, fitted,
                             label, prediction_rows, size_to_fit)
from scenes.strings import written
from scenes.theme import role_colour

LOSS_BOX = {"left": -5.6, "right": -1.0, "bottom": -2.4, "top": 2.0}
WEIGHT_BOX = {"left": 1.2, "right": 5.8, "bottom": -2.4, "top": 2.0}
SCORE_BAR = {"width": 0.7, "step": 1.5, "height": 2.6, "base": -0.6}
SCORES_SPAN = (-3.75, 2.2)  # lowest and highest y the bars, their numbers and the words may take
WORDS_GAP = 0.6  # from the lowest a bar may reach down to the words
SCORES_WIDTH = 12.5  # room for the score bars of every word
SNAPSHOTS_SHOWN = 12  # history entries the score bars pass through
WORDS_HEIGHT = 5.0  # room for the input words, one under another
INPUT_ROWS = 14  # input words listed at most; a longer sentence's middle ones share a "︙"
ROOM = 8  # columns of copies' updates side by side (a long sentence's middle words share one)


class Training(ExplainerScene):
    title_key = "ch06.title"
    narration_lines = 12  # with the question and the recap

    def construct(self):
        self.show_both_ends()
        self.compare_with_target()
        self.send_back()
        self.show_history()
        if not self.alone:
            self.specialise()
        self.average_updates()

    @property
    def training(self) -> dict:
        return self.trace["training"]

    @property
    def alone(self) -> bool:
        """Whether the word predicting the target is the first: its weight is 1 whatever Query and Key do."""
        return self.training["query_index"] == 0

    def names(self) -> dict:
        tokens, t = self.trace["tokens"], self.training
        return {"query": tokens[t["query_index"]], "key": tokens[t["key_index"]], "target": tokens[-1]}

    def show_both_ends(self):
        self.title = self.show_title()
        query = self.training["query_index"]
        words = self.trace["tokens"][: query + 1]
        slots = drawn_slots(len(words), [self.training["key_index"], query], INPUT_ROWS)
        self.words = TokenRow([words[s] if isinstance(s, int) else "︙" for s in slots], size=26, spacing=0.3)
        self.words.words.arrange(DOWN, buff=0.3)
        if self.words.height > WORDS_HEIGHT:  # a long sentence: a smaller column
            self.words.scale_to_fit_height(WORDS_HEIGHT)
        self.words.move_to([-6.1, 0, 0])
        config = self.trace["attention"]["config"]
        self.layers = VGroup(*(NodeLayer([0.0] * count, role, radius=0.1, spacing=0.28).move_to([x, 0, 0])
                               for count, role, x in ((config["d_model"], "input", -4.6), (config["d_k"], "value", -3.1),
                                                      (config["d_hidden"], "output", -1.6))))
        for layer in self.layers:
            layer.nodes.set_fill(opacity=0)
        self.edges = VGroup(*(Connections(a, b, opacity=0.2) for a, b in zip(self.layers, self.layers[1:])))
        start = self.training["start_predictions"]
        numbers = [self.shown(f"start p {r}", p, 3, 16) for r, (_, p) in enumerate(start)]
        self.guesses = prediction_rows(start, numbers, [0.2, 1.4, 0], bar_length=1.8, spacing=0.7,
                                       words_right_of=self.layers[-1].get_right()[0] + 0.3)
        self.target = VGroup(self.word("target", 18, "highlight"), label(self.names()["target"], 30, "highlight"))
        self.target.arrange(DOWN, buff=0.15).move_to([5.4, 0.6, 0])
        headings = VGroup(self.word("input", 16, "input").next_to(self.words, UP, buff=0.4),
                          self.word("prediction", 16, "output").next_to(self.guesses, UP, buff=0.3))
        with self.narration("ch06.ends", words=written(words, self.lang),
                            target=self.names()["target"]):
            self.play(FadeIn(self.words), FadeIn(self.target), FadeIn(headings))
            self.play(*(layer.create() for layer in self.layers), *(edges.create() for edges in self.edges))
            self.play(*(edges.flow() for edges in self.edges), run_time=1.2)
            self.play(FadeIn(self.guesses, shift=0.2 * RIGHT))

    def compare_with_target(self):
        first = self.training["history"][0]
        p = self.shown("target p 0", first["target_probability"], 3, 20, "highlight")
        self.gap = VGroup(label("P =", 18, "highlight"), p).arrange(RIGHT, buff=0.1).next_to(self.target, DOWN, buff=0.3)
        with self.narration("ch06.compare", target=self.names()["target"], p=f"{first['target_probability']:.3f}"):
            self.play(FadeIn(self.gap), emphasise(self.target))

    def send_back(self):
        back = [Connections(b, a) for a, b in zip(self.layers, self.layers[1:])]
        # into the output layer, passing under the predictions: the target is usually none of them
        output = self.layers[-1]
        self.difference = CurvedArrow(self.gap.get_bottom() + 0.15 * DOWN, output.get_bottom() + 0.15 * RIGHT,
                                      angle=-math.pi / 4, color=role_colour("highlight"))
        with self.narration("ch06.back"):
            self.play(Create(self.difference))
            self.play(back[1].flow("highlight"), run_time=1.0)
            self.play(back[0].flow("highlight"), run_time=1.0)

    def show_history(self):
        self.clear_stage()
        history = self.training["history"]
        steps = [row["step"] for row in history]
        names = self.names()
        loss_plot = Plot(LOSS_BOX, steps[-1], 0.0, math.ceil(max(row["loss"] for row in history)))
        weight_plot = Plot(WEIGHT_BOX, steps[-1])
        ticks = [steps[-1] * i / 2 for i in range(3)]
        loss_axes = loss_plot.axes(ticks, range(0, int(loss_plot.y_max) + 1), self.say("step"), self.say("loss"),
                                   y_format="{:.0f}")
        weight_axes = weight_plot.axes(ticks, (0.0, 0.5, 1.0), self.say("step"), "")
        frozen = self.frozen_region(weight_plot)
        loss = loss_plot.line(steps, [row["loss"] for row in history], "highlight")
        weight = weight_plot.line(steps, [row["key_weight"] for row in history], "key")
        probability = weight_plot.line(steps, [row["target_probability"] for row in history], "output")
        end = history[-1]
        loss_start = self.shown("loss start", history[0]["loss"], 2, 16, "highlight")
        loss_start.next_to(loss[0].get_start(), RIGHT, buff=0.15)
        loss_end = self.shown("loss end", end["loss"], 2, 16, "highlight").next_to(loss[0].get_end(), UP, buff=0.1)
        tags = VGroup(
            self.start_to_end(self.say("weight_of", query=names["query"], key=names["key"]), "weight", "key_weight",
                              2, "key"),
            self.start_to_end(self.say("probability_of", word=names["target"]), "p", "target_probability", 3,
                              "output"),
        ).arrange(DOWN, aligned_edge=LEFT, buff=0.12).next_to(weight_axes[0], UP, buff=0.25)
        learned, learned_p = self.trace["attention"]["predictions"][self.training["query_index"]][0]
        with self.narration("ch06.history", steps=steps[-1], start=f"{history[0]['loss']:.2f}", end=f"{end['loss']:.2f}"):
            self.play(FadeIn(loss_axes), FadeIn(loss_start))
            self.play(Create(loss[0]), run_time=2.5)
            self.play(FadeIn(loss_end))
        with self.narration(self.learning_line(), p=f"{end['target_probability']:.3f}",
                            start_p=f"{history[0]['target_probability']:.3f}", start=f"{history[0]['key_weight']:.2f}",
                            end=f"{end['key_weight']:.3f}", learned=learned, learned_p=f"{learned_p:.3f}", **names):
            self.play(FadeIn(weight_axes), FadeIn(frozen))
            self.play(Create(weight[0]), Create(probability[0]), run_time=3)
            self.play(FadeIn(tags))

    def start_to_end(self, name: str, shown_as: str, field: str, start_digits: int, role: str) -> VGroup:
        """A line's name with its value before and after training: "the weight of 抓 on 猫  0.33 → 0.992"."""
        history = self.training["history"]
        return VGroup(label(name, 16, role), self.shown(f"{shown_as} start", history[0][field], start_digits, 16, role),
                      label("→", 16, role), self.shown(f"{shown_as} end", history[-1][field], 3, 16, role),
                      ).arrange(RIGHT, buff=0.15)

    def learning_line(self) -> str:
        """What training did for the target: the word before it alone (no choice to learn), the target
        falling (the corpus teaches another), or rising with the weight on the key word (or on itself).
        Only the subject (chapter 3's word) is said to be needed: a largest weight elsewhere (say, on
        "likes" in an English sentence) is said to rise, no more."""
        history, t = self.training["history"], self.training
        if self.alone:
            return "ch06.alone"
        if history[-1]["target_probability"] < history[0]["target_probability"]:
            return "ch06.need_other"
        if t["key_index"] == t["query_index"]:
            return "ch06.need_self"
        return "ch06.need" if t["key_index"] == self.trace["rnn"]["followed_index"] else "ch06.rises"

    def frozen_region(self, plot: Plot) -> VGroup:
        """The first steps, in which Query and Key were held still while the rest learned."""
        steps = self.training["frozen_steps"]
        corner, top = plot.point(0, 0), plot.point(steps, 1)
        region = Rectangle(width=top[0] - corner[0], height=top[1] - corner[1], stroke_width=0,
                           fill_color=role_colour("muted"), fill_opacity=0.25)
        region.move_to([(corner[0] + top[0]) / 2, (corner[1] + top[1]) / 2, 0])
        note = label(self.say("ch06.frozen"), 12, "muted").next_to(region.get_corner(DR), UR, buff=0.12)
        return VGroup(region, note)

    def score_step(self) -> float:
        """Distance between neighbouring score bars: narrower for a long sentence."""
        return min(SCORE_BAR["step"], SCORES_WIDTH / (self.training["query_index"] + 1))

    def score_axis(self, scale: float, below: float) -> tuple[float, float, float]:
        """The bars' zero line, the height of a score of ``scale``, and the lowest y a bar reaches,
        leaving ``below`` under it for the words: as drawn for scores that are mostly positive, raised
        and squeezed when large negative scores would push the words off screen."""
        scores = [s / scale for row in self.training["history"] for s in row["query_scores"]]
        high, low = max(0.0, *scores), -min(0.0, *scores)
        bottom, top = SCORES_SPAN
        height = min(SCORE_BAR["height"], (top - bottom - below - 0.4) / (high + low))
        zero = max(SCORE_BAR["base"], bottom + below + low * height)
        return zero, height, zero - low * height

    def score_bars(self, entry: dict, scale: float) -> VGroup:
        bars, step = VGroup(), self.score_step()
        base, height, _ = self.axis
        for j, score in enumerate(entry["query_scores"]):
            role = "key" if j == self.training["key_index"] else "muted"
            block = bar(abs(score) / scale, height, min(SCORE_BAR["width"], 0.6 * step), role)
            x = (j - (len(entry["query_scores"]) - 1) / 2) * step
            edge = UP if score < 0 else DOWN
            bars.add(block.move_to([x, base, 0], aligned_edge=edge))
        return bars

    def specialise(self):
        self.clear_stage()
        history, t = self.training["history"], self.training
        scale = max(abs(s) for row in history for s in row["query_scores"]) or 1.0
        every = max(1, len(history) // SNAPSHOTS_SHOWN)
        shown_rows = history[::every] + ([history[-1]] if (len(history) - 1) % every else [])
        spacing = self.score_step()
        words = VGroup(*column_labels(self.trace["tokens"][: t["query_index"] + 1], 22, spacing))
        self.axis = self.score_axis(scale, WORDS_GAP + max(w.height for w in words) + 0.1)
        bars = self.score_bars(shown_rows[0], scale)
        zero, _, floor = self.axis
        for word, block in zip(words, bars):
            word.move_to([block.get_x(), floor - WORDS_GAP - word.height / 2, 0])
        base = Line([-len(bars) * spacing / 2, zero, 0], [len(bars) * spacing / 2, zero, 0]).set_stroke(role_colour("muted"), 2)
        asker = VGroup(label(self.trace["tokens"][t["query_index"]], 24, "query"), label("Query · Key", 18, "muted"))
        asker.arrange(RIGHT, buff=0.3).move_to([0, 2.6, 0])
        step = label(self.say("steps_done", step=shown_rows[0]["step"]), 18, "muted").to_edge(RIGHT).shift(UP * 2.6)
        last = history[-1]["query_scores"]
        key = t["key_index"]
        finals = VGroup(*(fitted(self.shown(f"score {j}", s, 2, 18, "key" if j == key else "text"), 0.95 * spacing)
                          for j, s in enumerate(last)))
        names = self.names()
        with self.narration("ch06.specialise", score=f"{last[key]:.2f}", query=names["query"], key=names["key"]):
            self.play(FadeIn(asker), FadeIn(base), FadeIn(words), FadeIn(bars), FadeIn(step))
            for row in shown_rows[1:]:
                done = label(self.say("steps_done", step=row["step"]), 18, "muted").move_to(step, aligned_edge=RIGHT)
                self.play(Transform(bars, self.score_bars(row, scale)), FadeTransform(step, done), run_time=0.45)
                step = done
            for number, block, s in zip(finals, bars, last):
                number.next_to(block, UP if s >= 0 else DOWN, buff=0.1)
            self.play(FadeIn(finals))
        others = [s for j, s in enumerate(last) if j != key]
        if others:
            with self.narration("ch06.others", other=f"{max(others):.2f}"):
                self.play(*(emphasise(finals[j]) for j in range(len(last)) if j != key))

    def average_updates(self):
        """Each copy's update to the shared connections, in a column per copy (a long sentence's middle
        words share one "⋯" column), and their average, the update the shared connections get."""
        self.clear_stage()
        updates = self.training["copy_updates"]
        copies = len(updates["query"])
        grids = [updates["query"] + [updates["shared_query"]], updates["key"] + [updates["shared_key"]]]
        scale = max(abs(v) for row in grids for grid in row for line in grid for v in line) or 1.0
        slots = drawn_slots(copies, [self.training["key_index"], self.training["query_index"]], ROOM)
        width = min(2.5, 11.5 / (len(slots) + 1))
        cell = min(0.24, (width - 0.4) / len(updates["query"][0][0]))
        names = {c: self.trace["tokens"][c] for c in slots if isinstance(c, int)} | {copies: self.say("average")}
        size = size_to_fit(list(names.values()), 22, 0.9 * width)
        headings = {c: fitted(label(name, size, "text" if c < copies else "highlight"), 0.9 * width)
                    for c, name in names.items()}
        columns = VGroup(*(
            (self.update_column(c, grids, scale, cell, headings[c]) if isinstance(c, int) else self.gap_column(c, width))
            .move_to([width * (place + (0.6 if c == copies else 0)), -0.2, 0])
            for place, c in enumerate([*slots, copies])))
        columns.move_to([0.4, -0.2, 0])
        drawn = [column for c, column in zip(slots, columns) if isinstance(c, int)]
        for c, column in zip(slots, columns):
            if isinstance(c, range):  # its count level with the words
                column.align_to(columns[0], UP)
        rows = VGroup(*(self.word(role, 18, role).next_to(columns[0][r + 1][0], LEFT, buff=0.35)
                        for r, role in enumerate(("query", "key"))))
        VGroup(rows, columns).shift(RIGHT * max(0.0, LEFT_MARGIN - rows.get_left()[0]))
        equals = label("=", 30).move_to((columns[-2].get_right() + columns[-1].get_left()) / 2)
        with self.narration("ch06.copies", step=updates["step"]):
            self.play(FadeIn(rows), *(FadeIn(column[:2], shift=0.2 * DOWN) for column in columns[:-1]))
            self.play(*(FadeIn(column[2], shift=0.2 * DOWN) for column in drawn))
        with self.narration("ch06.first", first=self.trace["tokens"][0]):
            self.play(emphasise(columns[0]))
        movers = [VGroup(*(column[r + 1][0].copy() for column in drawn)) for r in range(2)]
        with self.narration("ch06.average"):
            self.play(FadeIn(equals), *(grid.animate.move_to(columns[-1][r + 1][0]).see_through(0.3)
                                        for r, group in enumerate(movers) for grid in group), run_time=1.5)
            self.play(FadeIn(columns[-1]), *(FadeOut(group) for group in movers))
        self.remove(*movers)
        self.wait(0.5)

    def update_column(self, c: int, grids, scale: float, cell: float, heading: Text) -> VGroup:
        """Copy ``c``'s ``heading`` (its word) over its updates to input→Query and input→Key (the
        average's, past the last)."""
        copies = len(grids[0]) - 1
        column = VGroup(heading)
        for r, role in enumerate(("query", "key")):
            grid = HeatGrid(grids[r][c], scale, cell)
            biggest = max(abs(v) for line in grids[r][c] for v in line)
            shown = f"{role} update {c}" if c < copies else f"{role} update average"
            column.add(VGroup(grid, self.shown(shown, biggest, 4, 13, "muted").next_to(grid, DOWN, buff=0.08)))
        return column.arrange(DOWN, buff=0.3)

    def gap_column(self, words: range, width: float) -> VGroup:
        """The column of a run of middle words: how many, and "⋯" where their updates would stand."""
        return VGroup(fitted(label(self.say("more_words", n=len(words)), 18, "muted"), 0.9 * width),
                      label("⋯", 40, "muted")).arrange(DOWN, buff=1.0)

"""Chapter 6 — how attention trains itself (seed 3.1–3.3): input and target at the two ends, the
difference sent back; the recorded training history; Query and Key specialising; the copies'
updates averaged into one."""

from __future__ import annotations

import math

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Arrow,
    Create,
    CurvedArrow,
    FadeIn,
    FadeOut,
    FadeTransform,
    GrowArrow,
    Line,
    Polygon,
    Rectangle,
    Text,
    Transform,
    VGroup,
)

from scenes.base import CONTENT_TOP, LEFT_MARGIN, RIGHT_MARGIN, ExplainerScene
from scenes.layout import drawn_slots
from scenes.mobjects import (
    Connections,
    HeatGrid,
    NodeLayer,
    Plot,
    TokenRow,
    bar,
    column_labels,
    emphasise,
    fitted,
    label,
    prediction_rows,
    size_to_fit,
)
from scenes.strings import written
from scenes.theme import HEADING, LABEL, SMALL, TITLE, role_colour

# The loss first fills the frame alone, then moves aside (left) for the weight and probability chart.
LOSS_ALONE = {"left": -5.4, "right": 5.8, "bottom": -2.1, "top": 2.4}
LOSS_ASIDE = {"left": -5.9, "right": -3.3, "bottom": -2.0, "top": 2.2}
WEIGHT_BOX = {"left": -1.2, "right": 6.2, "bottom": -2.0, "top": 1.6}
LAYERS_X = (-3.8, -1.9, 0.0)  # input, ordinary hidden and output layers
GUESS_ROOM = 2.8  # the widest a guessed word may be before it is shrunk
SCORE_BAR = {"width": 1.3, "step": 2.6, "height": 3.4, "base": -0.9}
SCORES_SPAN = (-3.0, 1.95)  # lowest and highest y the bars, their numbers and the words may take
WORDS_GAP = 0.5  # from the lowest a bar may reach down to the words
SCORES_WIDTH = 13.0  # room for the score bars of every word
SNAPSHOTS_SHOWN = 12  # history entries the score bars pass through
INPUT_ROWS = 7  # input words listed at most; a longer sentence's middle ones share a "︙"
ROOM = 6  # columns of copies' updates side by side (a long sentence's middle words share one)
AVERAGE_APART = 0.3  # the average's column stands this share of a column further right
TALLEST_WORD = 1.8  # a word stood upright under a narrow bar may be this tall
CHART_WORDS = 5  # up to this many words, the bars stand beside the chart of their scores' history
SCORE_CHART = {"left": -5.7, "right": 0.1, "bottom": -1.9, "top": 2.0}
BARS_BESIDE = {"left": 2.3, "right": 6.7}  # where the bars stand beside the chart


def gridlines(plot: Plot, ys) -> VGroup:
    """Faint lines across a chart at the heights ``ys``, for reading a line's values off the axis."""
    return VGroup(*(Line(plot.point(0, y), plot.point(plot.x_max, y)) for y in ys)).set_stroke(
        role_colour("muted"), 4, 0.3
    )


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
        self.words = TokenRow([words[s] if isinstance(s, int) else "︙" for s in slots], size=HEADING, spacing=0.3)
        self.words.words.arrange(DOWN, buff=0.25, aligned_edge=LEFT)
        self.words.move_to([0, -0.2, 0]).align_to([LEFT_MARGIN, 0, 0], LEFT)
        config = self.trace["attention"]["config"]
        self.layers = VGroup(
            *(
                NodeLayer([0.0] * count, role, radius=0.15, spacing=0.34).move_to([x, -0.1, 0])
                for count, role, x in (
                    (config["d_model"], "input", LAYERS_X[0]),
                    (config["d_k"], "value", LAYERS_X[1]),
                    (config["d_hidden"], "output", LAYERS_X[2]),
                )
            )
        )
        for layer in self.layers:
            layer.nodes.set_fill(opacity=0)
        self.edges = VGroup(*(Connections(a, b) for a, b in zip(self.layers, self.layers[1:])))
        # each layer named beside itself: the short hidden layer above, the tall ones below
        names = VGroup(
            self.word("input", SMALL, "input").next_to(self.layers[0], DOWN, buff=0.2),
            self.word("value", SMALL, "value").next_to(self.layers[1], UP, buff=0.3),
            self.word("ch06.output_layer", SMALL, "output").next_to(self.layers[2], DOWN, buff=0.2),
        )
        feed = Arrow(self.words.get_right(), self.layers[0].get_left(), buff=0.2, color=role_colour("input"))
        feed.set_y(self.words.get_y())  # the words go into the input layer
        start = self.training["start_predictions"]
        numbers = [self.shown(f"start p {r}", p, 3, SMALL) for r, (_, p) in enumerate(start)]
        # the bars start right of the widest guessed word, which then keeps its size
        words_right_of = self.layers[-1].get_right()[0] + 0.3
        widest = max(label(word, LABEL).width for word, _ in start)
        self.guesses = prediction_rows(
            start,
            numbers,
            [words_right_of + 0.2 + min(widest, GUESS_ROOM), 1.9, 0],
            bar_length=2.0,
            spacing=0.8,
            words_right_of=words_right_of,
        )
        self.target = VGroup(self.word("target", SMALL, "highlight"), label(self.names()["target"], TITLE, "highlight"))
        self.target.arrange(DOWN, buff=0.2).move_to([5.5, 1.0, 0])
        headings = VGroup(
            self.word("ch06.words", SMALL, "input").next_to(self.words, UP, buff=0.3),
            self.word("prediction", SMALL, "output").next_to(self.guesses, UP, buff=0.3),
        )
        headings[0].align_to([LEFT_MARGIN, 0, 0], LEFT)
        with self.narration("ch06.ends", words=written(words, self.lang), target=self.names()["target"]):
            self.play(FadeIn(self.words, shift=0.3 * RIGHT), FadeIn(headings[0]), FadeIn(self.target, shift=0.3 * LEFT))
            self.play(
                GrowArrow(feed),
                *(layer.create() for layer in self.layers),
                *(edges.create() for edges in self.edges),
                FadeIn(names),
            )
            self.play(*(edges.flow() for edges in self.edges), run_time=1.2)
            self.play(FadeIn(self.guesses, shift=0.3 * RIGHT), FadeIn(headings[1]))

    def compare_with_target(self):
        first = self.training["history"][0]
        p = self.shown("target p 0", first["target_probability"], 3, LABEL, "highlight")
        self.gap = (
            VGroup(label("P =", LABEL, "highlight"), p).arrange(RIGHT, buff=0.12).next_to(self.target, DOWN, buff=0.35)
        )
        self.gap.shift(LEFT * max(0.0, self.gap.get_right()[0] - RIGHT_MARGIN))
        with self.narration("ch06.compare", target=self.names()["target"], p=f"{first['target_probability']:.3f}"):
            self.play(FadeIn(self.gap, shift=0.2 * DOWN), emphasise(self.target))

    def send_back(self):
        back = [Connections(b, a) for a, b in zip(self.layers, self.layers[1:])]
        # into the output layer, passing under the predictions: the target is usually none of them
        output = self.layers[-1]
        self.difference = CurvedArrow(
            self.gap.get_bottom() + 0.15 * DOWN,
            output.get_bottom() + 0.2 * RIGHT,
            angle=-math.pi / 3,
            color=role_colour("highlight"),
            stroke_width=5,
        )
        with self.narration("ch06.back"):
            self.play(Create(self.difference), run_time=1.2)
            self.play(back[1].flow("highlight"), run_time=1.0)
            self.play(back[0].flow("highlight"), run_time=1.0)

    def show_history(self):
        self.clear_stage()
        history = self.training["history"]
        end = history[-1]
        loss, loss_ends = self.loss_chart(LOSS_ALONE)
        aside, aside_ends = self.loss_chart(LOSS_ASIDE)
        with self.narration(
            "ch06.history", steps=end["step"], start=f"{history[0]['loss']:.2f}", end=f"{end['loss']:.2f}"
        ):
            self.play(FadeIn(loss[0]), FadeIn(loss_ends[0]))
            self.play(Create(loss[1]), FadeIn(loss[2]), run_time=2.5)
            self.play(FadeIn(loss_ends[1], shift=0.2 * DOWN))
        weight_axes, frozen, weight, probability, tags = self.weight_chart()
        learned, learned_p = self.trace["attention"]["predictions"][self.training["query_index"]][0]
        with self.narration(
            self.learning_line(),
            p=f"{end['target_probability']:.3f}",
            start_p=f"{history[0]['target_probability']:.3f}",
            start=f"{history[0]['key_weight']:.2f}",
            end=f"{end['key_weight']:.3f}",
            learned=learned,
            learned_p=f"{learned_p:.3f}",
            **self.names(),
        ):
            # what is told moves aside: the same chart, drawn again in a third of the frame
            self.play(Transform(loss, aside), Transform(loss_ends, aside_ends), run_time=1.2)
            self.play(FadeIn(weight_axes), FadeIn(frozen))
            self.play(Create(weight[0]), Create(probability[0]), FadeIn(weight[2]), run_time=3)
            self.play(FadeIn(tags, shift=0.2 * DOWN))

    def loss_chart(self, box: dict) -> tuple[VGroup, VGroup]:
        """The loss against the training step in ``box``: axes and line, and the first and last loss
        written at the line's ends."""
        history = self.training["history"]
        steps = [row["step"] for row in history]
        plot = Plot(box, steps[-1], 0.0, math.ceil(max(row["loss"] for row in history)))
        axes = plot.axes(
            [steps[-1] * i / 2 for i in range(3)],
            range(0, int(plot.y_max) + 1),
            self.say("step"),
            self.say("loss"),
            y_format="{:.0f}",
        )
        line = plot.line(steps, [row["loss"] for row in history], "highlight")
        area = VGroup(
            self.area_under(plot, steps, [row["loss"] for row in history], "highlight"),
            gridlines(plot, range(1, int(plot.y_max) + 1)),
        )
        first = self.shown("loss start", history[0]["loss"], 2, SMALL, "highlight")
        first.next_to(line[0].get_start(), RIGHT, buff=0.2)
        last = self.shown("loss end", history[-1]["loss"], 2, SMALL, "highlight").next_to(
            line[0].get_end(), UP, buff=0.15
        )
        last.shift(LEFT * max(0.0, last.get_right()[0] - RIGHT_MARGIN))
        return VGroup(axes, line[0], area), VGroup(first, last)

    @staticmethod
    def area_under(plot: Plot, xs, ys, role: str) -> Polygon:
        """The area between a line and the chart's floor, lightly filled: a line alone is hard to see."""
        points = [plot.point(x, y) for x, y in zip(xs, ys)]
        return Polygon(
            *points,
            plot.point(xs[-1], plot.y_min),
            plot.point(xs[0], plot.y_min),
            stroke_width=0,
            fill_color=role_colour(role),
            fill_opacity=0.18,
        )

    def weight_chart(self) -> tuple[VGroup, VGroup, VGroup, VGroup, VGroup]:
        """The weight on the key word and the target's probability against the training step: axes,
        the frozen first steps, the two lines, and the lines' names with their values before → after."""
        history = self.training["history"]
        steps = [row["step"] for row in history]
        names = self.names()
        plot = Plot(WEIGHT_BOX, steps[-1])
        axes = plot.axes([steps[-1] * i / 2 for i in range(3)], (0.0, 0.5, 1.0), self.say("step"), "")
        weight = plot.line(steps, [row["key_weight"] for row in history], "key")
        weight.add(
            VGroup(
                self.area_under(plot, steps, [row["key_weight"] for row in history], "key"), gridlines(plot, (0.5, 1.0))
            )
        )
        probability = plot.line(steps, [row["target_probability"] for row in history], "output")
        tags = (
            VGroup(
                self.start_to_end(
                    self.say("weight_of", query=names["query"], key=names["key"]), "weight", "key_weight", 2, "key"
                ),
                self.start_to_end(
                    self.say("probability_of", word=names["target"]), "p", "target_probability", 3, "output"
                ),
            )
            .arrange(DOWN, aligned_edge=LEFT, buff=0.2)
            .next_to(plot.point(0, 1), UP, buff=0.3, aligned_edge=LEFT)
        )
        tags.shift(LEFT * max(0.0, tags.get_right()[0] - RIGHT_MARGIN))
        return axes, self.frozen_region(plot), weight, probability, tags

    def start_to_end(self, name: str, shown_as: str, field: str, start_digits: int, role: str) -> VGroup:
        """A line's name with its value before and after training: "the weight of 抓 on 猫  0.33 → 0.992"."""
        history = self.training["history"]
        return VGroup(
            label(name, SMALL, role),
            self.shown(f"{shown_as} start", history[0][field], start_digits, SMALL, role),
            label("→", SMALL, role),
            self.shown(f"{shown_as} end", history[-1][field], 3, SMALL, role),
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
        """The first steps, in which Query and Key were held still while the rest learned: a shaded band,
        and its name in the chart's empty lower right, a line leading to the band."""
        steps = self.training["frozen_steps"]
        corner, top = plot.point(0, 0), plot.point(steps, 1)
        region = Rectangle(
            width=top[0] - corner[0],
            height=top[1] - corner[1],
            stroke_width=0,
            fill_color=role_colour("muted"),
            fill_opacity=0.25,
        )
        region.move_to([(corner[0] + top[0]) / 2, (corner[1] + top[1]) / 2, 0])
        note = label(self.say("ch06.frozen"), SMALL, "muted")
        note.move_to(plot.point(0, 0.5), aligned_edge=LEFT).align_to([plot.box["right"], 0, 0], RIGHT)
        lead = Line(note.get_left() + 0.1 * LEFT, [region.get_right()[0], note.get_y(), 0])
        return VGroup(region, lead.set_stroke(role_colour("muted"), 2), note)

    @property
    def beside_chart(self) -> bool:
        """Whether the score bars stand at the right of the scores' chart (a few words), or alone across
        the frame (a long sentence's many bars)."""
        return self.training["query_index"] + 1 <= CHART_WORDS

    def score_step(self) -> float:
        """Distance between neighbouring score bars: narrower for a long sentence."""
        room = BARS_BESIDE["right"] - BARS_BESIDE["left"] if self.beside_chart else SCORES_WIDTH
        return min(SCORE_BAR["step"], room / (self.training["query_index"] + 1))

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
            x = self.bars_centre + (j - (len(entry["query_scores"]) - 1) / 2) * step
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
        words = VGroup(*column_labels(self.trace["tokens"][: t["query_index"] + 1], LABEL, spacing, TALLEST_WORD))
        chart = VGroup()
        if self.beside_chart:  # the scores' whole history drawn left, the bars at its right end
            chart, plot = self.score_chart(scale)
            self.bars_centre = (BARS_BESIDE["left"] + BARS_BESIDE["right"]) / 2
            zero = plot.point(0, 0)[1]
            self.axis = (zero, plot.point(0, scale)[1] - zero, plot.point(0, plot.y_min)[1])
        else:
            self.bars_centre = 0.0
            self.axis = self.score_axis(scale, WORDS_GAP + max(w.height for w in words) + 0.1)
        bars = self.score_bars(shown_rows[0], scale)
        zero, _, floor = self.axis
        for word, block in zip(words, bars):
            word.move_to([block.get_x(), floor - WORDS_GAP - word.height / 2, 0])
        half = len(bars) * spacing / 2
        base = Line([self.bars_centre - half, zero, 0], [self.bars_centre + half, zero, 0])
        base.set_stroke(role_colour("muted"), 2)
        asker = VGroup(
            label(self.trace["tokens"][t["query_index"]], LABEL, "query"),
            label("Query", SMALL, "query"),
            label("·", SMALL, "muted"),
            label("Key", SMALL, "key"),
        )
        asker.arrange(RIGHT, buff=0.2).move_to([self.bars_centre, 2.7, 0])
        step = label(self.say("steps_done", step=shown_rows[0]["step"]), SMALL, "muted")
        if self.beside_chart:  # over the chart the cursor walks
            step.move_to([(SCORE_CHART["left"] + SCORE_CHART["right"]) / 2, 2.7, 0])
        else:
            step.move_to([RIGHT_MARGIN, 2.7, 0], aligned_edge=RIGHT)
        last = history[-1]["query_scores"]
        key = t["key_index"]
        finals = VGroup(
            *(
                fitted(self.shown(f"score {j}", s, 2, SMALL, "key" if j == key else "text"), 0.95 * spacing)
                for j, s in enumerate(last)
            )
        )
        names = self.names()
        with self.narration("ch06.specialise", score=f"{last[key]:.2f}", query=names["query"], key=names["key"]):
            if self.beside_chart:
                self.play(FadeIn(chart[0]), FadeIn(chart[3]))
                self.play(Create(chart[1]), run_time=2.0)
                self.play(FadeIn(chart[2]))
            self.play(FadeIn(asker), FadeIn(base), FadeIn(words), FadeIn(bars), FadeIn(step))
            for row in shown_rows[1:]:
                done = label(self.say("steps_done", step=row["step"]), SMALL, "muted").move_to(step, aligned_edge=RIGHT)
                moves = [Transform(bars, self.score_bars(row, scale)), FadeTransform(step, done)]
                if self.beside_chart:  # the cursor walks along the chart to the step the bars show
                    moves.append(chart[3].animate.set_x(plot.point(row["step"], 0)[0]))
                self.play(*moves, run_time=0.45)
                step = done
            for number, block, s in zip(finals, bars, last):
                number.next_to(block, UP if s >= 0 else DOWN, buff=0.1)
            self.play(FadeIn(finals))
        others = [s for j, s in enumerate(last) if j != key]
        if others:
            with self.narration("ch06.others", other=f"{max(others):.2f}"):
                self.play(*(emphasise(finals[j]) for j in range(len(last)) if j != key))

    def score_chart(self, scale: float) -> tuple[VGroup, Plot]:
        """Every word's Query · Key score against the training step: axes, a line per word (the key
        word's in the Key colour), the lines' names, and a cursor at the step the bars show."""
        history, t = self.training["history"], self.training
        steps = [row["step"] for row in history]
        scores = [s for row in history for s in row["query_scores"]]
        plot = Plot(SCORE_CHART, steps[-1], math.floor(min(0.0, *scores)), math.ceil(max(scores)))
        every = 5 if plot.y_max - plot.y_min > 8 else 1  # a tick every 5 for the trained model's large scores
        ticks = [y for y in range(int(plot.y_min), int(plot.y_max) + 1) if y % every == 0]
        axes = plot.axes(
            [steps[-1] * i / 2 for i in range(3)], ticks, self.say("step"), self.say("score"), y_format="{:.0f}"
        )
        key = t["key_index"]
        lines = VGroup(
            *(
                plot.line(steps, [row["query_scores"][j] for row in history], "key" if j == key else "muted")[0]
                for j in range(t["query_index"] + 1)
            )
        )
        lines.add(lines[key].copy())  # the key word's line over the others
        others = [j for j in range(t["query_index"] + 1) if j != key]
        # each line named right of its end, the other words' at the highest of theirs
        names = VGroup(label(self.trace["tokens"][key], SMALL, "key").next_to(lines[key].get_end(), RIGHT, buff=0.12))
        if others:
            highest = max(others, key=lambda j: history[-1]["query_scores"][j])
            names.add(self.word("ch06.other_words", SMALL, "muted").next_to(lines[highest].get_end(), RIGHT, buff=0.12))
            clash = names[1].get_top()[1] - (names[0].get_bottom()[1] - 0.05)
            if clash > 0:
                names[1].shift(DOWN * clash)
        cursor = Line(plot.point(0, plot.y_min), plot.point(0, plot.y_max)).set_stroke(role_colour("muted"), 2, 0.8)
        axes.add(gridlines(plot, [y for y in ticks if y]))
        return VGroup(axes, lines, names, cursor), plot

    def average_updates(self):
        """Each copy's update to the shared connections, in a column per copy (a long sentence's middle
        words share one "⋯" column), and their average, the update the shared connections get."""
        self.clear_stage()
        updates = self.training["copy_updates"]
        copies = len(updates["query"])
        grids = [updates["query"] + [updates["shared_query"]], updates["key"] + [updates["shared_key"]]]
        scale = max(abs(v) for row in grids for grid in row for line in grid for v in line) or 1.0
        slots = drawn_slots(copies, [self.training["key_index"], self.training["query_index"]], ROOM)
        # the columns share the frame's whole width; the average's stands a little apart, after "="
        width = min(3.0, (RIGHT_MARGIN - LEFT_MARGIN) / (len(slots) + 1 + AVERAGE_APART))
        cell = min(0.31, (width - 0.35) / len(updates["query"][0][0]))
        names = {c: self.trace["tokens"][c] for c in slots if isinstance(c, int)} | {copies: self.say("average")}
        size = max(SMALL, size_to_fit(list(names.values()), LABEL, 0.95 * width))
        headings = {
            c: fitted(label(name, size, "text" if c < copies else "highlight"), 0.99 * width)
            for c, name in names.items()
        }
        columns = VGroup(
            *(
                (
                    self.update_column(c, grids, scale, cell, headings[c])
                    if isinstance(c, int)
                    else self.gap_column(c, width)
                ).move_to([width * (place + (AVERAGE_APART if c == copies else 0)), 0, 0])
                for place, c in enumerate([*slots, copies])
            )
        )
        drawn = [column for c, column in zip(slots, columns) if isinstance(c, int)]
        for c, column in zip(slots, columns):
            if isinstance(c, range):  # its count level with the words
                column.align_to(columns[0], UP)
        columns.move_to([0, 0, 0]).align_to([0, CONTENT_TOP - 0.2, 0], UP)
        # each row of grids named above its first grid, in the gap the column leaves for it
        rows = VGroup(
            *(
                self.word(role, SMALL, role).next_to(columns[0][r + 1][0], UP, buff=0.08, aligned_edge=LEFT)
                for r, role in enumerate(("query", "key"))
            )
        )
        equals = label("=", LABEL).move_to((columns[-2].get_right() + columns[-1].get_left()) / 2)
        with self.narration("ch06.copies", step=updates["step"]):
            self.play(FadeIn(rows), *(FadeIn(column[:2], shift=0.2 * DOWN) for column in columns[:-1]))
            self.play(*(FadeIn(column[2], shift=0.2 * DOWN) for column in drawn))
        with self.narration("ch06.first", first=self.trace["tokens"][0]):
            self.play(emphasise(columns[0]))
        movers = [VGroup(*(column[r + 1][0].copy() for column in drawn)) for r in range(2)]
        with self.narration("ch06.average"):
            self.play(
                FadeIn(equals),
                *(
                    grid.animate.move_to(columns[-1][r + 1][0]).see_through(0.3)
                    for r, group in enumerate(movers)
                    for grid in group
                ),
                run_time=1.5,
            )
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
            column.add(VGroup(grid, self.shown(shown, biggest, 4, SMALL, "muted").next_to(grid, DOWN, buff=0.08)))
        return column.arrange(DOWN, buff=0.55)  # room over each grid for its row's name

    def gap_column(self, words: range, width: float) -> VGroup:
        """The column of a run of middle words: how many, and "⋯" where their updates would stand."""
        return VGroup(
            fitted(label(self.say("more_words", n=len(words)), SMALL, "muted"), 0.9 * width), label("⋯", 40, "muted")
        ).arrange(DOWN, buff=1.0)

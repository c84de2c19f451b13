"""Chapter 8 — what the transformer contributes (seed 5): parallel processing, direct links, no
dilution; then Attention(Q, K, V) = softmax(QKᵀ/√d_k)V built from the sentence's real matrices."""

from __future__ import annotations

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    ArcBetweenPoints,
    Arrow,
    Circle,
    Create,
    FadeIn,
    FadeOut,
    FadeTransform,
    GrowFromEdge,
    LaggedStart,
    Line,
    Rectangle,
    SurroundingRectangle,
    VGroup,
    Write,
)

from scenes.base import CONTENT_BOTTOM, LEFT_MARGIN, RIGHT_MARGIN, ExplainerScene
from scenes.layout import drawn_slots
from scenes.math import formula
from scenes.mobjects import NumberGrid, Plot, accuracy_curve, emphasise, label, row_peaks
from scenes.theme import HEADING, LABEL, OUTLINE_WIDTH, SMALL, TITLE, role_colour, value_text_colour

# Attention(Q,K,V) = softmax(QKᵀ/√d_k) V in parts, so that each part lights up as its matrix appears;
# PARTS names the ones that do (the "}{" part is the fraction's bar).
FORMULA = (
    r"\mathrm{Attention}(Q,K,V)",
    "=",
    r"\mathrm{softmax}",
    r"\left(",
    r"\frac{",
    "Q",
    r"K^\top",
    "}{",
    r"\sqrt{d_k}",
    "}",
    r"\right)",
    "V",
)
PARTS = {"attention": 0, "softmax": 2, "Q": 5, "K^T": 6, "bar": 7, "root": 8, "V": 11}
FORMULA_Y = 2.45  # the formula's centre once the matrices come, under the title's band

ROWS = {"rnn": 1.45, "attention": -1.85}  # heights of the two models' rows of word nodes
ROW_CENTRE, ROW_WIDTH, MAX_PITCH = 0.25, 8.6, 2.8  # the rows' words between the models' names and the counts
NODE_RADIUS = 0.7
HEADING_Y = -0.2  # the counts' heading, between the two counts
CHART = {"left": -5.0, "right": 3.7, "bottom": -2.45, "top": 2.35}

WORDS_SHOWN = 5  # rows (and columns) per word a matrix writes out: more would not fit under the formula
ROW_PITCH = 0.4  # between a matrix's rows
COLUMN_GAP = 0.22  # between the widest numbers of neighbouring columns
MATRIX_GAP = 0.5  # between a matrix and the one its numbers move into


def typeset_formula(size: float = TITLE):
    """The formula, typeset; ``formula_part(it, name)`` gives one of its PARTS."""
    return formula(*FORMULA, size=size)


def formula_part(typeset, name: str):
    return typeset[PARTS[name]]


def row_of(grid: NumberGrid, i: int) -> VGroup:
    return VGroup(*(grid.entry(i, j) for j in range(grid.cols)))


class TransformerContributions(ExplainerScene):
    title_key = "ch08.title"
    narration_lines = 9  # with the question and the recap

    def construct(self):
        self.process_in_parallel()
        self.link_directly()
        self.recall_no_dilution()
        self.write_formula()
        self.scores_from_q_and_k()
        self.softmax_into_weights()
        self.weigh_the_values()

    # -- one, two: parallel processing and direct links ----------------------------------------------------

    def row_slots(self) -> tuple[list[int | range], float]:
        """The words a row of nodes draws (a long sentence's middle ones as one "⋯") and the room
        between them: as many as fit with every word at HEADING size, none shrunk."""
        tokens = self.trace["tokens"]
        for room in range(len(tokens), 2, -1):
            slots = drawn_slots(len(tokens), [], room)
            pitch = min(MAX_PITCH, ROW_WIDTH / max(1, len(slots) - 1))
            widest = max(label(tokens[s], HEADING).width for s in slots if isinstance(s, int))
            if widest + 0.3 <= pitch:
                return slots, pitch
        return slots, pitch

    def word_row(self, y: float, role: str) -> VGroup:
        """A node per drawn word, the word under it; a long sentence's middle words as one "⋯"."""
        tokens = self.trace["tokens"]
        slots, pitch = self.row_slots()
        row = VGroup()
        for k, slot in enumerate(slots):
            x = ROW_CENTRE + (k - (len(slots) - 1) / 2) * pitch
            if isinstance(slot, range):
                row.add(VGroup(label("⋯", HEADING, "muted").move_to([x, y, 0])))
                continue
            node = Circle(NODE_RADIUS, stroke_color=role_colour(role), stroke_width=OUTLINE_WIDTH, fill_opacity=0)
            node.move_to([x, y, 0])
            node.slot = slot
            row.add(VGroup(node, label(tokens[slot], HEADING).next_to(node, DOWN, buff=0.15)))
        return row

    @staticmethod
    def nodes(row: VGroup) -> list[Circle]:
        return [item[0] for item in row if hasattr(item[0], "slot")]

    def count(self, name: str, value: int, y: float, role: str):
        number = self.shown(name, value, 0, TITLE, role)
        return number.move_to([RIGHT_MARGIN - number.width / 2, y, 0])

    def process_in_parallel(self):
        self.title = self.show_title()
        steps = self.trace["sequential"]
        self.rnn, self.attention = self.word_row(ROWS["rnn"], "key"), self.word_row(ROWS["attention"], "query")
        names = VGroup(
            label("RNN", LABEL, "key").move_to([LEFT_MARGIN, ROWS["rnn"], 0], aligned_edge=LEFT),
            label("Attention", LABEL, "query").move_to([LEFT_MARGIN, ROWS["attention"], 0], aligned_edge=LEFT),
        )
        # the RNN hands its state from word to word: an arrow between neighbours, through a "⋯" too
        self.chain = VGroup(
            *(
                Arrow(a[0].get_right(), b[0].get_left(), buff=0.08, color=role_colour("key"), stroke_width=4)
                for a, b in zip(self.rnn, self.rnn[1:])
            )
        )
        self.heading = self.word("sequential", SMALL, "muted")
        self.heading.move_to([RIGHT_MARGIN - self.heading.width / 2, HEADING_Y, 0])
        self.counts = VGroup(
            self.count("rnn steps", steps["rnn_steps"], ROWS["rnn"], "key"),
            self.count("attention steps", steps["attention_steps"], ROWS["attention"], "query"),
        )
        numbers = VGroup(
            *(label(str(node.slot + 1), LABEL, "muted").next_to(node, UP, buff=0.12) for node in self.nodes(self.rnn))
        )
        self.together = VGroup(
            *(label("1", LABEL, "muted").next_to(node, UP, buff=0.12) for node in self.nodes(self.attention))
        )
        with self.narration("ch08.parallel", rnn=steps["rnn_steps"], attention=steps["attention_steps"]):
            self.play(FadeIn(names), FadeIn(self.rnn), FadeIn(self.attention), FadeIn(self.heading))
            node_at = 0
            for i, item in enumerate(self.rnn):
                arrive = [Create(self.chain[i - 1])] if i else []
                if hasattr(item[0], "slot"):
                    arrive += [item[0].animate.set_fill(role_colour("key"), 0.8), FadeIn(numbers[node_at])]
                    node_at += 1
                self.play(*arrive, run_time=0.5)
            self.play(
                *(node.animate.set_fill(role_colour("query"), 0.8) for node in self.nodes(self.attention)),
                FadeIn(self.together),
                run_time=0.8,
            )
            self.play(FadeIn(self.counts, shift=0.2 * LEFT))

    def link_directly(self):
        steps = self.trace["sequential"]
        nodes = self.nodes(self.attention)
        # every word reaches every earlier word in one step: an arc for each pair, the first–last one bright
        arcs = VGroup(
            *(
                ArcBetweenPoints(
                    a.get_top(),
                    b.get_top(),
                    angle=-1.0,
                    color=role_colour("query"),
                    stroke_width=2.5,
                    stroke_opacity=0.6,
                )
                for n, b in enumerate(nodes)
                for a in nodes[:n]
            )
        )
        first, last = nodes[0], nodes[-1]
        link = ArcBetweenPoints(
            first.get_top(), last.get_top(), angle=-1.0, color=role_colour("highlight"), stroke_width=6
        )
        paths = VGroup(
            self.count("rnn path", steps["rnn_path"], ROWS["rnn"], "key"),
            self.count("attention path", steps["attention_path"], ROWS["attention"], "query"),
        )
        heading = self.word("path", SMALL, "muted")
        heading.move_to([RIGHT_MARGIN - heading.width / 2, HEADING_Y, 0])
        with self.narration("ch08.direct", rnn=steps["rnn_path"], attention=steps["attention_path"]):
            self.play(FadeTransform(self.heading, heading), FadeOut(self.counts), FadeOut(self.together))
            self.play(
                *(arrow.animate.set_color(role_colour("highlight")) for arrow in self.chain),
                emphasise(self.nodes(self.rnn)[0]),
                emphasise(self.nodes(self.rnn)[-1]),
                run_time=1.2,
            )
            self.play(Create(arcs, lag_ratio=0.1), run_time=1.2)
            self.play(Create(link), emphasise(first), emphasise(last), run_time=1.2)
            self.play(FadeIn(paths, shift=0.2 * LEFT))

    # -- three: no dilution ---------------------------------------------------------------------------------

    def recall_no_dilution(self):
        rows = self.trace["accuracy_by_distance"]
        if not rows:
            return  # a corpus without the story has no such measurement
        self.clear_stage()
        last = rows[-1]
        plot = Plot(CHART, x_max=last["distance"])
        levels = (0.0, 0.25, 0.5, 0.75, 1.0)
        axes = plot.axes(
            range(0, last["distance"] + 1, 2), levels, self.say("distance"), self.say("accuracy"), y_format="{:.2f}"
        )
        # faint lines at each tick, so that a dot's distance and accuracy read off without a ruler
        grid = VGroup(
            *(Line(plot.point(0, y), plot.point(last["distance"], y)) for y in levels[1:]),
            *(Line(plot.point(x, 0), plot.point(x, 1.0)) for x in range(2, last["distance"] + 1, 2)),
        )
        grid.set_stroke(role_colour("muted"), 3, opacity=0.3)
        curves = [
            accuracy_curve(
                plot, rows, model, role, self.shown(f"{model} at {last['distance']}", last[model], 2, SMALL, role)
            )
            for model, role in (("transformer", "query"), ("rnn", "key"))
        ]
        for curve in curves:
            curve[0].set_stroke(width=5)
            for dot in curve[1]:
                dot.scale(1.8)
        with self.narration("ch08.dilution", flat=f"{last['transformer']:.2f}", far=f"{last['rnn']:.2f}"):
            self.play(FadeIn(axes), Create(grid))
            self.play(*(Create(curve[0]) for curve in curves), *(FadeIn(curve[1:]) for curve in curves), run_time=2)

    # -- the formula, from the sentence's real matrices -----------------------------------------------------

    def write_formula(self):
        self.clear_stage()
        self.formula = typeset_formula(TITLE).move_to([0, 0.3, 0])
        with self.narration("ch08.formula"):
            self.play(Write(self.formula), run_time=1.5)

    def part(self, name: str):
        return formula_part(self.formula, name)

    def light(self, name: str, role: str):
        """A part of the formula takes its matrix's colour and flashes as the matrix appears."""
        self.part(name).set_color(role_colour(role))
        return emphasise(self.part(name), role=role)

    def matrix(
        self,
        name: str,
        rows,
        digits: int = 1,
        masked: bool = False,
        role: str = "text",
        by_word: tuple[bool, bool] = (True, True),
        coloured: bool = True,
    ) -> NumberGrid:
        """A Trace matrix written out, each entry recorded as "name i j" and coloured by its value;
        masked: blank above the diagonal. ``by_word`` says whether rows and columns stand for the
        sentence's words: of a long sentence those show the first and last words, the query word and
        the one it weighs most, the ones between as a single "︙" row or "⋯" column."""
        row_slots = self.word_slots if by_word[0] else list(range(len(rows)))
        column_slots = self.word_slots if by_word[1] else list(range(len(rows[0])))

        def entry(i, j):
            if isinstance(i, range) or isinstance(j, range):
                return label("⋯" if isinstance(j, range) else "︙", self.number_size, "muted")
            if masked and j > i:
                return None
            text = self.shown(f"{name} {i} {j}", rows[i][j], digits, self.number_size, role)
            return text.set_color(value_text_colour(rows[i][j])) if coloured else text

        entries = [[entry(i, j) for j in column_slots] for i in row_slots]
        widest = max(text.width for line in entries for text in line if text is not None)
        gap = COLUMN_GAP * (1.4 if self.number_size == LABEL else 1.0)  # a short sentence's matrices spread out
        grid = NumberGrid(entries, cell=(widest + gap, ROW_PITCH), role=role)
        grid.row_slots, grid.column_slots = row_slots, column_slots
        return grid

    @property
    def query(self) -> int:
        """The word before the last, whose row of weights the other chapters follow."""
        return len(self.trace["tokens"]) - 2

    @property
    def number_size(self) -> float:
        """A matrix's numbers as large as its rows leave room for under the formula."""
        return LABEL if len(self.word_slots) <= 4 else SMALL

    @property
    def word_slots(self) -> list[int | range]:
        """The words the matrices write a row or column for: the first and last, the query word and
        the word it weighs most; a long sentence's others as one "︙" or "⋯"."""
        key = row_peaks(self.trace["attention"]["weights"], causal=True)[self.query]
        return drawn_slots(len(self.trace["tokens"]), [self.query, key], WORDS_SHOWN)

    def row_words(self, grid: NumberGrid) -> VGroup:
        """The words of a matrix's rows, left of it (a "︙" row has none)."""
        tokens = self.trace["tokens"]
        return VGroup(
            *(
                label(tokens[slot], self.number_size)
                .next_to(grid.brackets, LEFT, buff=0.2)
                .set_y(grid.entry(i, 0).get_y())
                for i, slot in enumerate(grid.row_slots)
                if isinstance(slot, int)
            )
        )

    def column_words(self, grid: NumberGrid) -> VGroup:
        """The words of a matrix's columns, above it; none if a word is wider than its column (a long
        sentence's long words): the rows, labelled alike, still name them."""
        tokens = self.trace["tokens"]
        pitch = grid.entry(0, 1).get_x() - grid.entry(0, 0).get_x() if grid.cols > 1 else grid.width
        words = [
            (j, label(tokens[slot], self.number_size))
            for j, slot in enumerate(grid.column_slots)
            if isinstance(slot, int)
        ]
        if any(text.width > pitch - 0.1 for _, text in words):
            return VGroup()
        return VGroup(*(text.move_to([grid.entry(0, j).get_x(), grid.get_top()[1] + 0.3, 0]) for j, text in words))

    def scores_from_q_and_k(self):
        """Q at the left, Kᵀ above, the scores where a row of Q meets a column of Kᵀ: the layout of a
        matrix product, each score standing where its two factors cross."""
        attention = self.trace["attention"]
        d_k = attention["config"]["d_k"]
        self.numbers_on_screen["d_k"] = d_k
        q = self.matrix("Q", attention["queries"], role="query", by_word=(True, False))
        k = self.matrix("K^T", [list(col) for col in zip(*attention["keys"])], role="key", by_word=(False, True))
        self.scores = self.matrix("score", attention["scores"], masked=True)
        formula_bottom = FORMULA_Y - formula_height(HEADING) / 2
        k.move_to([0, formula_bottom - 0.15 - k.height / 2, 0])
        self.columns = self.column_words(k)
        bottom = k.get_bottom()[1] - 0.45 - 0.25 - self.scores.height
        if bottom < CONTENT_BOTTOM:  # no room for the columns' words: the rows' words name the same words
            self.columns = VGroup()
        if len(self.columns):  # the words stand between the formula and Kᵀ
            k.shift(0.45 * DOWN)
            self.columns.shift(0.45 * DOWN)
        self.scores.next_to(k, DOWN, buff=0.25, aligned_edge=LEFT)
        q.next_to(self.scores, LEFT, buff=MATRIX_GAP).align_to(self.scores, UP)
        self.rows = self.row_words(q)
        names = VGroup(
            formula("Q", size=HEADING, role="query").next_to(q, UP, buff=0.15),
            formula(r"K^\top", size=HEADING, role="key").next_to(k, LEFT, buff=0.3),
        )
        self.score_name = VGroup(
            formula(r"\frac{QK^\top}{\sqrt{d_k}}", size=HEADING), formula(rf"d_k={d_k}", size=LABEL, role="muted")
        ).arrange(DOWN, buff=0.25)
        self.score_name.next_to(self.scores, RIGHT, buff=0.4)
        stage = VGroup(q, k, self.scores, self.columns, self.rows, names, self.score_name)
        stage.shift(((LEFT_MARGIN + RIGHT_MARGIN) / 2 - stage.get_center()[0]) * RIGHT)
        with self.narration("ch08.scores"):
            self.play(self.formula.animate.scale(HEADING / TITLE).move_to([0, FORMULA_Y, 0]))
            self.play(self.light("Q", "query"), FadeIn(q), FadeIn(self.rows), FadeIn(names[0]))
            self.play(self.light("K^T", "key"), FadeIn(k), FadeIn(self.columns), FadeIn(names[1]))
            self.play(self.light("root", "muted"), FadeIn(self.score_name), FadeIn(self.scores.brackets))
            self.products_into(q, self.scores, k)
        self.score_parts = VGroup(q, k, names)

    def products_into(self, left: NumberGrid, product: NumberGrid, right: NumberGrid):
        """Row by row, a copy of the left matrix's row travels into the product's row while the right
        matrix flashes, and the row's numbers appear where it lands."""
        for i in range(left.rows):
            travelling = row_of(left, i).copy()
            self.add(travelling)
            self.play(
                travelling.animate.move_to(row_of(product, i)).set_opacity(0),
                emphasise(right.brackets),
                FadeIn(row_of(product, i)),
                run_time=0.7,
            )
            self.remove(travelling)
        self.remove(product.brackets, *(row_of(product, i) for i in range(product.rows)))
        self.add(product)  # one matrix again, to move or fade as one

    def weight_bars(self, weights: NumberGrid) -> VGroup:
        """Behind each weight, a bar as long as it: softmax turns a row of scores into shares of 1."""
        rows = self.trace["attention"]["weights"]
        pitch = weights.entry(0, 1).get_x() - weights.entry(0, 0).get_x() if weights.cols > 1 else 0.7
        bars = VGroup()
        for i, row_slot in enumerate(weights.row_slots):
            for j, column_slot in enumerate(weights.column_slots):
                if isinstance(row_slot, range) or isinstance(column_slot, range) or column_slot > row_slot:
                    continue
                text = weights.entry(i, j)
                length = max(0.02, rows[row_slot][column_slot] * (pitch - 0.1))
                bar = Rectangle(
                    width=length,
                    height=ROW_PITCH - 0.06,
                    stroke_width=0,
                    fill_color=role_colour("highlight"),
                    fill_opacity=0.35,
                )
                bars.add(
                    bar.move_to([text.get_center()[0] - (pitch - 0.1) / 2, text.get_center()[1], 0], aligned_edge=LEFT)
                )
        return bars.set_z_index(-1)  # behind the numbers

    def softmax_into_weights(self):
        weights = self.matrix(
            "weight", self.trace["attention"]["weights"], digits=2, masked=True, role="highlight", coloured=False
        )
        weights.move_to(self.scores).align_to(self.scores, UP)
        self.bars = self.weight_bars(weights)
        # softmax over the fraction, on two lines: beside the weights there is no room for one
        name = VGroup(
            formula(r"\mathrm{softmax}", size=HEADING, role="highlight"),
            formula(r"\left(\frac{QK^\top}{\sqrt{d_k}}\right)", size=HEADING, role="highlight"),
        )
        name.arrange(DOWN, buff=0.15).next_to(weights, RIGHT, buff=0.4)
        with self.narration("ch08.softmax"):
            self.play(
                self.light("softmax", "highlight"),
                FadeTransform(self.scores, weights),
                FadeTransform(self.score_name, name),
                run_time=1.5,
            )
            self.play(LaggedStart(*(GrowFromEdge(bar, LEFT) for bar in self.bars), lag_ratio=0.05), run_time=1.2)
        self.weights, self.weight_name = weights, name

    def weigh_the_values(self):
        """The weights take Q's place, V takes Kᵀ's: each output row is a row of weights times V."""
        attention = self.trace["attention"]
        values = self.matrix("V", attention["values"], role="value", by_word=(True, False))
        mixed = self.matrix("out", attention["mixed"], role="value", by_word=(True, False))
        kept = VGroup(self.weights, self.bars)
        values.align_to(self.score_parts[1], UP)
        mixed.next_to(values, DOWN, buff=0.25, aligned_edge=LEFT)
        shift = mixed.get_left() + MATRIX_GAP * LEFT - self.weights.get_right()
        shift[1] = mixed.get_top()[1] - self.weights.get_top()[1]
        landed = kept.copy().shift(shift)
        rows, columns = self.row_words(landed[0]), self.column_words(landed[0])
        value_name = formula("V", size=HEADING, role="value").next_to(values, RIGHT, buff=0.3)
        # the output's name on two lines, as the weights' name beside the scores: a long sentence's rows are wide
        result = VGroup(
            formula(r"\mathrm{Attention}", size=HEADING, role="output"), formula("(Q,K,V)", size=HEADING, role="output")
        ).arrange(DOWN, buff=0.12)
        result.next_to(mixed, RIGHT, buff=0.3)
        name = self.weight_name.copy().arrange(RIGHT, buff=0.1)
        name.next_to(VGroup(landed, columns), UP, buff=0.25)
        stage = VGroup(landed, rows, columns, values, mixed, value_name, result, name)
        stage.shift(((LEFT_MARGIN + RIGHT_MARGIN) / 2 - stage.get_center()[0]) * RIGHT)
        words = [*zip(self.rows, rows), *zip(self.columns, columns)]
        with self.narration("ch08.values"):
            self.play(
                FadeOut(self.score_parts),
                kept.animate.move_to(landed),  # the columns' words may not fit:
                *(FadeOut(word) for word in self.columns[len(columns) :]),
                *(word.animate.move_to(target) for word, target in words),
                self.weight_name.animate.arrange(RIGHT, buff=0.1).move_to(name),
            )
            self.play(self.light("V", "value"), FadeIn(values), FadeIn(value_name))
            self.play(FadeIn(mixed.brackets), FadeIn(result), self.light("attention", "output"))
            self.products_into(self.weights, mixed, values)
            self.play(Create(SurroundingRectangle(self.formula, color=role_colour("output"), buff=0.1)))


def formula_height(size: float) -> float:
    """How tall the formula stands at ``size`` (its fraction makes it taller than a line of text)."""
    return typeset_formula(size).height

"""Chapter 8 — what the transformer contributes (seed 5): parallel processing, direct links, no
dilution; then Attention(Q, K, V) = softmax(QKᵀ/√d_k)V built from the sentence's real matrices."""

from __future__ import annotations

from manim import (DOWN, LEFT, RIGHT, UP, Arrow, ArcBetweenPoints, Circle, Create, FadeIn, FadeOut, FadeTransform,
                   SurroundingRectangle, VGroup)

from scenes.base import LEFT_MARGIN, ExplainerScene
from scenes.layout import drawn_slots
from scenes.mobjects import (NumberGrid, Plot, accuracy_curve, column_labels, drawn_characters, emphasise, label,
                             row_peaks)
from scenes.theme import role_colour

ROWS = {"rnn": 1.4, "attention": -1.5}  # heights of the two models' rows of word nodes
COUNT_X = 5.6
WORDS_WIDTH = 9.6  # room for a row of word nodes, left of the counts
CHART = {"left": -4.2, "right": 3.2, "bottom": -2.6, "top": 1.9}
FORMULA = "Attention(Q, K, V) = softmax(QK^T / √d_k) V"
MAX_WIDTH = 13.0  # matrices wider than this are scaled down to fit
WORDS_SHOWN = 9  # rows (and columns) per word a matrix writes out; a long sentence's middle ones share a "︙"


def glyphs(text, formula: str, part: str, occurrence: int = 0):
    """The glyphs of ``part`` (its ``occurrence``-th appearance) in a label of ``formula``, which
    keeps one glyph per character it draws."""
    start = -1
    for _ in range(occurrence + 1):
        start = formula.index(part, start + 1)
    first = len(drawn_characters(formula[:start]).replace(" ", ""))
    return text[first: first + len(drawn_characters(part).replace(" ", ""))]


def step_numbers(row: VGroup, steps) -> VGroup:
    """Over each word node of ``row``, the step it is computed in."""
    return VGroup(*(label(str(step), 16, "muted").next_to(word[0], UP, buff=0.15) for step, word in zip(steps, row)))


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

    def word_row(self, y: float, role: str) -> VGroup:
        tokens = self.trace["tokens"]
        pitch = min(1.3, WORDS_WIDTH / len(tokens))
        row = VGroup()
        for i, word in enumerate(column_labels(tokens, 20, pitch)):
            node = Circle(0.18, stroke_color=role_colour(role), stroke_width=3, fill_opacity=0)
            node.move_to([(i - (len(tokens) - 1) / 2) * pitch - 0.6, y, 0])
            row.add(VGroup(node, word.next_to(node, DOWN, buff=0.15)))
        return row

    def count(self, name: str, value: int, y: float, role: str):
        return self.shown(name, value, 0, 30, role).move_to([COUNT_X, y, 0])

    def process_in_parallel(self):
        self.title = self.show_title()
        steps = self.trace["sequential"]
        self.rnn, self.attention = self.word_row(ROWS["rnn"], "key"), self.word_row(ROWS["attention"], "query")
        names = VGroup(label("RNN", 22, "key").move_to([LEFT_MARGIN, ROWS["rnn"], 0], aligned_edge=LEFT),
                       label("Attention", 22, "query").move_to([LEFT_MARGIN, ROWS["attention"], 0], aligned_edge=LEFT))
        self.chain = VGroup(*(Arrow(a[0].get_right(), b[0].get_left(), buff=0.05, color=role_colour("key"),
                                    stroke_width=3) for a, b in zip(self.rnn, self.rnn[1:])))
        self.heading = self.word("sequential", 16, "muted").move_to([COUNT_X, 2.6, 0])
        self.counts = VGroup(self.count("rnn steps", steps["rnn_steps"], ROWS["rnn"], "key"),
                             self.count("attention steps", steps["attention_steps"], ROWS["attention"], "query"))
        numbers = step_numbers(self.rnn, range(1, len(self.rnn) + 1))
        self.together = step_numbers(self.attention, [1] * len(self.attention))
        with self.narration("ch08.parallel", rnn=steps["rnn_steps"], attention=steps["attention_steps"]):
            self.play(FadeIn(names), FadeIn(self.rnn), FadeIn(self.attention), FadeIn(self.heading))
            for i, word in enumerate(self.rnn):
                self.play(word[0].animate.set_fill(role_colour("key"), 0.8), FadeIn(numbers[i]),
                          *([Create(self.chain[i - 1])] if i else []), run_time=0.5)
            self.play(*(word[0].animate.set_fill(role_colour("query"), 0.8) for word in self.attention),
                      FadeIn(self.together), run_time=0.8)
            self.play(FadeIn(self.counts))

    def link_directly(self):
        steps = self.trace["sequential"]
        first, last = self.attention[0][0], self.attention[-1][0]
        link = ArcBetweenPoints(first.get_top(), last.get_top(), angle=-1.0, color=role_colour("highlight"),
                                stroke_width=4)
        paths = VGroup(self.count("rnn path", steps["rnn_path"], ROWS["rnn"], "key"),
                       self.count("attention path", steps["attention_path"], ROWS["attention"], "query"))
        heading = self.word("path", 16, "muted").move_to(self.heading)
        with self.narration("ch08.direct", rnn=steps["rnn_path"], attention=steps["attention_path"]):
            self.play(FadeTransform(self.heading, heading), FadeOut(self.counts), FadeOut(self.together))
            self.play(*(arrow.animate.set_color(role_colour("highlight")) for arrow in self.chain),
                      emphasise(self.rnn[0][0]), emphasise(self.rnn[-1][0]), run_time=1.2)
            self.play(Create(link), emphasise(first), emphasise(last), run_time=1.2)
            self.play(FadeIn(paths))

    def recall_no_dilution(self):
        rows = self.trace["accuracy_by_distance"]
        if not rows:
            return  # a corpus without the story has no such measurement
        self.clear_stage()
        last = rows[-1]
        plot = Plot(CHART, x_max=last["distance"])
        axes = plot.axes(range(0, last["distance"] + 1, 2), (0.0, 0.5, 1.0), self.say("distance"), self.say("accuracy"))
        curves = [accuracy_curve(plot, rows, model, role,
                                 self.shown(f"{model} at {last['distance']}", last[model], 2, 18, role))
                  for model, role in (("transformer", "query"), ("rnn", "key"))]
        with self.narration("ch08.dilution", flat=f"{last['transformer']:.2f}", far=f"{last['rnn']:.2f}"):
            self.play(FadeIn(axes))
            self.play(*(Create(curve[0]) for curve in curves), *(FadeIn(curve[1:]) for curve in curves), run_time=2)

    def write_formula(self):
        self.clear_stage()
        self.formula = label(FORMULA, 30).move_to([0, 2.7, 0])
        with self.narration("ch08.formula"):
            self.play(FadeIn(self.formula, shift=0.2 * DOWN))

    def part(self, piece: str, occurrence: int = 0):
        return glyphs(self.formula, FORMULA, piece, occurrence)

    def matrix(self, name: str, rows, digits: int = 2, masked: bool = False, role: str = "text",
               by_word: tuple[bool, bool] = (True, True)) -> NumberGrid:
        """A Trace matrix written out, each entry recorded as "name i j"; masked: blank above the diagonal.
        ``by_word`` says whether rows and columns stand for the sentence's words: of a long sentence
        those show the first and last words, the ones between as a single "︙" row or "⋯" column."""
        row_slots = self.word_slots if by_word[0] else list(range(len(rows)))
        column_slots = self.word_slots if by_word[1] else list(range(len(rows[0])))

        def entry(i, j):
            if isinstance(i, range) or isinstance(j, range):
                return label("⋯" if isinstance(j, range) else "︙", 14, "muted")
            return None if masked and j > i else self.shown(f"{name} {i} {j}", rows[i][j], digits, 14, role)

        return NumberGrid([[entry(i, j) for j in column_slots] for i in row_slots], role=role)

    @property
    def query(self) -> int:
        """The word before the last, whose row of weights the other chapters follow."""
        return len(self.trace["tokens"]) - 2

    @property
    def word_slots(self) -> list[int | range]:
        """The words the matrices write a row or column for: the first and last, the query word and
        the word it weighs most; a long sentence's others as one "︙" or "⋯"."""
        key = row_peaks(self.trace["attention"]["weights"], causal=True)[self.query]
        return drawn_slots(len(self.trace["tokens"]), [self.query, key], WORDS_SHOWN)

    def equation(self, *parts) -> VGroup:
        """Matrices and signs in a row, centred below the formula, scaled down if too wide."""
        row = VGroup(*parts).arrange(RIGHT, buff=0.3)
        if row.width > MAX_WIDTH:
            row.scale_to_fit_width(MAX_WIDTH)
        return row.move_to([0, -0.5, 0])

    def scores_from_q_and_k(self):
        attention = self.trace["attention"]
        d_k = attention["config"]["d_k"]
        self.numbers_on_screen["d_k"] = d_k
        q = self.matrix("Q", attention["queries"], role="query", by_word=(True, False))
        k = self.matrix("K^T", [list(col) for col in zip(*attention["keys"])], role="key", by_word=(False, True))
        self.scores = self.matrix("score", attention["scores"], masked=True)
        divide = label(f"/ √{d_k}", 24)
        self.equation(q, k, divide, label("=", 28), self.scores)
        names = VGroup(label("Q", 20, "query").next_to(q, UP, buff=0.15), label("K^T", 20, "key").next_to(k, UP, buff=0.15))
        equals = label("=", 28).move_to(self.scores.get_left() + LEFT * 0.4)
        with self.narration("ch08.scores"):
            self.play(emphasise(self.part("Q", 1), role="query"), FadeIn(q), FadeIn(names[0]))
            self.play(emphasise(self.part("K^T"), role="key"), FadeIn(k), FadeIn(names[1]))
            self.play(emphasise(self.part("/ √d_k")), FadeIn(divide))
            self.play(FadeIn(equals), FadeIn(self.scores))
        self.score_parts = VGroup(q, k, divide, names, equals)

    def softmax_into_weights(self):
        weights = self.matrix("weight", self.trace["attention"]["weights"], digits=3, masked=True, role="highlight")
        weights.match_height(self.scores).move_to(self.scores)
        overhang = weights.get_right()[0] - MAX_WIDTH / 2  # three digits are wider than the scores' two
        if overhang > 0:
            weights.shift(overhang * LEFT)
        name = label("softmax(QK^T / √d_k)", 16, "highlight").next_to(weights, UP, buff=0.15)
        with self.narration("ch08.softmax"):
            self.play(emphasise(self.part("softmax"), role="highlight"),
                      FadeTransform(self.scores, weights), FadeIn(name), run_time=1.5)
        self.weights = VGroup(weights, name)

    def weigh_the_values(self):
        attention = self.trace["attention"]
        values = self.matrix("V", attention["values"], role="value", by_word=(True, False))
        mixed = self.matrix("out", attention["mixed"], role="value", by_word=(True, False))
        target = self.weights.copy()
        self.equation(target, values, label("=", 28), mixed)
        name = label("V", 20, "value").next_to(values, UP, buff=0.15)
        output = FORMULA.split(" =")[0]  # Attention(Q, K, V)
        result = label(output, 20, "value").next_to(mixed, UP, buff=0.15)
        with self.narration("ch08.values"):
            self.play(FadeOut(self.score_parts), self.weights.animate.move_to(target))
            self.play(emphasise(self.part("V", 1), role="value"), FadeIn(values), FadeIn(name))
            self.play(FadeIn(label("=", 28).move_to(mixed.get_left() + LEFT * 0.4)), FadeIn(mixed, shift=0.2 * LEFT),
                      FadeIn(result, shift=0.2 * LEFT), emphasise(self.part(output), role="value"))
            self.play(Create(SurroundingRectangle(self.formula, color=role_colour("output"), buff=0.12)))

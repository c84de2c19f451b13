"""Chapter 4 — attention nodes (seed 2.1–2.2): one network, its three node groups, q·k → weight.

The network first fills the frame; then it draws itself together on the left, and on the right its
Query, Key and ordinary hidden numbers, taken out as bracketed columns, are multiplied pair by pair,
summed into the score, turned into the weight, and the weight scales the values; the weighted values
go back into the network, which feeds them with the input to the following layer and its prediction.
"""

from __future__ import annotations

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    BackgroundRectangle,
    FadeIn,
    FadeOut,
    FadeTransform,
    GrowFromEdge,
    TransformFromCopy,
    VGroup,
    Write,
)

from scenes.base import ExplainerScene
from scenes.math import formula
from scenes.mobjects import Connections, NodeLayer, VectorColumn, bar, emphasise, label, prediction_rows, tag
from scenes.theme import HEADING, LABEL, SMALL, theme, value_colour

GROUPS = ("query", "key", "value")
ROW_Y = {"query": 2.2, "key": 0.35, "value": -1.9}  # the three groups' rows, top to bottom
INPUT_X = -5.55
# The network first spreads across the frame, its groups named to their right; for the computation it
# draws together on the left, its groups named above their rows, and leaves the right to the numbers.
WIDE = dict(left=-3.3, spacing=1.1)
NARROW = dict(left=-3.95, spacing=0.62)
COLUMN_X = {"query": 0.55, "key": 2.05, "value": 0.75}  # the groups' numbers, taken out
TOP_Y, BOTTOM_Y = 1.2, -1.9  # centres of the q·k columns and of the value columns
ROW_GAP = 0.08  # between a column's numbers: two columns and their names stand one above the other
PRODUCTS_X, SUM_X = 3.4, 5.75
MATH = 44  # formulas: TeX's glyphs stand smaller than the font's at the same size
BAR_HEIGHT = 1.5  # the weight bar at weight 1
FOLLOWING_X = 1.0


class AttentionNodes(ExplainerScene):
    title_key = "ch04.title"
    narration_lines = 11  # with the question and the recap
    word_index = 0  # whose network: the first word's is complete on its own (nothing before it)

    def construct(self):
        self.show_network()
        self.flow_into_groups()
        self.multiply_query_key()
        self.softmax_into_weight()
        self.weigh_values()
        self.retire_query_key()
        self.predict()

    def data(self, name: str):
        return self.trace["attention"][name][self.word_index]

    # The network, wide

    def show_network(self):
        self.show_title()
        self.inputs = NodeLayer(self.data("inputs"), "input", radius=0.17, spacing=0.62, direction=DOWN)
        self.inputs.move_to([INPUT_X, -0.15, 0])
        self.input_numbers = VGroup(
            *(
                self.shown(f"input {i}", v, size=SMALL).next_to(node, LEFT, buff=0.1)
                for i, (node, v) in enumerate(zip(self.inputs.nodes, self.inputs.values))
            )
        )
        self.input_tag = tag(self.inputs, self.say("input"), "input", UP, buff=0.2)
        self.token = label(self.trace["tokens"][self.word_index], HEADING).next_to(self.inputs, DOWN, buff=0.2)
        self.groups = {role: self.row(role, **WIDE) for role in GROUPS}
        self.tags = {
            role: self.backed(tag(self.groups[role], self.say(role), role, RIGHT, buff=0.35)) for role in GROUPS
        }
        self.edges = {role: self.connect(self.inputs, group) for role, group in self.groups.items()}
        with self.narration("ch04.groups"):
            self.play(FadeIn(self.token, shift=0.2 * UP), self.inputs.create(), FadeIn(self.input_tag))
            self.play(FadeTransform(self.token.copy(), self.input_numbers))
            self.play(
                *(edges.create() for edges in self.edges.values()),
                *(FadeIn(group.nodes) for group in self.groups.values()),
            )
        with self.narration("ch04.roles"):
            for role in GROUPS:
                self.play(Write(self.tags[role]), emphasise(self.groups[role].nodes), run_time=1.2)

    def row(self, role: str, left: float, spacing: float) -> NodeLayer:
        group = NodeLayer(self.data(self.field(role)), role, radius=0.2, spacing=spacing, direction=RIGHT)
        return group.move_to([left, ROW_Y[role], 0], aligned_edge=LEFT)

    @staticmethod
    def field(role: str) -> str:
        return {"query": "queries", "key": "keys", "value": "values"}[role]

    @staticmethod
    def connect(source: NodeLayer, target: NodeLayer) -> Connections:
        """Edges drawn under the numbers they pass (each number stands on a backdrop)."""
        edges = Connections(source, target, max_width=1.2, opacity=0.35)
        edges.set_z_index(-2)
        return edges

    def flow_into_groups(self):
        self.numbers = {
            role: VGroup(
                *(
                    self.backed(self.shown(f"{role} {i}", v, size=SMALL)).next_to(node, DOWN, buff=0.1)
                    for i, (node, v) in enumerate(zip(group.nodes, group.values))
                )
            )
            for role, group in self.groups.items()
        }
        with self.narration("ch04.flow"):
            self.play(*(edges.flow() for edges in self.edges.values()), run_time=1.6)
            self.play(*(FadeIn(numbers, shift=0.15 * DOWN) for numbers in self.numbers.values()))

    @staticmethod
    def backed(text):
        """A number on a backdrop of the background's colour: edges passing under it do not cross it out."""
        backdrop = BackgroundRectangle(text, color=theme().background, fill_opacity=1, buff=0.04)
        backdrop.set_z_index(-1)
        return VGroup(backdrop, text)

    # The numbers taken out

    def multiply_query_key(self):
        """q·k: the numbers taken out, multiplied pair by pair, summed, divided into the score."""
        with self.narration("ch04.multiply"):
            self.take_out_numbers()
            self.lined_up_products()
        self.divide_into_score()

    def take_out_numbers(self):
        """The network draws together on the left; each group's numbers fly out into a bracketed column."""
        narrow = {role: self.row(role, **NARROW) for role in GROUPS}
        self.columns = {
            role: self.column(role).move_to([COLUMN_X[role], TOP_Y if role != "value" else BOTTOM_Y, 0])
            for role in GROUPS
        }
        self.column_tags = {
            role: self.backed(tag(column, self.say(role), role, UP, buff=0.15)) for role, column in self.columns.items()
        }
        self.column_tags["value"].align_to(self.columns["value"], RIGHT)  # leaves room for the weighted one's
        new_edges = {role: self.connect(self.inputs, narrow[role]) for role in GROUPS}
        new_tags = {
            role: tag(narrow[role], self.say(role), role, UP, buff=0.12).align_to(narrow[role], LEFT) for role in GROUPS
        }
        self.play(
            *(
                TransformFromCopy(self.numbers[role][i][1], self.columns[role].entry(i))
                for role in GROUPS
                for i in range(len(self.groups[role]))
            ),
            *(FadeIn(self.columns[role].brackets) for role in GROUPS),
            *(FadeIn(self.column_tags[role]) for role in GROUPS),
            *(FadeOut(self.numbers[role]) for role in GROUPS),
            *(
                node.animate.move_to(target)
                for role in GROUPS
                for node, target in zip(self.groups[role].nodes, narrow[role].nodes)
            ),
            *(self.edges[role].animate.become(new_edges[role]) for role in GROUPS),
            *(self.tags[role].animate.move_to(new_tags[role]) for role in GROUPS),
            run_time=1.6,
        )

    def column(self, role: str) -> VectorColumn:
        values = self.data(self.field(role))
        entries = [self.shown(f"{role} column {i}", v, size=SMALL) for i, v in enumerate(values)]
        return VectorColumn(values, role, entries=entries, row_gap=ROW_GAP)

    def lined_up_products(self):
        """q·k as it is computed: each pair's product takes its place in a line-up beside the pair,
        and joins the running sum."""
        q, k = self.data("queries"), self.data("keys")
        query, key = self.columns["query"], self.columns["key"]
        self.times = formula(r"\times", size=MATH).move_to((query.get_right() + key.get_left()) / 2)
        products = [a * b for a, b in zip(q, k)]
        self.products = VGroup(
            *(
                self.shown(f"product {j}", p, size=SMALL, role="highlight").move_to(
                    [PRODUCTS_X, query.entry(j).get_y(), 0]
                )
                for j, p in enumerate(products)
            )
        )
        self.products_tag = formula(r"q_i k_i", size=MATH, role="highlight").next_to(self.products, UP, buff=0.2)
        self.sum_tag = formula(r"\sum_i q_i k_i", size=MATH, role="highlight")
        self.sum_tag.move_to([SUM_X, self.products_tag.get_y() - 0.1, 0])
        self.play(FadeIn(self.times), FadeIn(self.products_tag), FadeIn(self.sum_tag))
        running, total = None, 0.0
        for j, product in enumerate(self.products):
            total += products[j]
            pair = VGroup(query.entry(j).copy(), key.entry(j).copy())
            self.play(
                FadeTransform(pair, product),
                emphasise(query.entry(j), "query"),
                emphasise(key.entry(j), "key"),
                run_time=0.55,
            )
            ticked = self.shown(f"running sum {j}", total, size=LABEL, role="highlight")
            ticked.next_to(self.sum_tag, DOWN, buff=0.2)
            arrival = [FadeOut(running)] if running is not None else []
            self.play(FadeTransform(product.copy(), ticked), *arrival, run_time=0.45)
            running = ticked
        self.running_sum = running

    def divide_into_score(self):
        d_k = self.trace["attention"]["config"]["d_k"]
        self.numbers_on_screen["d_k"] = d_k  # typeset in the formula, not written by shown(): recorded here
        score = self.data("scores")[self.word_index]
        self.divide = formula(rf"\div\sqrt{{{d_k}}}", size=MATH, role="highlight")
        self.divide.next_to(self.running_sum, DOWN, buff=0.15)
        self.score = self.shown("score", score, size=HEADING, role="highlight").next_to(self.divide, DOWN, buff=0.15)
        self.score_tag = tag(self.score, self.say("score"), "highlight", LEFT, size=LABEL)
        with self.narration("ch04.sum", score=f"{score:.2f}"):
            self.play(FadeIn(self.divide, shift=0.2 * DOWN))
            self.play(FadeTransform(self.running_sum.copy(), self.score), FadeIn(self.score_tag))
            self.play(emphasise(self.score))

    def softmax_into_weight(self):
        weight = self.data("weights")[self.word_index]
        self.softmax = formula(r"\downarrow\ \mathrm{softmax}", size=MATH, role="highlight")
        self.softmax.next_to(self.score, DOWN, buff=0.15)
        bottom = BOTTOM_Y - 1.05
        self.weight_bar = bar(weight, BAR_HEIGHT, width=0.5).move_to([SUM_X - 0.25, bottom, 0], aligned_edge=DOWN)
        self.weight = self.shown("weight", weight, size=HEADING, role="highlight")
        self.weight.next_to(self.weight_bar, RIGHT, buff=0.1).align_to(self.weight_bar, UP)
        self.weight_tag = tag(self.weight_bar, self.say("weight"), "highlight", UP, size=LABEL, buff=0.15)
        self.weight_tag.set_y(bottom + BAR_HEIGHT + 0.15 + self.weight_tag.height / 2)
        with self.narration("ch04.weight", word=self.trace["tokens"][self.word_index], weight=f"{weight:.2f}"):
            self.play(FadeIn(self.softmax, shift=0.2 * DOWN))
            self.play(
                GrowFromEdge(self.weight_bar, DOWN),
                FadeTransform(self.score.copy(), self.weight),
                FadeIn(self.weight_tag),
                run_time=1.4,
            )

    def weigh_values(self):
        """The weight flies to the value column; their product is the weighted column beside it."""
        weighted = self.data("mixed")
        values = self.columns["value"]
        self.factor = self.weight.copy()
        self.factor_times = formula(r"\times", size=MATH, role="highlight")
        factor = VGroup(self.factor_times, self.factor.copy().scale(LABEL / HEADING)).arrange(RIGHT, buff=0.1)
        factor.next_to(values, RIGHT, buff=0.2)
        equals = formula("=", size=MATH).next_to(factor, RIGHT, buff=0.2)
        entries = [self.shown(f"weighted {i}", v, size=SMALL) for i, v in enumerate(weighted)]
        self.weighted = VectorColumn(weighted, "value", entries=entries, row_gap=ROW_GAP)
        self.weighted.next_to(equals, RIGHT, buff=0.2)
        self.weighted_tag = tag(self.weighted, self.say("weighted"), "value", UP, buff=0.15).align_to(
            self.weighted, LEFT
        )
        with self.narration("ch04.scale"):
            self.play(self.factor.animate.move_to(factor[1]).scale(LABEL / HEADING), FadeIn(self.factor_times))
            self.play(
                FadeIn(equals),
                emphasise(self.factor, "highlight"),
                *(FadeTransform(values.entry(i).copy(), self.weighted.entry(i)) for i in range(len(weighted))),
                FadeIn(self.weighted.brackets),
                FadeIn(self.weighted_tag),
                run_time=1.4,
            )
        self.value_work = VGroup(values, self.column_tags["value"], equals)

    def retire_query_key(self):
        """Their job done, the q·k computation goes back into the Query and Key rows, which dim."""
        done = [
            self.columns["query"],
            self.columns["key"],
            self.column_tags["query"],
            self.column_tags["key"],
            self.times,
            self.products,
            self.products_tag,
            self.sum_tag,
            self.running_sum,
            self.divide,
            self.score,
            self.score_tag,
            self.softmax,
        ]
        rows = VGroup(self.groups["query"], self.groups["key"])
        with self.narration("ch04.done"):
            self.play(*(FadeOut(part, target_position=rows, scale=0.4) for part in done), run_time=1.2)
            self.play(
                VGroup(
                    rows, self.edges["query"], self.edges["key"], self.tags["query"], self.tags["key"]
                ).animate.set_opacity(0.25),
                run_time=0.8,
            )

    def predict(self):
        """The weighted numbers go back into the network's ordinary hidden row; with the input it feeds
        the following layer, whose output is the prediction."""
        value_row = self.groups["value"]
        weighted_tag = self.backed(
            tag(value_row, self.say("weighted"), "value", UP, buff=0.12).align_to(value_row, LEFT)
        )
        factor = self.backed(VGroup(self.factor_times.copy(), self.factor.copy()).arrange(RIGHT, buff=0.1))
        factor.next_to(weighted_tag, RIGHT, buff=0.15)
        weight = VGroup(self.weight_bar, self.weight, self.weight_tag)
        following = NodeLayer(self.data("hidden"), "output", radius=0.11, spacing=0.32, direction=DOWN)
        following.move_to([FOLLOWING_X, -0.35, 0])
        following_tag = tag(following, self.say("following"), "output", UP, buff=0.15)
        feeds = VGroup(self.connect(self.inputs, following), self.connect(value_row, following))
        top = self.data("predictions")[:3]
        word, p = top[0]
        with self.narration("ch04.follow", word=word, p=f"{p:.2f}"):
            self.play(
                *(
                    FadeOut(self.weighted.entry(i).copy(), target_position=value_row.node(i), scale=0.5)
                    for i in range(len(value_row))
                ),
                *(node.animate.set_fill(value_colour(v)) for node, v in zip(value_row.nodes, self.data("mixed"))),
                FadeOut(self.value_work),
                FadeOut(self.weighted),
                FadeOut(self.weighted_tag),
                FadeOut(weight),
                FadeOut(self.tags["value"]),
                FadeIn(weighted_tag),
                FadeTransform(VGroup(self.factor_times, self.factor), factor),
                run_time=1.3,
            )
            self.play(FadeIn(feeds), following.create(), FadeIn(following_tag))
            self.play(feeds[0].flow("output"), feeds[1].flow("output"), run_time=1.5)
            self.play(*self.prediction_bars(top, following), run_time=1.5)

    def prediction_bars(self, top, following) -> list:
        """The top predictions as bars (word, bar as long as its probability, the probability), out of
        the following layer."""
        numbers = [self.shown(f"p {rank}", p, size=LABEL) for rank, (_, p) in enumerate(top)]
        rows = prediction_rows(
            top,
            numbers,
            [following.get_right()[0] + 1.7, 0.7, 0],
            bar_length=5.0,
            spacing=0.8,
            words_right_of=following.get_right()[0] + 0.3,
        )
        title = tag(rows, self.say("prediction"), "output", UP, buff=0.3).align_to(rows, LEFT)
        return [
            FadeIn(title),
            *(FadeIn(VGroup(row[0], row[2]), shift=0.3 * RIGHT) for row in rows),
            *(GrowFromEdge(row[1], LEFT) for row in rows),
        ]

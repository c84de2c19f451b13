"""Chapter 4 — attention nodes (seed 2.1–2.2): one network, its three node groups, q·k → weight."""

from __future__ import annotations

from manim import DOWN, LEFT, RIGHT, UP, BackgroundRectangle, FadeIn, FadeOut, VGroup, Write

from scenes.base import ExplainerScene
from scenes.mobjects import Connections, NodeLayer, emphasise, label, multiply_pairs, prediction_rows, scale_group
from scenes.theme import theme

ROW = dict(radius=0.2, spacing=0.55, direction=RIGHT, show_values=True, value_size=13)


class AttentionNodes(ExplainerScene):
    title_key = "ch04.title"
    narration_lines = 11  # with the question and the recap
    word_index = 0  # whose network: the first word's is complete on its own (nothing before it)

    def construct(self):
        self.show_network()
        self.flow_into_groups()
        self.multiply_query_key()
        self.weigh_values()
        self.retire_query_key()
        self.predict()

    def data(self, name: str):
        return self.trace["attention"][name][self.word_index]

    def show_network(self):
        self.show_title()
        i = self.word_index
        self.inputs = NodeLayer(self.data("inputs"), "input", radius=0.17, spacing=0.62, direction=DOWN,
                                show_values=True, value_size=13, value_side=LEFT)
        self.inputs.move_to([-5.9, -0.2, 0])
        self.input_title = self.word("input", 18, "input").next_to(self.inputs, UP, buff=0.2)
        self.token = label(self.trace["tokens"][i], 30).next_to(self.inputs, DOWN, buff=0.25)
        self.groups = {
            "query": NodeLayer(self.data("queries"), "query", **ROW).move_to([-1.6, 2.55, 0]),
            "key": NodeLayer(self.data("keys"), "key", **ROW).move_to([-1.6, 1.05, 0]),
            "value": NodeLayer(self.data("values"), "value", **ROW).move_to([-1.6, -1.6, 0]),
        }
        self.group_titles = {role: self.word(role, 18, role).next_to(group, LEFT, buff=0.3)
                             for role, group in self.groups.items()}
        self.edges = {role: Connections(self.inputs, group, max_width=0.8, opacity=0.3)
                      for role, group in self.groups.items()}
        with self.narration("ch04.groups"):
            self.play(FadeIn(self.token), self.inputs.create(), FadeIn(self.input_title))
            self.play(*(edges.create() for edges in self.edges.values()),
                      *(FadeIn(group.nodes) for group in self.groups.values()))
        with self.narration("ch04.roles"):
            for role in ("query", "key", "value"):
                self.play(Write(self.group_titles[role]), emphasise(self.groups[role].nodes), run_time=1.2)

    def flow_into_groups(self):
        with self.narration("ch04.flow"):
            self.play(*(edges.flow() for edges in self.edges.values()), run_time=1.6)
            self.play(*(FadeIn(group.value_labels) for group in self.groups.values()),
                      FadeIn(self.inputs.value_labels))

    def multiply_query_key(self):
        q, k = self.data("queries"), self.data("keys")
        d_k = self.trace["attention"]["config"]["d_k"]
        score = self.data("scores")[self.word_index]
        products = [a * b for a, b in zip(q, k)]
        self.products = VGroup(*(self.shown(f"product {j}", p, size=15, role="highlight")
                                 .move_to([self.groups["key"].node(j).get_x(), 0.05, 0])
                                 for j, p in enumerate(products)))
        sum_text = label(f"Σ / √{d_k} =", 18).next_to(self.products, RIGHT, buff=0.35)
        self.score = self.shown("score", score, size=24, role="highlight").next_to(sum_text, RIGHT, buff=0.15)
        self.score_group = VGroup(sum_text, self.score)
        with self.narration("ch04.multiply"):
            self.play(multiply_pairs(self.groups["query"], self.groups["key"], self.products, self.score_group))
        with self.narration("ch04.sum", score=f"{score:.2f}"):
            self.play(emphasise(self.score))

    def weigh_values(self):
        weight = self.data("weights")[self.word_index]
        weight_title = self.word("weight", 18, "highlight")
        self.weight = self.shown("weight", weight, size=24, role="highlight")
        weight_row = VGroup(weight_title, self.weight).arrange(RIGHT, buff=0.15)
        weight_row.next_to(self.score_group, DOWN, buff=0.35).align_to(self.score_group, LEFT)
        with self.narration("ch04.weight", word=self.trace["tokens"][self.word_index], weight=f"{weight:.2f}"):
            self.play(FadeIn(weight_row, shift=0.2 * DOWN))
        times = label("×", 26, "highlight").next_to(self.groups["value"], RIGHT, buff=0.3)
        factor = self.weight.copy()
        with self.narration("ch04.scale"):
            self.play(FadeIn(times), factor.animate.next_to(times, RIGHT, buff=0.1))
            self.play(scale_group(self.groups["value"], weight))
        self.weight_labels = VGroup(weight_row, times, factor)
        self.weighted_title = self.word("weighted", 18, "value").move_to(self.group_titles["value"], RIGHT)
        self.play(FadeOut(self.group_titles["value"]), FadeIn(self.weighted_title))

    def retire_query_key(self):
        retiring = VGroup(self.groups["query"], self.groups["key"], self.edges["query"], self.edges["key"],
                          self.group_titles["query"], self.group_titles["key"], self.products,
                          self.score_group)
        with self.narration("ch04.done"):
            self.play(retiring.animate.set_opacity(0.12), run_time=1.5)

    def predict(self):
        hidden = NodeLayer(self.data("hidden"), "output", radius=0.12, spacing=0.38, direction=DOWN)
        hidden.move_to([2.6, -0.2, 0])
        title = self.word("following", 18, "output").next_to(hidden, UP, buff=0.15)
        feeds = VGroup(Connections(self.inputs, hidden, max_width=0.6, opacity=0.25),
                       Connections(self.groups["value"], hidden, max_width=0.6, opacity=0.25))
        top = self.data("predictions")[:3]
        word, p = top[0]
        with self.narration("ch04.follow", word=word, p=f"{p:.2f}"):
            self.play(FadeIn(feeds), hidden.create(), FadeIn(title))
            self.keep_clear_of(feeds, self.weight_labels)
            self.play(feeds[0].flow("output"), feeds[1].flow("output"), run_time=1.5)
            self.play(FadeIn(self.prediction_bars(top, hidden)), run_time=1.5)

    def keep_clear_of(self, lines: VGroup, labels: VGroup):
        """Lines pass under the labels, which stand on backdrops of the background's colour: seen through
        a label's strokes, lines cross out its numbers."""
        lines.set_z_index(-1)
        self.add(*(BackgroundRectangle(part, color=theme().background, fill_opacity=1, buff=0.05) for part in labels))
        self.bring_to_front(labels)

    def prediction_bars(self, top, hidden) -> VGroup:
        """The top predictions as bars: word, bar as long as its probability, the probability."""
        numbers = [self.shown(f"p {rank}", p) for rank, (_, p) in enumerate(top)]
        rows = prediction_rows(top, numbers, [hidden.get_right()[0] + 1.5, 0.7, 0],
                               words_right_of=hidden.get_right()[0] + 0.3)
        title = self.word("prediction", 18, "output").next_to(rows, UP, buff=0.3).align_to(rows, LEFT)
        return VGroup(title, rows)

"""Chapter 10 — multi-head attention (Q9): one head's weights, then the multi-head model's heads
side by side, each labelled with its measured behaviour; the heads' outputs concatenated and
projected into one group."""

from __future__ import annotations

from manim import DOWN, RIGHT, UP, Arrow, FadeIn, FadeTransform, ReplacementTransform, VGroup

from scenes.base import ExplainerScene
from scenes.mobjects import NodeLayer, WeightGrid, emphasise, label, row_peaks
from scenes.theme import role_colour

GRID_WIDTH = 12.0  # room for all heads' grids side by side
GRID_HEIGHT = 5.0
NODE = dict(radius=0.15, spacing=0.42, direction=RIGHT, show_values=True, value_size=11)


class MultiHead(ExplainerScene):
    title_key = "ch10.title"
    narration_lines = 7  # with the question and the recap

    def construct(self):
        self.one_head()
        self.heads_side_by_side()
        self.label_behaviours()
        self.concatenate_outputs()
        self.project_into_one()

    def grid(self, name: str, weights, cell: float) -> WeightGrid:
        """A T×T causal weight grid with its numbers (a long sentence's small cells: only each row's largest)."""
        tokens = self.trace["tokens"]
        return self.weight_grid(name, weights, tokens, tokens, cell, True, min(16, 26 * cell), min(18, 30 * cell))

    def cell_size(self, grids: int) -> float:
        return min(0.75, (GRID_WIDTH / grids - 1.2) / len(self.trace["tokens"]), GRID_HEIGHT / len(self.trace["tokens"]))

    def one_head(self):
        self.title = self.show_title()
        self.single = self.grid("one head", self.trace["attention"]["weights"], self.cell_size(2)).move_to([0, -0.3, 0])
        with self.narration("ch10.one"):
            self.play(FadeIn(self.single))

    def heads_side_by_side(self):
        multi = self.trace["multi_head"]
        count, cell = len(multi["weights"]), self.cell_size(len(multi["weights"]))
        self.grids = VGroup(*(self.grid(f"head {h}", weights, cell) for h, weights in enumerate(multi["weights"])))
        self.grids.arrange(RIGHT, buff=1.2).move_to([0, -0.1, 0])
        names = VGroup(*(label(self.say("head", n=h + 1), 22, "query").next_to(grid, UP, buff=0.2)
                         for h, grid in enumerate(self.grids)))
        with self.narration("ch10.heads", heads=count):
            self.play(FadeTransform(self.single, self.grids[0]))
            self.play(*(FadeIn(g) for g in self.grids[1:]), FadeIn(names))

    def label_behaviours(self):
        """Under each head: what it looks at most over the corpus, its mean weight there, and where
        the word before the last (whose prediction is the last word) looks in this sentence, which
        can differ from the corpus's habit."""
        multi, tokens = self.trace["multi_head"], self.trace["tokens"]
        heads, query = multi["heads"], len(tokens) - 2
        tags = VGroup()
        for head, weights, grid in zip(heads, multi["weights"], self.grids):
            share = head["shares"][head["looks_at"]]
            measured = VGroup(label(self.say("mean_weight"), 16, "muted"),
                              self.shown(f"share {head['head']}", share, 2, 16, "highlight")).arrange(RIGHT, buff=0.15)
            peak = row_peaks(weights, causal=True)[query]
            here = VGroup(label(self.say("in_sentence", query=tokens[query], word=tokens[peak]), 16, "muted"),
                          self.shown(f"peak {head['head']}", weights[query][peak], 2, 16, "text"))
            here.arrange(RIGHT, buff=0.15)
            tags.add(VGroup(label(self.say(f"looks.{head['looks_at']}"), 20, "highlight"), measured, here)
                     .arrange(DOWN, buff=0.12).next_to(grid, DOWN, buff=0.3))
        labels = "、".join if self.lang == "zh" else ", ".join
        summary = labels(f"{self.say('head', n=h['head'] + 1)} {self.say('looks.' + h['looks_at'])}" for h in heads)
        with self.narration("ch10.labels", labels=summary, query=tokens[query]):
            self.play(*(FadeIn(tag, shift=0.2 * UP) for tag in tags))
        self.tags = tags

    def concatenate_outputs(self):
        multi = self.trace["multi_head"]
        query = len(self.trace["tokens"]) - 2
        self.clear_stage()
        word = label(self.trace["tokens"][query], 28).move_to([0, 2.6, 0])
        outputs = VGroup(*(NodeLayer(self.record(f"output {h}", out[query]), "value", **NODE)
                           for h, out in enumerate(multi["outputs"])))
        outputs.arrange(RIGHT, buff=1.2).move_to([0, 1.4, 0])
        names = VGroup(*(label(self.say("head", n=h + 1), 18, "query").next_to(out, UP, buff=0.15)
                         for h, out in enumerate(outputs)))
        joined_values = [v for out in multi["outputs"] for v in out[query]]
        self.joined = NodeLayer(joined_values, "value", **NODE).move_to([0, -0.3, 0])
        joined_name = label(self.say("concatenated"), 18, "muted").next_to(self.joined, UP, buff=0.15)
        with self.narration("ch10.concat"):
            self.play(FadeIn(word), FadeIn(outputs), FadeIn(names))
            self.play(*(ReplacementTransform(out.copy(), self.joined_part(h)) for h, out in enumerate(outputs)),
                      FadeIn(joined_name), run_time=1.5)

    def joined_part(self, head: int) -> VGroup:
        """The nodes (and value labels) of the concatenated row that came from one head."""
        d_k = self.trace["multi_head"]["config"]["d_k"]
        part = slice(head * d_k, (head + 1) * d_k)
        return VGroup(*self.joined.nodes[part], *self.joined.value_labels[part])

    def record(self, name: str, values: list[float]) -> list[float]:
        for i, value in enumerate(values):
            self.numbers_on_screen[f"{name} {i}"] = value
        return values

    def project_into_one(self):
        query = len(self.trace["tokens"]) - 2
        combined = NodeLayer(self.record("combined", self.trace["multi_head"]["combined"][query]), "value", **NODE)
        combined.move_to([0, -2.4, 0])
        arrow = Arrow(self.joined.get_bottom(), combined.get_top(), buff=0.4, color=role_colour("muted"))
        name = label(self.say("projected"), 18, "muted").next_to(arrow, RIGHT, buff=0.2)
        with self.narration("ch10.project"):
            self.play(FadeIn(arrow), FadeIn(name))
            self.play(FadeIn(combined, shift=0.3 * DOWN))
            self.play(emphasise(combined.nodes, role="value"))

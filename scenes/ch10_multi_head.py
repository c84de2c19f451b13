"""Chapter 10 — multi-head attention (Q9): one head's weights as a big grid; then the multi-head
model's heads, side by side when they fit (one after another in the same place when the sentence is
too long), each labelled beside itself with its measured behaviour; the heads' outputs for one word
travel into one concatenated column, which the real projection turns into one group."""

from __future__ import annotations

from manim import (DOWN, LEFT, RIGHT, UP, Arrow, FadeIn, FadeOut, FadeTransform, GrowArrow, TransformFromCopy,
                   VGroup)

from scenes.base import LEFT_MARGIN, RIGHT_MARGIN, ExplainerScene
from scenes.math import formula
from scenes.mobjects import VectorColumn, emphasise, label, row_peaks, tag
from scenes.mobjects.patterns import AttentionPattern, pattern_cell, pattern_numbers
from scenes.theme import HEADING, LABEL, SMALL, role_colour

TOP = 2.9  # the grids' top: clear of the title's band
BOTTOM = -3.1  # above the recap's band
LOW = -3.85  # a tall grid mid-chapter may reach this far down (the recap comes later)
WIDTH = RIGHT_MARGIN - LEFT_MARGIN
GAP = 0.5  # between grids side by side
TAGS = 1.5  # under each grid side by side: its behaviour and two measured lines
SIDE_TAGS = 4.4  # right of a grid shown alone: the same, beside it


class MultiHead(ExplainerScene):
    title_key = "ch10.title"
    narration_lines = 7  # with the question and the recap

    def construct(self):
        self.one_head()
        self.heads_side_by_side()
        self.label_behaviours()
        self.concatenate_outputs()
        self.project_into_one()

    @property
    def query(self) -> int:
        """The word before the last: its output predicts the last word."""
        return len(self.trace["tokens"]) - 2

    def pattern(self, name: str, weights, cell: float, inside: bool, pitch: float | None = None) -> AttentionPattern:
        """A causal pattern of the sentence's words, its written weights recorded as "name i j"."""
        tokens = self.trace["tokens"]
        numbers = pattern_numbers(weights, True, inside, lambda i, j, w: self.shown(f"{name} {i} {j}", w, 2, SMALL))
        return AttentionPattern(weights, tokens, tokens, numbers, cell, inside, causal=True,
                                keep=[self.query, *row_peaks(weights, True)[self.query:self.query + 1]], pitch=pitch)

    def alone(self, name: str, weights, largest: float = 1.1) -> AttentionPattern:
        """A pattern alone at the left, room for its tags beside it."""
        tokens = self.trace["tokens"]
        cell, pitch, inside = pattern_cell(len(tokens), len(tokens), WIDTH - SIDE_TAGS, TOP - LOW, tokens,
                                           largest=largest)
        grid = self.pattern(name, weights, cell, inside, pitch)
        grid.next_to([LEFT_MARGIN, 0, 0], RIGHT, buff=0)
        return grid.shift((TOP - grid.get_top()[1]) * UP)

    def one_head(self):
        self.title = self.show_title()
        self.single = self.alone("one head", self.trace["attention"]["weights"], largest=1.4)
        self.single_tag = VGroup(self.word("ch10.one_head", HEADING, "highlight"),
                                 formula(r"\mathrm{softmax}\left(\frac{QK^\top}{\sqrt{d_k}}\right)", size=HEADING),
                                 self.word("ch10.one_set", LABEL, "muted")).arrange(DOWN, aligned_edge=LEFT, buff=0.3)
        self.single_tag.next_to(self.single, RIGHT, buff=0.6)
        # a short sentence's grid and its name stand in the middle; a long one's fill the width
        VGroup(self.single, self.single_tag).shift(
            max(0, (RIGHT_MARGIN - self.single_tag.get_right()[0]) / 2) * RIGHT)
        with self.narration("ch10.one"):
            self.play(FadeIn(self.single))
            self.play(FadeIn(self.single_tag, shift=0.2 * LEFT))

    def heads_side_by_side(self):
        """Side by side when every head's weights fit in its cells; otherwise each head in turn."""
        multi, tokens = self.trace["multi_head"], self.trace["tokens"]
        count = len(multi["weights"])
        cell, _, inside = pattern_cell(len(tokens), len(tokens), (WIDTH - GAP * (count - 1)) / count,
                                    TOP - BOTTOM - TAGS - 0.6, tokens)
        self.side = inside
        if self.side:
            self.grids = VGroup(*(self.pattern(f"head {h}", w, cell, True) for h, w in enumerate(multi["weights"])))
            self.grids.arrange(RIGHT, buff=GAP, aligned_edge=UP).move_to([0, 0, 0])
            self.grids.shift((TOP - 0.55 - self.grids.get_top()[1]) * UP)
        else:
            self.grids = VGroup(*(self.alone(f"head {h}", w) for h, w in enumerate(multi["weights"])))
        self.names = VGroup(*(label(self.say("head", n=h + 1), LABEL, "highlight") for h in range(count)))
        for name, grid in zip(self.names, self.grids):
            if self.side:
                name.next_to(grid.cells, UP, buff=0.6)
            else:
                name.next_to(grid, RIGHT, buff=0.6).align_to(grid.cells, UP)
        with self.narration("ch10.heads", heads=count):
            if self.side:
                self.play(FadeOut(self.single_tag), FadeTransform(self.single, self.grids[0]))
                self.play(*(FadeIn(g, shift=0.3 * LEFT) for g in self.grids[1:]), FadeIn(self.names))
            else:
                self.play(FadeOut(self.single_tag), FadeTransform(self.single, self.grids[0]),
                          FadeIn(self.names[0], shift=0.2 * LEFT))

    def behaviour(self, h: int) -> VGroup:
        """What head ``h`` looks at most over the corpus, its mean weight there, and where the word
        before the last looks in this sentence, which can differ from the corpus's habit."""
        multi, tokens = self.trace["multi_head"], self.trace["tokens"]
        head, weights = multi["heads"][h], multi["weights"][h]
        share = head["shares"][head["looks_at"]]
        peak = row_peaks(weights, causal=True)[self.query]
        measured = VGroup(self.word("mean_weight", SMALL, "muted"),
                          self.shown(f"share {head['head']}", share, 2, SMALL, "highlight")).arrange(RIGHT, buff=0.15)
        here = VGroup(label(self.say("in_sentence", query=tokens[self.query], word=tokens[peak]), SMALL, "muted"),
                      self.shown(f"peak {head['head']}", weights[self.query][peak], 2, SMALL)).arrange(RIGHT, buff=0.15)
        lines = VGroup(self.word(f"looks.{head['looks_at']}", LABEL, "highlight"), measured, here)
        if self.side:
            return lines.arrange(DOWN, buff=0.15).next_to(self.grids[h].cells, DOWN, buff=0.3)
        return lines.arrange(DOWN, aligned_edge=LEFT, buff=0.25).next_to(self.names[h], DOWN, aligned_edge=LEFT,
                                                                          buff=0.3)

    def label_behaviours(self):
        heads, tokens = self.trace["multi_head"]["heads"], self.trace["tokens"]
        tags = [self.behaviour(h) for h in range(len(heads))]
        labels = "、".join if self.lang == "zh" else ", ".join
        summary = labels(f"{self.say('head', n=h['head'] + 1)} {self.say('looks.' + h['looks_at'])}" for h in heads)
        with self.narration("ch10.labels", labels=summary, query=tokens[self.query]):
            if self.side:
                self.play(*(FadeIn(tag, shift=0.2 * UP) for tag in tags))
                self.play(*(emphasise(grid.row_labels[self.query]) for grid in self.grids))
                return
            self.play(FadeIn(tags[0], shift=0.2 * LEFT))
            for before, after in zip(range(len(tags)), range(1, len(tags))):
                self.play(FadeTransform(self.grids[before], self.grids[after]),
                          FadeTransform(self.names[before], self.names[after]), FadeOut(tags[before]))
                self.play(FadeIn(tags[after], shift=0.2 * LEFT))

    def outputs(self) -> VGroup:
        """Each head's output for the word: a column of its real numbers, named beside it."""
        multi = self.trace["multi_head"]
        columns = VGroup()
        for h, out in enumerate(multi["outputs"]):
            entries = [self.shown(f"output {h} {i}", v, 2, LABEL) for i, v in enumerate(out[self.query])]
            columns.add(VectorColumn(out[self.query], "value", size=LABEL, entries=entries))
        columns.arrange(RIGHT, buff=0.4)
        names = VGroup(*(label(self.say("head", n=h + 1), LABEL, "value").next_to(c, UP, buff=0.2)
                         for h, c in enumerate(columns)))
        return VGroup(columns, names)

    def concatenate_outputs(self):
        multi, tokens = self.trace["multi_head"], self.trace["tokens"]
        self.clear_stage()
        self.heads = self.outputs()
        word = label(self.say("ch10.outputs_for", word=tokens[self.query]), LABEL, "value")
        self.left = VGroup(word, self.heads).arrange(DOWN, buff=0.4)
        self.left.next_to([LEFT_MARGIN, 0, 0], RIGHT, buff=0).set_y(0.2)
        joined = [v for out in multi["outputs"] for v in out[self.query]]
        self.joined = VectorColumn(joined, "value", row_gap=0.03)
        self.joined.next_to(self.left, RIGHT, buff=0.9).set_y(0.15)
        self.joined_name = tag(self.joined, self.say("concatenated"), "value", DOWN, SMALL, buff=0.1)
        d_k = multi["config"]["d_k"]
        with self.narration("ch10.concat"):
            self.play(FadeIn(word), *(c.create() for c in self.heads[0]), FadeIn(self.heads[1]))
            self.play(*(TransformFromCopy(column.rows, VGroup(*self.joined.rows[h * d_k:(h + 1) * d_k]))
                        for h, column in enumerate(self.heads[0])),
                      FadeIn(self.joined.brackets), FadeIn(self.joined_name), run_time=1.6)

    def project_into_one(self):
        """The real projection: the concatenated column becomes the one group the next layers get."""
        combined_values = self.trace["multi_head"]["combined"][self.query]
        entries = [self.shown(f"combined {i}", v, 2, LABEL) for i, v in enumerate(combined_values)]
        combined = VectorColumn(combined_values, "output", size=LABEL, entries=entries)
        name = tag(combined, self.say("projected"), "output", DOWN, LABEL)
        # half way between the concatenation and the right margin, its name under it inside the margin
        width = max(combined.width, name.width)
        centre = min((self.joined.get_right()[0] + RIGHT_MARGIN) / 2, RIGHT_MARGIN - width / 2)
        combined.move_to([centre, self.joined.get_y(), 0])
        name.next_to(combined, DOWN, buff=0.2)
        arrow = Arrow(self.joined.get_right(), combined.get_left(), buff=0.25, color=role_colour("muted"))
        weights = formula(r"W^O", size=HEADING, role="muted").next_to(arrow, UP, buff=0.15)
        with self.narration("ch10.project"):
            self.play(GrowArrow(arrow), FadeIn(weights))
            self.play(FadeTransform(self.joined.copy(), combined), run_time=1.4)
            self.play(FadeIn(name, shift=0.2 * LEFT), emphasise(combined.rows, role="output"))

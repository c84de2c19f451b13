"""Chapter 10 — multi-head attention (Q9): one head's weights as a big grid; then the multi-head
model's heads, side by side when they fit (one after another in the same place when the sentence is
too long), each labelled beside itself with its measured behaviour; the heads' outputs for one word
travel into one concatenated column, which the real projection turns into one group."""

from __future__ import annotations

from manim import DOWN, LEFT, RIGHT, UP, Arrow, FadeIn, FadeOut, FadeTransform, GrowArrow, TransformFromCopy, VGroup

from scenes.base import LEFT_MARGIN, RIGHT_MARGIN, ExplainerScene
from scenes.math import formula
from scenes.mobjects import VectorColumn, emphasise, label, row_peaks
from scenes.mobjects.patterns import AttentionPattern, pattern_cell, pattern_numbers
from scenes.theme import HEADING, LABEL, SMALL, TITLE, role_colour

TOP = 2.9  # the grids' top: clear of the title's band
BOTTOM = -3.1  # above the recap's band
LOW = -3.85  # a tall grid mid-chapter may reach this far down (the recap comes later)
WIDTH = RIGHT_MARGIN - LEFT_MARGIN
GAP = 0.5  # between grids side by side
TAGS = 1.5  # under each grid side by side: its behaviour and two measured lines
SIDE_TAGS = 4.4  # right of a grid shown alone: the same, beside it
ONE_HEAD_CELL = 1.55  # the one-head grid's largest cell: its rows fill the picture's height
OUTPUT_SIZE = TITLE  # the heads' outputs and their projection, the chapter's last picture
COLUMN_GAP = 0.7  # between the heads' output columns


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
        return AttentionPattern(
            weights,
            tokens,
            tokens,
            numbers,
            cell,
            inside,
            causal=True,
            keep=[self.query, *row_peaks(weights, True)[self.query : self.query + 1]],
            pitch=pitch,
        )

    def alone(self, name: str, weights, largest: float = 1.1, room: float = SIDE_TAGS) -> AttentionPattern:
        """A pattern alone at the left, ``room`` for its tags beside it."""
        tokens = self.trace["tokens"]
        cell, pitch, inside = pattern_cell(len(tokens), len(tokens), WIDTH - room, TOP - LOW, tokens, largest=largest)
        grid = self.pattern(name, weights, cell, inside, pitch)
        grid.next_to([LEFT_MARGIN, 0, 0], RIGHT, buff=0)
        return grid.shift((TOP - grid.get_top()[1]) * UP)

    def one_head(self):
        self.title = self.show_title()
        self.single_tag = VGroup(
            self.word("ch10.one_head", TITLE, "highlight"),
            formula(r"\mathrm{softmax}\left(\frac{QK^\top}{\sqrt{d_k}}\right)", size=TITLE),
            self.word("ch10.one_set", HEADING, "muted"),
        )
        self.single_tag.arrange(DOWN, aligned_edge=LEFT, buff=0.45)
        self.single = self.alone(
            "one head",
            self.trace["attention"]["weights"],
            largest=ONE_HEAD_CELL,
            room=max(SIDE_TAGS, self.single_tag.width + 0.6),
        )
        self.single_tag.next_to(self.single, RIGHT, buff=0.6)
        # a short sentence's grid and its name stand in the middle; a long one's fill the width
        VGroup(self.single, self.single_tag).shift(max(0, (RIGHT_MARGIN - self.single_tag.get_right()[0]) / 2) * RIGHT)
        with self.narration("ch10.one"):
            self.play(FadeIn(self.single))
            self.play(FadeIn(self.single_tag, shift=0.2 * LEFT))

    def heads_side_by_side(self):
        """Side by side when every head's weights fit in its cells; otherwise each head in turn."""
        multi, tokens = self.trace["multi_head"], self.trace["tokens"]
        count = len(multi["weights"])
        cell, _, inside = pattern_cell(
            len(tokens), len(tokens), (WIDTH - GAP * (count - 1)) / count, TOP - BOTTOM - TAGS - 0.6, tokens
        )
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
            if self.side:  # in one movement, the picture never half empty
                self.play(
                    FadeOut(self.single_tag),
                    FadeTransform(self.single, self.grids[0]),
                    *(FadeIn(g, shift=0.3 * LEFT) for g in self.grids[1:]),
                    FadeIn(self.names),
                    run_time=1.4,
                )
            else:
                self.play(
                    FadeOut(self.single_tag),
                    FadeTransform(self.single, self.grids[0]),
                    FadeIn(self.names[0], shift=0.2 * LEFT),
                )

    def behaviour(self, h: int) -> VGroup:
        """What head ``h`` looks at most over the corpus, its mean weight there, and where the word
        before the last looks in this sentence, which can differ from the corpus's habit."""
        multi, tokens = self.trace["multi_head"], self.trace["tokens"]
        head, weights = multi["heads"][h], multi["weights"][h]
        share = head["shares"][head["looks_at"]]
        peak = row_peaks(weights, causal=True)[self.query]
        measured = VGroup(
            self.word("mean_weight", SMALL, "muted"), self.shown(f"share {head['head']}", share, 2, SMALL, "highlight")
        ).arrange(RIGHT, buff=0.15)
        here = VGroup(
            label(self.say("in_sentence", query=tokens[self.query], word=tokens[peak]), SMALL, "muted"),
            self.shown(f"peak {head['head']}", weights[self.query][peak], 2, SMALL),
        ).arrange(RIGHT, buff=0.15)
        lines = VGroup(self.word(f"looks.{head['looks_at']}", LABEL, "highlight"), measured, here)
        if self.side:
            return lines.arrange(DOWN, buff=0.15).next_to(self.grids[h].cells, DOWN, buff=0.3)
        return lines.arrange(DOWN, aligned_edge=LEFT, buff=0.25).next_to(
            self.names[h], DOWN, aligned_edge=LEFT, buff=0.3
        )

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
                self.play(
                    FadeTransform(self.grids[before], self.grids[after]),
                    FadeTransform(self.names[before], self.names[after]),
                    FadeOut(tags[before]),
                )
                self.play(FadeIn(tags[after], shift=0.2 * LEFT))

    def outputs(self) -> VGroup:
        """Each head's output for the word: a column of its real numbers, its name over it and, when
        they stand side by side in the left half, what the head looks at under it."""
        multi = self.trace["multi_head"]
        heads = VGroup()
        for h, out in enumerate(multi["outputs"]):
            entries = [self.shown(f"output {h} {i}", v, 2, OUTPUT_SIZE) for i, v in enumerate(out[self.query])]
            column = VectorColumn(out[self.query], "value", size=OUTPUT_SIZE, entries=entries)
            name = label(self.say("head", n=h + 1), HEADING, "value").next_to(column, UP, buff=0.2)
            looks = self.word(f"looks.{multi['heads'][h]['looks_at']}", LABEL, "highlight")
            heads.add(VGroup(column, name, looks.next_to(column, DOWN, buff=0.25)))
        if heads.arrange(RIGHT, buff=COLUMN_GAP, aligned_edge=UP).width > WIDTH / 2:
            for head in heads:  # a long behaviour's name would push the columns apart: left out
                head.remove(head[2])
            heads.arrange(RIGHT, buff=COLUMN_GAP, aligned_edge=UP)
        return heads

    def concatenate_outputs(self):
        """The grids give way to each head's output for the word (with what the head looks at), whose
        numbers then travel into one tall column."""
        multi, tokens = self.trace["multi_head"], self.trace["tokens"]
        self.heads = self.outputs()
        for size in (HEADING, LABEL, SMALL):  # no wider than the columns it names, if it can be
            word = label(self.say("ch10.outputs_for", word=tokens[self.query]), size, "value")
            if word.width <= self.heads.width:
                break
        self.left = VGroup(word, self.heads).arrange(DOWN, buff=0.4, aligned_edge=LEFT)
        self.left.next_to([LEFT_MARGIN, 0, 0], RIGHT, buff=0).set_y((TOP + BOTTOM) / 2)
        joined = [v for out in multi["outputs"] for v in out[self.query]]
        self.joined = VectorColumn(joined, "value", row_gap=0.03)
        self.joined_name = label(self.say("concatenated"), LABEL, "value")
        VGroup(self.joined, self.joined_name).arrange(DOWN, buff=0.15).next_to(self.left, RIGHT, buff=1.0)
        VGroup(self.joined, self.joined_name).set_y((TOP + BOTTOM) / 2)
        leaving = [m for m in self.mobjects if m is not self.title]
        d_k = multi["config"]["d_k"]
        with self.narration("ch10.concat"):
            self.play(
                *(FadeOut(m) for m in leaving),
                FadeIn(word),
                *(head[0].create() for head in self.heads),
                *(FadeIn(VGroup(*head[1:])) for head in self.heads),
                FadeIn(self.joined.brackets),
                FadeIn(self.joined_name),
            )  # the column waits, empty
            self.play(
                *(
                    TransformFromCopy(head[0].rows, VGroup(*self.joined.rows[h * d_k : (h + 1) * d_k]))
                    for h, head in enumerate(self.heads)
                ),
                run_time=1.6,
            )

    def project_into_one(self):
        """The real projection: the concatenated column becomes the one group the next layers get."""
        combined_values = self.trace["multi_head"]["combined"][self.query]
        entries = [self.shown(f"combined {i}", v, 2, OUTPUT_SIZE) for i, v in enumerate(combined_values)]
        combined = VectorColumn(combined_values, "output", size=OUTPUT_SIZE, entries=entries)
        # half way between the concatenation and the right margin, level with the heads' columns
        combined.move_to(
            [
                min((self.joined.get_right()[0] + RIGHT_MARGIN) / 2, RIGHT_MARGIN - combined.width / 2),
                self.heads[0][0].get_y(),
                0,
            ]
        )
        room = (VGroup(self.joined, self.joined_name).get_right()[0] + 0.3, RIGHT_MARGIN)  # right of the tall column
        for size in (HEADING, LABEL, SMALL):  # a long name a size smaller rather than out of the frame
            name = label(self.say("projected"), size, "output")
            if name.width <= room[1] - room[0]:
                break
        name.next_to(combined, DOWN, buff=0.25)
        name.shift((max(room[0] - name.get_left()[0], 0) + min(room[1] - name.get_right()[0], 0)) * RIGHT)
        arrow = Arrow(
            [self.joined.get_right()[0], combined.get_y(), 0],
            combined.get_left(),
            buff=0.25,
            color=role_colour("muted"),
        )
        weights = formula(r"W^O", size=TITLE, role="muted").next_to(arrow, UP, buff=0.15)
        with self.narration("ch10.project"):
            self.play(GrowArrow(arrow), FadeIn(weights))
            self.play(FadeTransform(self.joined.copy(), combined), run_time=1.4)
            self.play(FadeIn(name, shift=0.2 * LEFT), emphasise(combined.rows, role="output"))

"""Chapter 3 — RNN information dilution (seed 1.3): one word at a time, the hidden state fed back;
the subject's share of the fixed-size state shrinks; accuracy against distance."""

from __future__ import annotations

import numpy as np
from manim import (DOWN, DR, RIGHT, UP, UR, Arrow, Create, CurvedArrow, FadeIn, FadeOut, FadeTransform, Rectangle,
                   Transform, VGroup)

from scenes.base import LEFT_MARGIN, ExplainerScene
from scenes.layout import drawn_slots
from scenes.mobjects import NodeLayer, Plot, accuracy_curve, emphasise, fitted, label, size_to_fit
from scenes.theme import role_colour

WORD_IN = np.array([-5.6, -0.2, 0])  # where each word going in ends: the arrow into the state starts here
BAR = {"left": -1.6, "step": 0.95, "bottom": -2.6, "height": 4.6, "width": 0.5}
CHART = {"left": -4.8, "right": 3.8, "bottom": -2.6, "top": 2.2}
BARS = 8  # bars side by side; a long sentence's middle steps share a "⋯"


def rnn_falls(rows: list[dict]) -> bool:
    """Whether the RNN's accuracy at the furthest distance is below that at distance 0 by more than three
    standard errors of the difference (each measured on its row's held-out sentences): a fall, not the
    luck of the sentences drawn."""
    near, far = rows[0], rows[-1]
    variance = sum(row["rnn"] * (1 - row["rnn"]) / row["sentences"] for row in (near, far))
    return near["rnn"] - far["rnn"] > 3 * variance ** 0.5


def bar_x(column: int) -> float:
    """Where the share bar of column ``column`` (or the "⋯" standing in its place) is centred."""
    return BAR["left"] + BAR["step"] * column


class RNNDilution(ExplainerScene):
    title_key = "ch03.title"
    narration_lines = 8  # with the question and the recap

    def construct(self):
        self.show_one_word_in()
        self.feed_back_the_state()
        self.shrink_the_followed_word()
        self.compare_accuracy()

    def state(self, t: int) -> NodeLayer:
        return NodeLayer(self.trace["rnn"]["hidden"][t], "value", radius=0.11, spacing=0.29,
                         direction=DOWN, per_line=16).move_to([-4.3, -0.2, 0])

    def word_going_in(self, t: int):
        """Word t left of the arrow into the state, ending where the arrow starts; long words shrink."""
        return fitted(label(self.trace["tokens"][t], 32), WORD_IN[0] - LEFT_MARGIN).move_to(WORD_IN, aligned_edge=RIGHT)

    def show_one_word_in(self):
        self.title = self.show_title()
        self.word_in = self.word_going_in(0)
        self.hidden = self.state(0)
        self.feed = Arrow(WORD_IN, self.hidden.get_left(), buff=0.15, color=role_colour("input"))
        title = self.word("state", 16, "value").next_to(self.hidden, UP, buff=0.15)
        with self.narration("ch03.one"):
            self.play(FadeIn(self.word_in), Create(self.feed), self.hidden.create(), FadeIn(title))

    def feed_back_the_state(self):
        loop = CurvedArrow(self.hidden.get_corner(DR) + RIGHT * 0.15, self.hidden.get_corner(UR) + RIGHT * 0.15,
                           angle=2.2, color=role_colour("value"))
        nodes = self.trace["rnn"]["config"]["d_hidden"]
        self.numbers_on_screen["hidden nodes"] = nodes
        with self.narration("ch03.loop"):
            self.play(Create(loop), run_time=1.5)
            self.step_to(1)
        with self.narration("ch03.fixed", nodes=nodes):
            self.play(FadeIn(self.shown("hidden nodes", nodes, 0, 24, "value").next_to(self.hidden, DOWN, buff=0.2)))

    def step_to(self, t: int):
        """The next word goes in with the fed-back state; the state's nodes take their new values."""
        word = self.word_going_in(t)
        self.play(FadeTransform(self.word_in, word), Transform(self.hidden, self.state(t)), run_time=1.0)
        self.word_in = word

    def followed(self) -> int:
        """The word whose share is followed: the earliest that tells this sentence apart (the subject
        in the story; in English not "the", which every sentence starts with)."""
        return self.trace["rnn"]["followed_index"]

    def share_bar(self, t: int, column: int, word_size: float) -> VGroup:
        """Step t's state as a bar split by word: the followed word's share highlighted."""
        followed = self.followed()
        shares = self.trace["rnn"]["influence"][t][: t + 1]
        x = bar_x(column)
        pieces, bottom = VGroup(), BAR["bottom"]
        for i, share in enumerate(shares):
            height = max(share * BAR["height"], 1e-3)
            colour = role_colour("highlight") if i == followed else role_colour("muted")
            piece = Rectangle(width=BAR["width"], height=height, stroke_width=1, stroke_color=role_colour("background"),
                              fill_color=colour, fill_opacity=0.9 if i == followed else 0.35 + 0.1 * (i % 3))
            pieces.add(piece.move_to([x, bottom + height / 2, 0]))
            bottom += height
        share = self.shown(f"share {t}", shares[followed], 2, 16, "highlight")
        word = fitted(label(self.trace["tokens"][t], word_size), 0.9 * BAR["step"]).next_to(pieces, DOWN, buff=0.15)
        return VGroup(pieces, share.next_to(pieces, UP, buff=0.1), word)

    def shrink_the_followed_word(self):
        """A bar per step from the followed word to the last: its share of the state shrinking (a long
        sentence's middle steps pass as one "⋯")."""
        influence, followed = self.trace["rnn"]["influence"], self.followed()
        slots = drawn_slots(len(influence) - followed, [], BARS)
        words = [self.trace["tokens"][followed + slot] for slot in slots if isinstance(slot, int)]
        word_size = size_to_fit(words, 18, 0.9 * BAR["step"])
        self.bars, self.skipped = VGroup(), VGroup()
        start, end = f"{influence[followed][followed]:.2f}", f"{influence[-1][followed]:.2f}"
        line = "ch03.shares" if float(end) < float(start) else "ch03.shares_kept"
        with self.narration(line, word=self.trace["tokens"][followed], start=start, end=end):
            for column, slot in enumerate(slots):
                if isinstance(slot, range):
                    dots = label("⋯", 40, "muted").move_to([bar_x(column), BAR["bottom"] + 0.4, 0])
                    self.skipped.add(dots)
                    self.play(FadeIn(dots), run_time=0.5)
                    continue
                t = followed + slot
                if t > 1:
                    self.step_to(t)
                self.bars.add(self.share_bar(t, column, word_size))
                self.play(FadeIn(self.bars[-1], shift=0.2 * UP), run_time=0.8)

    def plot(self) -> Plot:
        return Plot(CHART, x_max=self.trace["accuracy_by_distance"][-1]["distance"])

    def curve(self, model: str, role: str) -> VGroup:
        last = self.trace["accuracy_by_distance"][-1]
        end = self.shown(f"{model} at {last['distance']}", last[model], 2, 18, role)
        return accuracy_curve(self.plot(), self.trace["accuracy_by_distance"], model, role, end)

    def axes(self) -> VGroup:
        last = self.trace["accuracy_by_distance"][-1]["distance"]
        return self.plot().axes(range(0, last + 1, 2), (0.0, 0.5, 1.0), self.say("distance"), self.say("accuracy"))

    def compare_accuracy(self):
        rows = self.trace["accuracy_by_distance"]
        if not rows:
            return  # a corpus without the story has no such measurement
        self.play(*(FadeOut(m) for m in self.mobjects if m is not self.title))
        rnn, transformer = self.curve("rnn", "key"), self.curve("transformer", "query")
        self.numbers_on_screen["rnn at 0"] = rows[0]["rnn"]
        # Whether the RNN's accuracy really falls with distance decides which line is true: an RNN
        # trained on a user's corpus may be as good far as near, or never learn the object at all.
        line = "ch03.accuracy" if rnn_falls(rows) else "ch03.accuracy_flat"
        with self.narration(line, near=f"{rows[0]['rnn']:.2f}", far=f"{rows[-1]['rnn']:.2f}",
                            flat=f"{rows[-1]['transformer']:.2f}"):
            self.play(FadeIn(self.axes()))
            self.play(Create(transformer[0]), FadeIn(transformer[1:]), Create(rnn[0]), FadeIn(rnn[1:]), run_time=2.5)
        with self.narration("ch03.next"):
            self.play(emphasise(rnn[2]), emphasise(transformer[2]))

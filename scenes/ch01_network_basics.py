"""Chapter 1 — network basics (seed 1.1): text → numbers → nodes, layer by layer → numbers → text."""

from __future__ import annotations

from manim import DOWN, LEFT, RIGHT, UP, Arrow, FadeIn, SurroundingRectangle, VGroup, Write

from scenes.base import LEFT_MARGIN, ExplainerScene
from scenes.mobjects import Connections, NodeLayer, emphasise, fitted, label, prediction_rows
from scenes.theme import role_colour

TOP = 5  # predictions drawn as bars
WORD_ROOM = (LEFT_MARGIN, -3.7)  # x from the title's left edge to an arrow's length before the input layer's values
ARROW_ROOM = 0.7  # word → id → input layer: two arrows of the same length
FRAME_BUFF = 0.1  # between the winning prediction's row and the frame around it
INPUTS_AT = [-2.5, -0.2, 0]


class NetworkBasics(ExplainerScene):
    title_key = "ch01.title"
    narration_lines = 8  # with the question and the recap
    word_index: int | None = None  # whose pass through the network; None: the word before the last

    def construct(self):
        self.show_word_as_number()
        self.look_up_inputs()
        self.flow_to_hidden()
        self.show_output()
        self.back_to_text()

    @property
    def index(self) -> int:
        return len(self.trace["tokens"]) - 2 if self.word_index is None else self.word_index

    def data(self, name: str):
        return self.trace["attention"][name][self.index]

    def show_word_as_number(self):
        self.show_title()
        word = self.trace["tokens"][self.index]
        token_id = self.trace["attention"]["token_ids"][self.index]
        self.id_box = VGroup(self.shown("token id", token_id, 0, 28, "input"),
                             self.word("vocabulary_id", 14, "muted")).arrange(DOWN, buff=0.12)
        left, right = WORD_ROOM
        self.token = fitted(label(word, 40), right - left - ARROW_ROOM - self.id_box.width)
        VGroup(self.token, self.id_box).arrange(RIGHT, buff=ARROW_ROOM).move_to([right, 0, 0], aligned_edge=RIGHT)
        with self.narration("ch01.core"):
            self.play(FadeIn(self.token, shift=0.3 * RIGHT))
        with self.narration("ch01.id", word=word, id=token_id):
            self.play(FadeIn(Arrow(self.token.get_right(), self.id_box.get_left(), buff=0.1,
                                   color=role_colour("text"))), FadeIn(self.id_box))

    def look_up_inputs(self):
        self.inputs = NodeLayer(self.data("inputs"), "input", radius=0.17, spacing=0.6, direction=DOWN,
                                show_values=True, value_size=13, value_side=LEFT).move_to(INPUTS_AT)
        for i, value in enumerate(self.inputs.values):
            self.numbers_on_screen[f"input {i}"] = value
        title = self.word("input", 18, "input").next_to(self.inputs, UP, buff=0.2)
        with self.narration("ch01.embed"):
            towards = [self.inputs.get_left()[0], self.id_box.get_y(), 0]
            self.play(FadeIn(Arrow(self.id_box.get_right(), towards, buff=0.1, color=role_colour("text"))),
                      self.inputs.create(), FadeIn(title))

    def flow_to_hidden(self):
        self.hidden = NodeLayer(self.data("hidden"), "output", radius=0.12, spacing=0.38, direction=DOWN)
        self.hidden.move_to([0.4, -0.2, 0])
        edges = Connections(self.inputs, self.hidden, max_width=0.6, opacity=0.25)
        title = self.word("hidden", 18, "output").next_to(self.hidden, UP, buff=0.15)
        with self.narration("ch01.flow"):
            self.play(FadeIn(edges), FadeIn(self.hidden), FadeIn(title))
            self.play(edges.flow("output"), run_time=1.8)

    def show_output(self):
        top = self.data("predictions")[:TOP]
        numbers = [self.shown(f"p {rank}", p, 3) for rank, (_, p) in enumerate(top)]
        self.bars = prediction_rows(top, numbers, [3.2, 1.6, 0], bar_length=2.4, spacing=0.75,
                                   words_right_of=self.hidden.get_right()[0] + ARROW_ROOM)
        title = self.word("output", 16, "output").next_to(self.bars, UP, buff=0.3).align_to(self.bars, LEFT)
        edges = VGroup(*(Arrow(self.hidden.get_right(), row[0].get_left(), buff=0.25, stroke_width=2,
                               color=role_colour("muted"), max_tip_length_to_length_ratio=0.05)
                         for row in self.bars))
        listing = "、".join(f"{w} {p:.2f}" for w, p in top[:3]) if self.lang == "zh" else \
            ", ".join(f"{w} {p:.2f}" for w, p in top[:3])
        with self.narration("ch01.output", top=listing):
            self.play(FadeIn(edges), FadeIn(title), FadeIn(self.bars, lag_ratio=0.2), run_time=2)

    def back_to_text(self):
        winner = self.bars[0]
        word = self.data("predictions")[0][0]
        frame = SurroundingRectangle(winner, color=role_colour("highlight"), buff=FRAME_BUFF)
        grow = min(1.4, 1 + 2 * FRAME_BUFF / winner[0].width)  # a long word stays inside the frame
        with self.narration("ch01.text", word=word):
            self.play(Write(frame))
            self.play(emphasise(winner[0], scale_factor=grow, role="highlight"))

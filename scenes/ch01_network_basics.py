"""Chapter 1 — network basics (seed 1.1): text → numbers → nodes, layer by layer → numbers → text.

The whole network stands from the first step, its nodes empty; then the word becomes its
vocabulary id, the id its input vector, the vector's numbers drop into the input nodes, travel
along the edges into the hidden layer and on to the output layer, whose top probabilities stand as
bars; the most probable word comes out as text, boxed as the input word was.
"""

from __future__ import annotations

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    AnimationGroup,
    Arrow,
    Create,
    Dot,
    FadeIn,
    FadeOut,
    GrowFromEdge,
    LaggedStart,
    Line,
    MoveAlongPath,
    SurroundingRectangle,
    VGroup,
)

from scenes.base import LEFT_MARGIN, RIGHT_MARGIN, ExplainerScene
from scenes.mobjects import NodeLayer, VectorColumn, label, prediction_rows, tag
from scenes.mobjects.nodes import WORD_BUFF
from scenes.mobjects.vectors import ELLIPSIS
from scenes.theme import EDGE_WIDTH, HEADING, LABEL, SMALL, role_colour, value_colour, value_text_colour

TOP = 5  # predictions drawn as output nodes and bars
ROW_TOP = 2.55  # the word's box and its id stand on this line, under the title's band
WORD_BOX_BUFF = 0.2
WORD_WIDTH = 2.6  # most a word may take in its box before it shrinks
ARROW_ROOM = 0.7  # word → id
WORDS_WIDTH = 1.3  # most the output's words may take before they shrink (not below SMALL)
INPUT_PITCH = 0.6  # between the input vector's rows, and so between the input nodes
INPUT_NODE_RADIUS = 0.2
HIDDEN = {"x": 0.45, "top": 2.3, "pitch": 0.35, "radius": 0.13}
OUTPUT = {"x": 2.75, "top": 1.3, "pitch": 0.75, "radius": 0.2}
FRAME_BUFF = 0.1  # between the winning prediction's row and the frame around it
DOT_RADIUS = 0.05  # a number travelling along an edge
# 208 edges at the full edge width would merge into a block: thinner, the many into the hidden layer fainter
NETWORK_EDGE_WIDTH = 0.6 * EDGE_WIDTH
INPUT_EDGE_OPACITY, OUTPUT_EDGE_OPACITY = 0.35, 0.3


def rim_to_rim(start, end, start_radius: float, end_radius: float, opacity: float) -> Line:
    """An edge from one node's rim to another's, where a number leaves one and enters the other."""
    direction = Line(start, end).get_unit_vector()
    return Line(start + direction * start_radius, end - direction * end_radius).set_stroke(
        role_colour("muted"), NETWORK_EDGE_WIDTH, opacity
    )


class NetworkBasics(ExplainerScene):
    title_key = "ch01.title"
    narration_lines = 9  # with the question and the recap
    word_index: int | None = None  # whose pass through the network; None: the word before the last

    def construct(self):
        self.show_word_as_number()
        self.look_up_inputs()
        self.fill_input_nodes()
        self.flow_to_hidden()
        self.show_output()
        self.back_to_text()

    @property
    def index(self) -> int:
        return len(self.trace["tokens"]) - 2 if self.word_index is None else self.word_index

    def data(self, name: str):
        return self.trace["attention"][name][self.index]

    # the picture, built before anything moves: the network stands from the first step

    def build_word_and_id(self):
        word = self.trace["tokens"][self.index]
        token_id = self.trace["attention"]["token_ids"][self.index]
        # a long word shrinks to the box's room, but never below the smallest size
        self.token = label(word, max(SMALL, min(HEADING, HEADING * WORD_WIDTH / label(word, HEADING).width)))
        self.word_box = SurroundingRectangle(
            self.token, color=role_colour("input"), buff=WORD_BOX_BUFF, corner_radius=0.15
        )
        VGroup(self.word_box, self.token).move_to([LEFT_MARGIN, ROW_TOP, 0], aligned_edge=LEFT)
        self.word_tag = tag(self.word_box, self.say("ch01.word_in"), "input", DOWN, SMALL, buff=0.15)
        self.word_tag.align_to(self.word_box, LEFT)  # wider than a short word's box: not past the margin
        self.id_number = self.shown("token id", token_id, 0, HEADING, "input")
        self.id_number.next_to(self.word_box, RIGHT, buff=ARROW_ROOM)
        self.id_tag = tag(self.id_number, self.say("vocabulary_id"), "muted", RIGHT, SMALL, buff=0.2)
        self.id_box = VGroup(self.id_number, self.id_tag)

    def build_input_layer(self):
        values = self.data("inputs")
        entries = [self.shown(f"input {i}", v, 2, SMALL) for i, v in enumerate(values)]
        self.vector = VectorColumn(values, "input", entries=entries, row_gap=INPUT_PITCH - entries[0].height)
        # it hangs under the id it was looked up with, right of the word's tag
        self.vector.move_to([self.id_number.get_x(), self.id_number.get_bottom()[1] - 0.35, 0], aligned_edge=UP)
        self.vector.set_x(max(self.vector.get_x(), self.word_tag.get_right()[0] + 0.35 + self.vector.width / 2))
        self.inputs = NodeLayer(values, "input", radius=INPUT_NODE_RADIUS, spacing=INPUT_PITCH)
        self.inputs.next_to(self.vector, RIGHT, buff=0.45).set_y(self.vector.get_y())
        self.input_tag = tag(self.vector, self.say("ch01.input_layer"), "input", LEFT, LABEL)
        self.input_tag.set_x(max(self.input_tag.get_x(), LEFT_MARGIN + self.input_tag.width / 2))

    def build_hidden_layer(self):
        values = self.data("hidden")
        self.hidden = NodeLayer(values, "value", radius=HIDDEN["radius"], spacing=HIDDEN["pitch"])
        self.hidden.move_to([HIDDEN["x"], HIDDEN["top"], 0], aligned_edge=UP)
        self.hidden_values = VGroup(
            *(
                self.shown(f"hidden {i}", v, 2, SMALL).next_to(node, RIGHT, buff=0.1)
                for i, (node, v) in enumerate(zip(self.hidden.nodes, values))
            )
        )
        for text, v in zip(self.hidden_values, values):
            text.set_color(value_text_colour(v))
        self.hidden_tag = tag(self.hidden, self.say("ch01.hidden_layer"), "value", UP, LABEL, buff=0.15)
        self.input_edges = VGroup(
            *(
                rim_to_rim(a.get_center(), b.get_center(), a.width / 2, b.width / 2, INPUT_EDGE_OPACITY)
                for a in self.inputs.nodes
                for b in self.hidden.nodes
            )
        )

    def build_output_layer(self):
        top = self.data("predictions")[:TOP]
        self.outputs = NodeLayer([p for _, p in top], "output", radius=OUTPUT["radius"], spacing=OUTPUT["pitch"])
        self.outputs.move_to([OUTPUT["x"], OUTPUT["top"], 0], aligned_edge=UP)
        self.more = label(ELLIPSIS, SMALL, "muted").next_to(self.outputs, DOWN, buff=0.15)
        numbers = [self.shown(f"p {rank}", p, 3, SMALL) for rank, (_, p) in enumerate(top)]
        words_left = self.outputs.get_right()[0] + 0.2
        widest = max(label(w, LABEL).width for w, _ in top)
        bar_start = words_left + WORD_BUFF + widest * max(SMALL / LABEL, min(1.0, WORDS_WIDTH / widest))
        # room for the number after the bar, and for the frame round the winner's row inside the margin
        bar_length = max(0.6, RIGHT_MARGIN - bar_start - 0.15 - max(n.width for n in numbers) - 2 * FRAME_BUFF)
        self.bars = prediction_rows(
            top,
            numbers,
            [bar_start, OUTPUT["top"] - OUTPUT["radius"], 0],
            bar_length=bar_length,
            spacing=OUTPUT["pitch"],
            words_right_of=words_left,
        )
        for row, node in zip(self.bars, self.outputs.nodes):
            row.set_y(node.get_y())
        # under the layer: above it stands the predicted word, which comes out of it
        self.output_tag = tag(
            VGroup(self.outputs, self.more), self.say("ch01.output_layer"), "output", DOWN, LABEL, buff=0.15
        )
        # a hidden node's edges leave from its number, which is what flows on
        self.output_edges = VGroup(
            *(
                rim_to_rim(
                    np.array([text.get_right()[0] + 0.08, text.get_y(), 0]),
                    node.get_center(),
                    0,
                    node.width / 2,
                    OUTPUT_EDGE_OPACITY,
                )
                for text in self.hidden_values
                for node in self.outputs.nodes
            )
        )

    @staticmethod
    def empty(layer: NodeLayer) -> NodeLayer:
        layer.nodes.set_fill(role_colour("neutral"))
        return layer

    @staticmethod
    def filled(layer: NodeLayer) -> AnimationGroup:
        return AnimationGroup(*(node.animate.set_fill(value_colour(v)) for node, v in zip(layer.nodes, layer.values)))

    # the steps

    def show_word_as_number(self):
        self.show_title()
        self.build_word_and_id()
        self.build_input_layer()
        self.build_hidden_layer()
        self.build_output_layer()
        network = VGroup(
            self.input_edges,
            self.output_edges,
            self.empty(self.inputs),
            self.empty(self.hidden),
            self.empty(self.outputs),
            self.more,
        )
        with self.narration("ch01.core"):
            self.play(FadeIn(VGroup(self.word_box, self.token), shift=0.3 * RIGHT), FadeIn(self.word_tag))
            self.play(
                FadeIn(network), FadeIn(self.input_tag), FadeIn(self.hidden_tag), FadeIn(self.output_tag), run_time=1.5
            )
        word, token_id = self.token.text, self.numbers_on_screen["token id"]
        self.to_id = Arrow(self.word_box.get_right(), self.id_number.get_left(), buff=0.1, color=role_colour("text"))
        with self.narration("ch01.id", word=word, id=token_id):
            # the word itself turns into its number: a copy slides along the arrow and becomes the id
            self.play(
                Create(self.to_id),
                FadeOut(self.token.copy(), target_position=self.id_number),
                FadeIn(self.id_number, target_position=self.token),
                run_time=1.2,
            )
            self.play(FadeIn(self.id_tag, shift=0.2 * LEFT))

    def look_up_inputs(self):
        with self.narration("ch01.embed"):
            # the id looks its row up: the numbers come out of it and hang in a column under it
            self.play(
                FadeIn(self.vector.brackets),
                LaggedStart(
                    *(FadeIn(entry, target_position=self.id_number, scale=0.5) for entry in self.vector.rows),
                    lag_ratio=0.12,
                ),
                run_time=2,
            )

    def fill_input_nodes(self):
        with self.narration("ch01.nodes"):
            # each number slides into its node, which takes on the number's colour
            self.play(
                *(
                    FadeOut(entry.copy(), target_position=node, scale=0.4)
                    for entry, node in zip(self.vector.rows, self.inputs.nodes)
                ),
                self.filled(self.inputs),
                run_time=1.5,
            )

    def travelling(self, edges: VGroup, colours: list) -> tuple[VGroup, AnimationGroup]:
        """A dot per edge, in the colour of the number it carries, running from its source to its target."""
        targets = len(edges) // len(colours)
        dots = VGroup(
            *(Dot(edge.get_start(), radius=DOT_RADIUS, color=colours[i // targets]) for i, edge in enumerate(edges))
        )
        return dots, AnimationGroup(*(MoveAlongPath(dot, edge) for dot, edge in zip(dots, edges)), run_time=1.6)

    def flow_to_hidden(self):
        dots, run = self.travelling(self.input_edges, [value_colour(v) for v in self.inputs.values])
        with self.narration("ch01.flow"):
            self.add(dots)
            self.play(run)
            self.remove(*dots)
            self.play(
                self.filled(self.hidden),
                LaggedStart(
                    *(
                        FadeIn(text, target_position=node, scale=0.5)
                        for text, node in zip(self.hidden_values, self.hidden.nodes)
                    ),
                    lag_ratio=0.05,
                ),
                run_time=1.5,
            )

    def show_output(self):
        top = self.data("predictions")[:TOP]
        listing = ("、" if self.lang == "zh" else ", ").join(f"{w} {p:.2f}" for w, p in top[:3])
        dots, run = self.travelling(self.output_edges, [value_colour(v) for v in self.hidden.values])
        with self.narration("ch01.output", top=listing):
            self.add(dots)
            self.play(run)
            self.remove(*dots)
            self.play(
                self.filled(self.outputs),
                *(FadeIn(row[0], shift=0.2 * RIGHT) for row in self.bars),
                *(GrowFromEdge(row[1], LEFT) for row in self.bars),
                *(FadeIn(row[2], target_position=row[1].get_left()) for row in self.bars),
                run_time=1.8,
            )

    def back_to_text(self):
        winner = self.bars[0]
        word = self.data("predictions")[0][0]
        frame = SurroundingRectangle(winner, color=role_colour("highlight"), buff=FRAME_BUFF)
        out = label(word, self.token.font_size)
        self.prediction_box = SurroundingRectangle(
            out, color=role_colour("output"), buff=WORD_BOX_BUFF, corner_radius=0.15
        )
        VGroup(self.prediction_box, out).move_to([RIGHT_MARGIN, ROW_TOP, 0], aligned_edge=RIGHT)
        self.prediction = out
        self.prediction_tag = tag(self.prediction_box, self.say("ch01.word_out"), "output", DOWN, SMALL, buff=0.12)
        self.prediction_tag.align_to(self.prediction_box, RIGHT)
        with self.narration("ch01.text", word=word):
            self.play(Create(frame))
            # the winning word leaves its row and comes out of the network as text, boxed as the input was
            self.play(
                FadeIn(out, target_position=winner[0]),
                Create(self.prediction_box),
                FadeIn(self.prediction_tag),
                run_time=1.5,
            )

"""The unrolled RNN as the seed draws it: one copy of a small network per word — the word at the
bottom, its input nodes, the hidden layer, the next-word prediction on top — the hidden layer handed
to the next copy; and the state's make-up, a bar split into each word's share.

Example::

    rnn = trace["rnn"]  # each step's numbers are the Trace's

    def step(t):
        predicted, probability = rnn["predictions"][t][0]
        return RNNStep(trace["tokens"][t], rnn["inputs"][t], rnn["hidden"][t], predicted, number(probability),
                       width=2.0)

    first, second = step(0), step(1).shift(3 * RIGHT)
    self.play(first.read_word(), first.update_state(None), first.predict())
    self.play(second.read_word(), second.update_state(first), second.predict())
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from manim import (
    DOWN,
    UP,
    AnimationGroup,
    Arrow,
    FadeIn,
    GrowArrow,
    GrowFromEdge,
    Rectangle,
    ShowPassingFlash,
    Text,
    TransformFromCopy,
    VGroup,
)

from scenes.mobjects.nodes import NodeLayer, label
from scenes.theme import EDGE_WIDTH, LABEL, role_colour

# Heights in a step, from its hidden layer's centre (y = 0) down to its word and up to its prediction.
HIDDEN_HEIGHT = 2.5  # the hidden layer's nodes fit this tall
INPUT_Y, INPUT_HEIGHT = -2.0, 0.42
WORD_Y = -2.7
PREDICTION_Y, PROBABILITY_GAP = 1.9, 0.08
LARGEST_SPACING = 0.4  # between node centres: a step with room to spare does not grow huge nodes
NODE_SHARE = 0.36  # a node's radius, as a share of the spacing


def node_grid(count: int, width: float, height: float) -> tuple[int, float]:
    """How many nodes per row, and how far apart, lay ``count`` nodes out largest in width × height."""

    def spacing(per_row: int) -> float:
        return min(width / per_row, height / math.ceil(count / per_row), LARGEST_SPACING)

    largest = max(range(1, count + 1), key=spacing)
    return largest, spacing(largest)


def nodes_in(values: Sequence[float], role: str, width: float, height: float) -> NodeLayer:
    per_row, spacing = node_grid(len(values), width, height)
    return NodeLayer(values, role, radius=NODE_SHARE * spacing, spacing=spacing, direction=[1, 0, 0], per_line=per_row)


class RNNStep(VGroup):
    """One copy of the RNN's network, for one word: ``word`` at the bottom, its ``inputs`` (the word's
    input nodes), the ``hidden`` layer (the state after this word), and on top the network's
    ``predicted`` next word with its ``probability`` (a text made by the caller, which records it).
    Every group fits ``width``; the word and the prediction are written at ``word_size``.

    Accessors: ``word``, ``input_nodes``, ``hidden_nodes``, ``prediction`` (word and probability),
    ``into_state`` (the arrow from the input into the hidden layer), ``out_of_state`` (from the hidden
    layer up to the prediction).
    """

    def __init__(
        self,
        word: str,
        inputs: Sequence[float],
        hidden: Sequence[float],
        predicted: str,
        probability: Text,
        width: float,
        word_size: float = LABEL,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.word = label(word, word_size, "input").move_to([0, WORD_Y, 0])
        self.input_nodes = nodes_in(inputs, "input", width, INPUT_HEIGHT).move_to([0, INPUT_Y, 0])
        self.hidden_nodes = nodes_in(hidden, "value", width, HIDDEN_HEIGHT).move_to([0, 0, 0])
        word_out = label(predicted, word_size, "output")
        self.prediction = VGroup(word_out, probability.next_to(word_out, UP, buff=PROBABILITY_GAP))
        self.prediction.move_to([0, PREDICTION_Y, 0], aligned_edge=DOWN)
        self.into_state = self.arrow(self.input_nodes, self.hidden_nodes, "input")
        self.out_of_state = self.arrow(self.hidden_nodes, self.prediction, "output")
        self.add(self.word, self.input_nodes, self.into_state, self.hidden_nodes, self.out_of_state, self.prediction)

    @staticmethod
    def arrow(below, above, role: str) -> Arrow:
        return Arrow(
            below.get_top(),
            above.get_bottom(),
            buff=0.08,
            stroke_width=EDGE_WIDTH + 1,
            max_tip_length_to_length_ratio=0.3,
            color=role_colour(role),
        )

    def empty_state(self) -> VGroup:
        """The hidden layer before this copy has run: its nodes' outlines, empty."""
        return self.hidden_nodes.copy().set_fill(opacity=0).set_stroke(opacity=0.6)

    def read_word(self) -> AnimationGroup:
        """The word becomes its input nodes, just above it."""
        return AnimationGroup(self.input_nodes.create(), run_time=0.8)

    def update_state(self, previous: RNNStep | None) -> AnimationGroup:
        """The input goes up into the hidden layer; with a ``previous`` step, that step's hidden nodes
        travel along to this one's and take the new values there: the state handed on."""
        arrive = (
            TransformFromCopy(previous.hidden_nodes, self.hidden_nodes)
            if previous is not None
            else self.hidden_nodes.create()
        )
        flash = ShowPassingFlash(self.into_state.copy().set_stroke(role_colour("emphasis"), width=4), time_width=0.5)
        return AnimationGroup(GrowArrow(self.into_state), flash, arrive, run_time=1.2)

    def predict(self) -> AnimationGroup:
        """From the hidden layer, up to the output: the next word the network predicts."""
        return AnimationGroup(
            GrowArrow(self.out_of_state), FadeIn(self.prediction, shift=0.3 * UP), lag_ratio=0.4, run_time=1.0
        )


class ShareBar(VGroup):
    """The state after a step as a bar ``height`` tall split into the ``shares`` of the words read so
    far (first word at the bottom); the ``followed`` word's piece stands out in the highlight colour.
    ``piece(i)`` is word i's piece."""

    def __init__(self, shares: Sequence[float], followed: int, height: float, width: float = 0.32, **kwargs):
        super().__init__(**kwargs)
        self.shares, self.followed = [float(s) for s in shares], followed
        bottom = -height / 2
        for i, share in enumerate(self.shares):
            size = max(share * height, 1e-3)
            picked = i == followed
            piece = Rectangle(
                width=width,
                height=size,
                stroke_width=1,
                stroke_color=role_colour("background"),
                fill_color=role_colour("highlight" if picked else "muted"),
                fill_opacity=0.95 if picked else 0.3 + 0.15 * (i % 3),
            )
            self.add(piece.move_to([0, bottom + size / 2, 0]))
            bottom += size

    def piece(self, i: int) -> Rectangle:
        return self.submobjects[i]

    def grow_from(self, before: ShareBar | None) -> AnimationGroup:
        """The earlier words' pieces come over from the bar ``before`` and shrink to their new shares;
        the new word's piece grows on top."""
        if before is None:
            return AnimationGroup(*(GrowFromEdge(piece, DOWN) for piece in self.submobjects))
        kept = len(before.submobjects)
        return AnimationGroup(
            *(TransformFromCopy(before.piece(i), self.piece(i)) for i in range(kept)),
            *(GrowFromEdge(self.piece(i), DOWN) for i in range(kept, len(self.submobjects))),
        )

"""Data-first node-graph mobjects: layers of nodes that show real values, the connections between
them, and a row of words. Each takes its data first and returns animations for the scene to play.

Example::

    layer = NodeLayer([0.3, -1.2, 0.8], role="query", direction=DOWN)
    keys = NodeLayer([0.1, 0.5, -0.4], role="key", direction=DOWN).next_to(layer, RIGHT, buff=2)
    edges = Connections(layer, keys)
    self.play(layer.create(), keys.create())
    self.play(edges.flow())
"""

from __future__ import annotations

from collections.abc import Sequence
from xml.sax.saxutils import escape

import numpy as np
from manim import (
    DOWN,
    LEFT,
    PI,
    RIGHT,
    UP,
    AnimationGroup,
    Circle,
    Create,
    FadeIn,
    Indicate,
    LaggedStart,
    Line,
    MarkupText,
    Mobject,
    Rectangle,
    ShowPassingFlash,
    Text,
    VGroup,
    VMobject,
)

from scenes.theme import (
    EDGE_OPACITY,
    EDGE_WIDTH,
    HEADING,
    LABEL,
    OUTLINE_WIDTH,
    SMALL,
    font_for,
    role_colour,
    value_colour,
)

NOTATION = {"d_k": "d<sub>k</sub>", "K^T": "K<sup>T</sup>"}  # written plainly in strings, typeset on screen


def label(text: str, size: float = LABEL, role: str = "text") -> Text | MarkupText:
    """Text in the theme's font, checked for missing glyphs, in the colour of a role; the notation
    d_k and K^T is typeset with a subscript k and a superscript T, and a √ covers its root.

    A label written before in this process (a chapter's, or a test run's) is copied from Manim's SVG
    cache, not parsed again (Manim caches formulas and markup by default, not Text): 28-43 % of the
    labels chapters 4, 6 and 8 write are repeats. The cache keeps one copy of every label written."""
    font, colour = font_for(text), role_colour(role)
    if not any(plain in text for plain in NOTATION):
        written = Text(text, font=font, font_size=size, color=colour, use_svg_cache=True)
        return over_roots(without_id_groups(written), text)
    markup = escape(text)
    for plain, typeset in NOTATION.items():
        markup = markup.replace(plain, typeset)
    return over_roots(without_id_groups(MarkupText(markup, font=font, font_size=size, color=colour)), text)


def without_id_groups(written: Text) -> Text:
    """``written`` without the groups of its glyphs by SVG id that Manim keeps on every SVG shape: only
    Manim's formulas (MathTex) read them, and each copy of a label (every animation's start copies what
    it moves) copied them too: a four-character label's copy took 0.95 ms with them, 0.15 ms without."""
    written.id_to_vgroup_dict = {}
    return written


def over_roots(written: Text, text: str) -> Text:
    """Extend each √'s bar over the letters and digits after it (√d_k, √6): the font's √ stops short.
    The bar becomes part of the √ glyph, so the label keeps one glyph per character it draws."""
    drawn = drawn_characters(text)
    glyph_at, glyphs = [], 0  # the glyph of each drawn character; spaces have none
    for character in drawn:
        glyph_at.append(glyphs)
        glyphs += not character.isspace()
    for position, character in enumerate(drawn):
        if character != "√":
            continue
        end = position + 1
        while end < len(drawn) and drawn[end].isalnum():
            end += 1
        if end > position + 1:
            lengthen_bar(written[glyph_at[position]], written[glyph_at[end - 1]].get_right()[0])
    return written


def lengthen_bar(root: VMobject, right: float) -> None:
    """Join to the end of the √ glyph's bar a filled strip as thick as it, reaching past ``right`` by
    that thickness. It starts exactly where the bar ends: an overlap would cut a notch in the fill."""
    top, end = root.get_top()[1], root.get_right()[0]
    thickness = top - root.points[root.points[:, 0] > end - root.width / 50][:, 1].min()
    corners = [
        np.array([x, y, 0.0])
        for x, y in (
            (end, top),
            (right + thickness, top),
            (right + thickness, top - thickness),
            (end, top - thickness),
            (end, top),
        )
    ]
    root.start_new_path(corners[0])
    for corner in corners[1:]:
        root.add_line_to(corner)


def drawn_characters(text: str) -> str:
    """The characters a label of ``text`` draws, one glyph each (spaces aside): its notation's
    markers (the _ of d_k, the ^ of K^T) draw nothing."""
    for plain in NOTATION:
        text = text.replace(plain, plain.replace("_", "").replace("^", ""))
    return text


def emphasise(mobject: Mobject, role: str = "emphasis", **kwargs) -> Indicate:
    """A brief "look here": ``mobject`` grows a little and flashes in a colour of the theme (Manim's
    own pure yellow would vanish on the light background)."""
    return Indicate(mobject, color=role_colour(role), **kwargs)


def number(value: float, digits: int = 2, size: float = SMALL, role: str = "text", grouped: bool = False) -> Text:
    """A number as text; ``grouped`` separates thousands (1,073,741,824)."""
    return label(f"{value:{',' if grouped else ''}.{digits}f}", size=size, role=role)


class NodeLayer(VGroup):
    """A row or column of nodes, each filled with the colour of its real value.

    ``role`` (input, query, key, value, output) colours the outline; ``show_values`` writes each
    value beside its node; with ``per_line``, more nodes than that wrap into further columns (or rows).
    """

    def __init__(
        self,
        values: Sequence[float],
        role: str,
        radius: float = 0.16,
        spacing: float = 0.45,
        direction=DOWN,
        show_values: bool = False,
        digits: int = 2,
        value_size: float = SMALL,
        value_side=None,
        per_line: int | None = None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.values = [float(v) for v in values]
        self.role = role
        self.direction = direction
        self.nodes = VGroup(*(self._node(v, radius) for v in self.values))
        if per_line and len(self.values) > per_line:
            lines = -(-len(self.values) // per_line)
            grid = (
                dict(rows=per_line, cols=lines, flow_order="dr")
                if abs(direction[1]) > 0
                else dict(rows=lines, cols=per_line, flow_order="rd")
            )
            self.nodes.arrange_in_grid(**grid, buff=spacing - 2 * radius)
        else:
            self.nodes.arrange(direction, buff=spacing - 2 * radius)
        self.add(self.nodes)
        self.value_labels = VGroup()
        if show_values:
            side = value_side if value_side is not None else (RIGHT if abs(direction[1]) > 0 else DOWN)
            for node, value in zip(self.nodes, self.values):
                self.value_labels.add(number(value, digits, value_size).next_to(node, side, buff=0.08))
            self.add(self.value_labels)

    def _node(self, value: float, radius: float) -> Circle:
        return Circle(
            radius=radius,
            stroke_color=role_colour(self.role),
            stroke_width=OUTLINE_WIDTH,
            fill_color=value_colour(value),
            fill_opacity=1,
        )

    def node(self, i: int) -> Circle:
        return self.nodes[i]

    def value_label(self, i: int) -> Text:
        return self.value_labels[i]

    def __len__(self) -> int:
        return len(self.values)

    def create(self) -> AnimationGroup:
        return AnimationGroup(
            LaggedStart(*(FadeIn(n, scale=0.5) for n in self.nodes), lag_ratio=0.08), FadeIn(self.value_labels)
        )


FLOW_EDGES_AT_FULL = 24  # up to this many edges flow at full opacity; more share it out
FLOW_FAINTEST = 0.3


class Connections(VGroup):
    """Every edge from one layer's nodes to another's; widths may follow real weights."""

    def __init__(
        self,
        source: NodeLayer,
        target: NodeLayer,
        weights: np.ndarray | None = None,
        role: str = "muted",
        max_width: float = EDGE_WIDTH,
        opacity: float = EDGE_OPACITY,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.source, self.target = source, target
        sizes = np.ones((len(source), len(target))) if weights is None else np.abs(np.asarray(weights))
        scale = sizes.max() or 1.0
        self.edges = {}
        for i, a in enumerate(source.nodes):
            for j, b in enumerate(target.nodes):
                strength = sizes[i, j] / scale
                edge = Line(
                    a.get_center(),
                    b.get_center(),
                    buff=a.width / 2,
                    stroke_width=max(1.0, max_width * strength),
                    stroke_color=role_colour(role),
                    stroke_opacity=opacity * (0.3 + 0.7 * strength),
                )
                self.edges[i, j] = edge
                self.add(edge)

    def edge(self, i: int, j: int) -> Line:
        return self.edges[i, j]

    def create(self, run_time: float = 1.0) -> Create:
        return Create(self, lag_ratio=0.002, run_time=run_time)

    def flow(self, role: str | None = None, run_time: float = 1.2) -> AnimationGroup:
        """Values flowing along every edge, as flashes moving from source to target. The more edges,
        the fainter each flash, so that a hundred of them in flight stay lines, not a solid block."""
        colour = role_colour(role or self.target.role)
        opacity = min(1.0, max(FLOW_FAINTEST, FLOW_EDGES_AT_FULL / len(self.edges)))
        flashes = [
            ShowPassingFlash(e.copy().set_stroke(colour, width=2, opacity=opacity), time_width=0.4)
            for e in self.edges.values()
        ]
        return AnimationGroup(*flashes, run_time=run_time)


class TokenRow(VGroup):
    """The words of a sentence in a row, Chinese or English."""

    def __init__(self, tokens: Sequence[str], size: float = HEADING, spacing: float = 0.5, **kwargs):
        super().__init__(**kwargs)
        self.tokens = list(tokens)
        self.words = VGroup(*(label(t, size) for t in self.tokens)).arrange(RIGHT, buff=spacing)
        self.add(self.words)

    def token(self, word: str) -> Text:
        return self.words[self.tokens.index(word)]

    def token_at(self, i: int) -> Text:
        return self.words[i]


def bar(value: float, height: float, width: float = 0.3, role: str = "highlight"):
    """A bar standing on its bottom edge, ``value`` (0..1) of ``height`` tall."""
    return Rectangle(
        width=width, height=max(1e-3, value * height), stroke_width=0, fill_color=role_colour(role), fill_opacity=0.85
    )


WORD_BUFF = 0.2  # between a prediction's word and its bar


def prediction_rows(
    top: Sequence[tuple[str, float]],
    numbers: Sequence[Text],
    top_left,
    bar_length: float = 2.0,
    spacing: float = 0.7,
    words_right_of: float = -np.inf,
) -> VGroup:
    """The top predictions, a row each: the word, a bar as long as its probability (bars start at
    ``top_left``), then the probability's text (``numbers``, made by the caller, which records it).
    The words share one size, at most LABEL, at which the widest stays right of x = ``words_right_of``."""
    words = [label(word, LABEL) for word, _ in top]
    room = top_left[0] - WORD_BUFF - words_right_of
    widest = max(word.width for word in words)
    rows = VGroup()
    for rank, ((_, p), word, text) in enumerate(zip(top, words, numbers)):
        length = bar(p, bar_length, width=0.28, role="output").rotate(-PI / 2)
        length.move_to(np.array(top_left, dtype=float) + DOWN * spacing * rank, aligned_edge=LEFT)
        rows.add(
            VGroup(
                word.scale(min(1.0, room / widest)).next_to(length, LEFT, buff=WORD_BUFF),
                length,
                text.next_to(length, RIGHT, buff=0.15),
            )
        )
    return rows


Y_TICK_BUFF = 0.22  # room between a y tick label and the axis for a data dot on it (radius up to 0.08)


def chart_axes(box: dict, x_ticks, y_ticks, x_title: str, y_title: str, y_title_buff: float = 0.1) -> VGroup:
    """Two axes along the left and bottom of ``box`` (left, right, bottom, top), tick labels and titles.

    ``x_ticks`` / ``y_ticks``: (text, point) pairs; each label sits below / left of its point, so the
    caller's own mapping (linear or log) decides where. A y label stands clear of a data dot drawn on
    the axis (the first point of a curve that starts at x = 0).
    """
    corner = [box["left"], box["bottom"], 0]
    lines = VGroup(Line(corner, [box["right"], box["bottom"], 0]), Line(corner, [box["left"], box["top"], 0]))
    lines.set_stroke(role_colour("muted"), 2)
    ticks = VGroup(
        *(label(text, SMALL, "muted").next_to(point, DOWN, buff=0.1) for text, point in x_ticks),
        *(label(text, SMALL, "muted").next_to(point, LEFT, buff=Y_TICK_BUFF) for text, point in y_ticks),
    )
    titles = VGroup(
        label(x_title, SMALL, "muted").next_to(lines[0], DOWN, buff=0.45),
        label(y_title, SMALL, "muted").next_to(lines[1], UP, buff=y_title_buff),
    )
    return VGroup(lines, ticks, titles)

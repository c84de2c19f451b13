"""One network copy per word, and the attention steps between copies, as returned animations."""

from __future__ import annotations

from collections.abc import Sequence

from manim import RIGHT, UP, AnimationGroup, FadeIn, VGroup

from scenes.mobjects.nodes import Connections, NodeLayer, label


class NetworkCopy(VGroup):
    """The seed's network for one word: input nodes → Query / Key / ordinary-hidden (value) groups.

    Compact, for laying several side by side: every group is a row of nodes, input at the bottom.
    Accessors: ``word``, ``input_nodes``, ``query_nodes``, ``key_nodes``, ``value_nodes``,
    ``edges_to(role)``. ``heights`` ({"word", "input", "query", "key", "value": y}) sets where each row
    stands, so that copies of different widths keep their rows on the same lines.
    """

    def __init__(
        self,
        word: str,
        inputs: Sequence[float],
        query: Sequence[float],
        key: Sequence[float],
        value: Sequence[float],
        radius: float = 0.07,
        spacing: float = 0.19,
        word_size: float = 26,
        heights: dict[str, float] | None = None,
        edge_width: float = 0.6,
        edge_opacity: float = 0.25,
        **kwargs,
    ):
        super().__init__(**kwargs)
        row = dict(radius=radius, spacing=spacing, direction=RIGHT)
        self.word = label(word, word_size)
        self.input_nodes = NodeLayer(inputs, "input", **row)
        self.query_nodes = NodeLayer(query, "query", **row)
        self.key_nodes = NodeLayer(key, "key", **row)
        self.value_nodes = NodeLayer(value, "value", **row)
        gap = 1.6 * spacing
        self.input_nodes.next_to(self.word, UP, buff=0.25)
        self.query_nodes.next_to(self.input_nodes, UP, buff=2 * gap)
        self.key_nodes.next_to(self.query_nodes, UP, buff=gap)
        self.value_nodes.next_to(self.key_nodes, UP, buff=gap)
        if heights is not None:  # each row where the caller wants it, whatever the nodes' size
            for name, part in (
                ("word", self.word),
                ("input", self.input_nodes),
                ("query", self.query_nodes),
                ("key", self.key_nodes),
                ("value", self.value_nodes),
            ):
                part.set_y(heights[name])
        self.groups = {"query": self.query_nodes, "key": self.key_nodes, "value": self.value_nodes}
        self.edges = {
            role: Connections(self.input_nodes, group, max_width=edge_width, opacity=edge_opacity)
            for role, group in self.groups.items()
        }
        self.add(*self.edges.values(), self.word, self.input_nodes, *self.groups.values())

    def edges_to(self, role: str) -> Connections:
        return self.edges[role]

    def create(self) -> AnimationGroup:
        return AnimationGroup(
            FadeIn(self.word, shift=0.2 * UP),
            self.input_nodes.create(),
            *(group.create() for group in self.groups.values()),
            *(FadeIn(edges) for edges in self.edges.values()),
            lag_ratio=0.1,
        )

    def forward(self) -> AnimationGroup:
        """The input's values flow into the three groups."""
        return AnimationGroup(*(edges.flow() for edges in self.edges.values()))


def scale_group(group: NodeLayer, weight: float, run_time: float = 1.2) -> AnimationGroup:
    """A weight multiplies a value group: each node shrinks and fades to its share (0..1)."""
    return AnimationGroup(
        *(node.animate.scale(max(weight, 0.1)).set_fill(opacity=max(weight, 0.2)) for node in group.nodes),
        run_time=run_time,
    )


def weighed(group: NodeLayer, weight: float) -> NodeLayer:
    """``group`` at once as ``scale_group`` leaves it: for a group drawn anew after the weighing."""
    for node in group.nodes:
        node.scale(max(weight, 0.1)).set_fill(opacity=max(weight, 0.2))
    return group

"""The visual language on one page, drawn from the components themselves: the role hues, the value
scale, the type scale, a vector column with its tag, nodes, an edge and a formula. docs/visual-language.md
shows it in both themes:

    .venv/bin/python -m manim -s -qh scenes/visual_language.py VisualLanguage
    ATTENTION_THEME=light .venv/bin/python -m manim -s -qh scenes/visual_language.py VisualLanguage
"""

from __future__ import annotations

from manim import DOWN, LEFT, RIGHT, UP, Circle, Line, ManimColor, Scene, VGroup

from scenes import source
from scenes.math import formula
from scenes.mobjects import NodeLayer, VectorColumn, bar, label, tag
from scenes.theme import EDGE_OPACITY, EDGE_WIDTH, HEADING, LABEL, SMALL, TITLE, role_colour, theme, value_colour

ROLES = {"input": "input", "query": "Query", "key": "Key", "value": "value", "output": "output"}
SCALE = (-2.0, -1.0, -0.5, -0.2, 0.0, 0.2, 0.5, 1.0, 2.0)  # the colour scale's key, not data


class VisualLanguage(Scene):
    def construct(self):
        self.camera.background_color = ManimColor(theme().background)
        roles = self.role_hues().to_corner([-1, 1, 0], buff=0.4)
        values = self.value_scale().next_to(roles, DOWN, buff=0.5, aligned_edge=LEFT)
        sizes = self.type_scale().next_to(values, DOWN, buff=0.5, aligned_edge=LEFT)
        vector = self.vector_and_nodes(source.current_trace()).to_edge(RIGHT, buff=0.6).shift(0.6 * UP)
        math = formula(r"\mathrm{softmax}\left(\frac{QK^\top}{\sqrt{d_k}}\right)V", size=HEADING)
        math.next_to(vector, DOWN, buff=0.5).align_to(vector, RIGHT)
        self.add(roles, values, sizes, vector, math)

    @staticmethod
    def role_hues() -> VGroup:
        """Each role: a node outlined in its hue and its name in it."""
        chips = VGroup(
            *(
                VGroup(
                    Circle(
                        0.22,
                        stroke_color=role_colour(role),
                        stroke_width=3,
                        fill_color=value_colour(0.0),
                        fill_opacity=1,
                    ),
                    label(name, SMALL, role),
                ).arrange(DOWN, buff=0.12)
                for role, name in ROLES.items()
            )
        )
        return VGroup(label("roles", LABEL, "muted"), chips.arrange(RIGHT, buff=0.45)).arrange(DOWN, aligned_edge=LEFT)

    @staticmethod
    def value_scale() -> VGroup:
        """Node fills from below zero to above it, each with its number."""
        nodes = NodeLayer(SCALE, "input", radius=0.22, spacing=0.72, direction=RIGHT, show_values=True, digits=1)
        return VGroup(label("values", LABEL, "muted"), nodes).arrange(DOWN, aligned_edge=LEFT)

    @staticmethod
    def type_scale() -> VGroup:
        sizes = VGroup(
            *(
                label(f"{name} {size} pt 猫喜欢 Query", size)
                for name, size in (("TITLE", TITLE), ("HEADING", HEADING), ("LABEL", LABEL), ("SMALL", SMALL))
            )
        )
        return sizes.arrange(DOWN, aligned_edge=LEFT, buff=0.15)

    @staticmethod
    def vector_and_nodes(trace: dict) -> VGroup:
        """The Query of the word before the last (the Trace's; 抓 in 猫喜欢抓老鼠) as numbers, the node
        layer it fills, the edges, and its largest weight as a bar."""
        attention = trace["attention"]
        query = len(trace["tokens"]) - 2
        values = attention["queries"][query]
        weight = max(attention["weights"][query])
        column = VectorColumn(values, "query")
        name = tag(column, "Query", "query")
        nodes = NodeLayer(values, "query", radius=0.16, spacing=column.rows[1].get_y() - column.rows[2].get_y())
        nodes.next_to(column, RIGHT, buff=1.2).match_y(column)
        edges = VGroup(
            *(
                Line(
                    column.get_right(),
                    node.get_left(),
                    stroke_width=EDGE_WIDTH,
                    stroke_color=role_colour("muted"),
                    stroke_opacity=EDGE_OPACITY,
                )
                for node in nodes.nodes
            )
        )
        height = bar(weight, 1.4, width=0.35).next_to(nodes, RIGHT, buff=0.6).align_to(nodes, DOWN)
        written = label(f"{weight:.2f}", SMALL, "highlight").next_to(height, UP, buff=0.1)
        return VGroup(name, column, edges, nodes, height, written)

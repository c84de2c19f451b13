"""A vector as 3Blue1Brown draws one: a bracketed column of its numbers, each coloured by its value,
the brackets in the colour of the group it belongs to; and a group's name written beside it.

Example::

    query = VectorColumn([0.31, -1.20, 0.84, 0.05], role="query")
    name = tag(query, "Query", "query")  # beside the column, in the Query colour
    self.play(query.create(), FadeIn(name))
"""

from __future__ import annotations

from collections.abc import Sequence

from manim import DOWN, LEFT, AnimationGroup, FadeIn, LaggedStart, Mobject, Text, VGroup

from scenes.mobjects.grids import brackets
from scenes.mobjects.nodes import label, number
from scenes.theme import LABEL, SMALL, value_text_colour

ELLIPSIS = "︙"  # the vertical ellipsis the CJK font has (it lacks ⋮)


class VectorColumn(VGroup):
    """``values`` as a column of numbers between brackets in ``role``'s colour. With ``max_rows``, a
    longer vector shows its first rows, "︙", and its last row; ``indices`` says which entries stand.

    ``entries`` (optional, made by the caller, which records the numbers it puts on screen) replace
    the numbers this class would write, one per shown entry, top to bottom.
    """

    def __init__(
        self,
        values: Sequence[float],
        role: str,
        digits: int = 2,
        size: float = SMALL,
        max_rows: int | None = None,
        entries: Sequence[Text] | None = None,
        row_gap: float = 0.12,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.values, self.role = [float(v) for v in values], role
        self.indices = shown_rows(len(self.values), max_rows)
        made = iter(entries) if entries is not None else None
        self.rows = VGroup()
        self.entries: dict[int, Text] = {}
        for i in self.indices:
            if i is None:
                self.rows.add(label(ELLIPSIS, size, "muted"))
                continue
            text = next(made) if made is not None else number(self.values[i], digits, size)
            text.set_color(value_text_colour(self.values[i]))
            self.entries[i] = text
            self.rows.add(text)
        self.rows.arrange(DOWN, buff=row_gap)
        for text in self.entries.values():  # numbers right-aligned, as in a printed matrix
            text.align_to(self.rows, direction=[1, 0, 0])
        self.brackets = brackets(self.rows, role)
        self.add(self.rows, self.brackets)

    def entry(self, i: int) -> Text:
        return self.entries[i]

    def create(self, lag_ratio: float = 0.08) -> AnimationGroup:
        return AnimationGroup(
            FadeIn(self.brackets), LaggedStart(*(FadeIn(r, shift=0.1 * DOWN) for r in self.rows), lag_ratio=lag_ratio)
        )


def shown_rows(count: int, max_rows: int | None) -> list[int | None]:
    """Which entries a column of ``count`` shows in ``max_rows`` rows: all, or the first ones, ``None``
    for "︙", and the last one."""
    if max_rows is None or count <= max_rows:
        return list(range(count))
    return [*range(max_rows - 2), None, count - 1]


def tag(group: Mobject, name: str, role: str, direction=LEFT, size: float = LABEL, buff: float = 0.2) -> Text:
    """The name of a group, in its role's colour, standing beside it (not in a corner legend)."""
    return label(name, size, role).next_to(group, direction, buff=buff)

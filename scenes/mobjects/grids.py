"""Grids of real numbers: a matrix written out (NumberGrid) and a matrix as coloured cells (HeatGrid)."""

from __future__ import annotations

from collections.abc import Sequence

from manim import DOWN, LEFT, PI, RIGHT, Line, Square, Text, VGroup

from scenes.mobjects.nodes import label
from scenes.theme import OUTLINE_WIDTH, SMALL, role_colour, value_colour

SMALLEST_SHARED = 0.7  # words side by side shrink together down to this share of their size


class NumberGrid(VGroup):
    """A matrix between brackets, one Text per entry.

    ``entries`` are made by the caller (which records the numbers it puts on screen), row by row;
    ``None`` leaves a cell blank (written as ``blank``, e.g. a masked score).
    """

    def __init__(
        self,
        entries: Sequence[Sequence[Text | None]],
        cell: tuple[float, float] = (0.62, 0.36),
        blank: str = "·",
        role: str = "text",
        **kwargs,
    ):
        super().__init__(**kwargs)
        width, height = cell
        self.cells = VGroup()
        for i, row in enumerate(entries):
            for j, entry in enumerate(row):
                text = entry if entry is not None else label(blank, SMALL, "muted")
                self.cells.add(text.move_to([j * width, -i * height, 0]))
        self.rows, self.cols = len(entries), len(entries[0])
        self.add(self.cells)
        self.brackets = brackets(self.cells, role)
        self.add(self.brackets)

    def entry(self, i: int, j: int) -> Text:
        return self.cells[i * self.cols + j]


def brackets(content: VGroup, role: str = "text", reach: float = 0.12) -> VGroup:
    """Square brackets around ``content``."""
    top, bottom = content.get_top()[1] + 0.1, content.get_bottom()[1] - 0.1
    sides = VGroup()
    for edge, inward in ((content.get_left()[0] - 0.12, RIGHT), (content.get_right()[0] + 0.12, LEFT)):
        upright = Line([edge, bottom, 0], [edge, top, 0])
        sides.add(
            upright,
            Line(upright.get_top(), upright.get_top() + inward * reach),
            Line(upright.get_bottom(), upright.get_bottom() + inward * reach),
        )
    return sides.set_stroke(role_colour(role), OUTLINE_WIDTH)


class HeatGrid(VGroup):
    """A matrix as a block of squares, each coloured by its value divided by ``scale``."""

    def __init__(self, values: Sequence[Sequence[float]], scale: float, cell: float = 0.16, **kwargs):
        super().__init__(**kwargs)
        self.values = [[float(v) for v in row] for row in values]
        for i, row in enumerate(self.values):
            for j, value in enumerate(row):
                square = Square(
                    cell,
                    stroke_width=0.5,
                    stroke_color=role_colour("background"),
                    fill_color=value_colour(value / scale if scale else 0.0),
                    fill_opacity=1,
                )
                self.add(square.move_to(RIGHT * j * cell + DOWN * i * cell))
        self.frame = Square(1).set_stroke(role_colour("muted"), 1)
        self.frame.stretch_to_fit_width(self.width).stretch_to_fit_height(self.height).move_to(self)
        self.add(self.frame)

    def see_through(self, opacity: float) -> HeatGrid:
        """The squares and the frame's outline at ``opacity``; unlike ``set_opacity`` this leaves the
        frame unfilled instead of laying a veil over the squares."""
        for square in self.submobjects:
            if square is not self.frame:
                square.set_fill(opacity=opacity)
        self.frame.set_stroke(opacity=opacity)
        return self


def row_peaks(weights: Sequence[Sequence[float]], causal: bool = False) -> list[int]:
    """For each row, the column of its largest weight (with ``causal``, among the unmasked ones)."""
    return [max(range(i + 1 if causal else len(row)), key=row.__getitem__) for i, row in enumerate(weights)]


def column_labels(words: Sequence[str], size: float, cell: float, tallest: float = 1.0) -> list[Text]:
    """Words over columns ``cell`` wide: as they are if they fit, all a little smaller if that is
    enough; otherwise all stood upright (Chinese a character per line, other words turned on their
    side), shrunk together as far as the tallest needs to stay ``tallest`` high but not below
    SMALLEST_SHARED (a word taller still shrinks on its own), so that the labels of one grid read alike."""
    room = 0.85 * cell  # a gap between neighbours, so that words do not run together
    flat = [label(w, size) for w in words]
    widest = max(text.width for text in flat)
    if widest * SMALLEST_SHARED <= room:
        return [text.scale(min(1.0, room / widest)) for text in flat]
    upright = [label("\n".join(w), size) if not w.isascii() else text.rotate(PI / 2) for w, text in zip(words, flat)]
    scale = max(SMALLEST_SHARED, min(1.0, tallest / max(text.height for text in upright)))
    return [fitted(shorter(text.scale(scale), tallest), room) for text in upright]


def size_to_fit(words: Sequence[str], size: float, width: float) -> float:
    """One font size for ``words`` written side by side, each in ``width``: at most ``size``, as small
    as the widest needs, but not below SMALLEST_SHARED of ``size`` (fit a word still too wide on its
    own). Shrunk one by one, a long word looks less than a short one beside it; shrunk all the way
    together, one long word makes every word hard to read."""
    widest = max(label(word, size).width for word in words)
    return size * max(SMALLEST_SHARED, min(1.0, width / widest))


def fitted(text: Text, width: float) -> Text:
    """``text`` shrunk to ``width`` if it is wider."""
    return text.scale_to_fit_width(width) if text.width > width else text


def shorter(text: Text, height: float) -> Text:
    """``text`` shrunk to ``height`` if it is taller."""
    return text.scale_to_fit_height(height) if text.height > height else text

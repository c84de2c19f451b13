"""An attention pattern as 3Blue1Brown draws one: a grid with the words looked at (keys) along the top
and the querying words down the side, each cell as bright as its weight. Every word and number
keeps its size (never below SMALL): when the cells are too small for a number, each row's largest
weight is written beside the row instead, and when the words over the columns do not fit side by
side, only as many as fit are written (the first and last, then the ones asked for), the others
elided as "⋯".

Example::

    numbers = [[number(w) for w in row] for row in weights]
    grid = AttentionPattern(weights, words, words, numbers, cell=0.8, inside=True)
    self.play(FadeIn(grid))
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from manim import LEFT, Rectangle, Text, VGroup, interpolate_color

from scenes.mobjects.grids import row_peaks
from scenes.mobjects.nodes import label
from scenes.theme import OUTLINE_WIDTH, SMALL, role_colour

INSIDE_CELL = 0.8  # smallest cell that holds a weight written at SMALL ("0.99" is 0.66 wide)
NUMBER_COLUMN = 0.85  # room right of the grid for each row's largest weight
LABEL_GAP = 0.15  # between a grid and its words
WORD_GAP = 0.12  # between two words over neighbouring columns
ELLIPSIS = "⋯"


def written_weights(weights: Sequence[Sequence[float]], causal: bool, inside: bool) -> list[list[bool]]:
    """Which weights a pattern writes: every unmasked one when they fit inside the cells, otherwise
    each row's largest."""
    peaks = row_peaks(weights, causal)
    return [
        [not (causal and j > i) and (inside or j == peaks[i]) for j in range(len(row))] for i, row in enumerate(weights)
    ]


def pattern_numbers(
    weights: Sequence[Sequence[float]], causal: bool, inside: bool, write: Callable[[int, int, float], Text]
) -> list[list[Text | None]]:
    """The numbers of a pattern, made by ``write(i, j, weight)`` (which records them), None where none."""
    written = written_weights(weights, causal, inside)
    return [[write(i, j, w) if written[i][j] else None for j, w in enumerate(row)] for i, row in enumerate(weights)]


def pattern_cell(
    rows: int,
    columns: int,
    width: float,
    height: float,
    row_words: Sequence[str],
    size: float = SMALL,
    largest: float = 1.1,
) -> tuple[float, float, bool]:
    """The cell width and row height of a pattern in ``width`` × ``height`` (words and numbers
    included), and whether its weights fit inside the cells. A row is never lower than its word, so
    that the words down the side stay apart (the cells grow narrower instead)."""
    words = [label(w, size) for w in row_words]
    side = max(w.width for w in words) + LABEL_GAP
    lowest = max(w.height for w in words)
    above = label("Ag", size).height + LABEL_GAP
    inside = min(largest, (width - side) / columns, (height - above) / rows)
    if inside >= INSIDE_CELL:
        return inside, inside, True
    cell = min(largest, (width - side - NUMBER_COLUMN) / columns, (height - above) / rows)
    return cell, max(cell, lowest), False


class AttentionPattern(VGroup):
    """Weights as a grid: a row per querying word (down the side), a column per word looked at
    (along the top). ``numbers`` (made by the caller, row by row, None for none) go inside their
    cells with ``inside``, otherwise beside their row. ``causal``: the cells right of the diagonal
    (later words) are masked: dark and empty. ``keep``: columns whose word is written first when
    not all fit."""

    def __init__(
        self,
        weights: Sequence[Sequence[float]],
        row_words: Sequence[str],
        column_words: Sequence[str],
        numbers: Sequence[Sequence[Text | None]],
        cell: float,
        inside: bool,
        causal: bool = False,
        size: float = SMALL,
        keep: Sequence[int] = (),
        pitch: float | None = None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        pitch = pitch or cell
        self.cell_size, self.pitch, self.rows = cell, pitch, []
        self.cells, self.beside = VGroup(), VGroup()
        self.beside_of: dict[int, Text] = {}
        for i, row in enumerate(weights):
            cells = VGroup()
            for j, weight in enumerate(row):
                masked = causal and j > i
                square = Rectangle(
                    width=cell,
                    height=pitch,
                    stroke_width=1,
                    stroke_color=role_colour("background"),
                    fill_color=interpolate_color(role_colour("neutral"), role_colour("highlight"), weight),
                    fill_opacity=1,
                )
                if masked:  # an empty cell, outlined: there is a word there, but the mask hides it
                    square.set_fill(opacity=0).set_stroke(role_colour("muted"), 1.5, opacity=0.6).scale(0.9)
                square.move_to([j * cell, -i * pitch, 0])
                written = numbers[i][j]
                if written is not None and inside:
                    cells.add(VGroup(square, written.move_to(square)))
                else:
                    cells.add(square)
                if written is not None and not inside:
                    self.beside_of[i] = written.move_to(
                        [(len(row) - 0.5) * cell + LABEL_GAP + written.width / 2, square.get_y(), 0]
                    )
                    self.beside.add(written)
            self.rows.append(cells)
            self.cells.add(cells)
        self.row_labels = VGroup(
            *(label(w, size).next_to(self.rows[i][0], LEFT, buff=LABEL_GAP) for i, w in enumerate(row_words))
        )
        for word in self.row_labels:  # right-aligned against the grid
            word.set_x(-cell / 2 - LABEL_GAP - word.width / 2)
        self.column_labels, self.elided = self.words_on_top(column_words, size, keep)
        self.add(self.cells, self.beside, self.row_labels, self.column_labels, self.elided)

    def words_on_top(self, words: Sequence[str], size: float, keep: Sequence[int]) -> tuple[VGroup, VGroup]:
        """As many column words as stand side by side over their columns, the first and last and
        ``keep`` first; a "⋯" over each run of columns left without a word, where it has room."""
        cell, count = self.cell_size, len(words)
        top = self.rows[0][0].get_top()[1] + LABEL_GAP
        made = {j: label(w, size) for j, w in enumerate(words)}
        for j, word in made.items():
            word.move_to([j * cell, top + word.height / 2, 0])
        chosen: list[int] = []
        for j in dict.fromkeys([0, count - 1, *keep, *range(count)]):
            if all(self.apart(made[j], made[k]) for k in chosen):
                chosen.append(j)
        chosen.sort()
        labels = VGroup(*(made[j] for j in chosen))
        self.column_of = {j: made[j] for j in chosen}
        elided = VGroup()
        for a, b in zip(chosen, chosen[1:]):
            if b - a < 2:
                continue
            dots = label(ELLIPSIS, size, "muted").move_to([(a + b) / 2 * cell, made[a].get_center()[1], 0])
            if self.apart(dots, made[a]) and self.apart(dots, made[b]):
                elided.add(dots)
        return labels, elided

    @staticmethod
    def apart(a, b) -> bool:
        return a.get_right()[0] + WORD_GAP <= b.get_left()[0] or b.get_right()[0] + WORD_GAP <= a.get_left()[0]

    def cell(self, i: int, j: int):
        return self.rows[i][j]

    def square(self, i: int, j: int) -> Rectangle:
        cell = self.rows[i][j]
        return cell[0] if isinstance(cell, VGroup) else cell

    def row(self, i: int) -> VGroup:
        """Row ``i`` whole: its word, its cells and the weight written beside it, if any."""
        parts = VGroup(self.row_labels[i], self.rows[i])
        if i in self.beside_of:
            parts.add(self.beside_of[i])
        return parts

    def column_label(self, j: int) -> Text | None:
        """The word over column ``j``, None if it was elided."""
        return self.column_of.get(j)

    def peak_frames(self, peaks: Sequence[int], role: str = "output") -> VGroup:
        """An outline round the cell of each row's ``peaks`` column."""
        return VGroup(
            *(
                Rectangle(
                    width=self.cell_size, height=self.pitch, stroke_width=OUTLINE_WIDTH, stroke_color=role_colour(role)
                ).move_to(self.square(i, j))
                for i, j in enumerate(peaks)
            )
        )

"""Which words of a long sentence a chapter draws when there is room for only a few."""

from __future__ import annotations

from collections.abc import Iterable


def drawn_slots(count: int, keep: Iterable[int], room: int) -> list[int | range]:
    """The words 0…count-1 as slots left to right: a word's position, or a range of words drawn
    together as one "⋯" slot. All words if ``count`` fit in ``room`` slots; otherwise the words of
    ``keep`` (while they fit) and then as many as fit from the two ends inwards, the first and last
    words first."""
    if count <= room:
        return list(range(count))
    chosen: set[int] = set()
    inward = [i for pair in zip(range(count), reversed(range(count))) for i in pair]
    for position in [*keep, *inward]:
        if position not in chosen and len(slots(count, chosen | {position})) <= room:
            chosen.add(position)
    lone = {run.start for run in slots(count, chosen) if isinstance(run, range) and len(run) == 1}
    return slots(count, chosen | lone)  # a "⋯" for one word would take the word's own room


def slots(count: int, chosen: set[int]) -> list[int | range]:
    """``chosen`` positions in order, each run of the others between them as one range."""
    result: list[int | range] = []
    start = None
    for position in range(count + 1):
        if position in chosen or position == count:
            if start is not None:
                result.append(range(start, position))
                start = None
            if position < count:
                result.append(position)
        elif start is None:
            start = position
    return result

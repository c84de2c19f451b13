"""Chapter 7 — the KV cache (seed 4.1–4.2): generating word by word, every earlier word flows through
the network again; with the cache its Key and value are stored and only the new word flows.

The picture is one table of work filling the frame: a row per generation step (the words so far, each
with its Key and value blocks), and two count columns at the right, without and with the cache."""

from __future__ import annotations

from functools import cached_property

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    AnimationGroup,
    Brace,
    Create,
    DashedVMobject,
    FadeIn,
    FadeOut,
    GrowFromCenter,
    Line,
    Mobject,
    Rectangle,
    ReplacementTransform,
    RoundedRectangle,
    VGroup,
)

from scenes.base import LEFT_MARGIN, RIGHT_MARGIN, ExplainerScene
from scenes.layout import drawn_slots
from scenes.mobjects import emphasise, fitted, label, size_to_fit
from scenes.theme import HEADING, LABEL, OUTLINE_WIDTH, SMALL, role_colour

COUNT_WIDTH = 2.5  # each count column's width, at the frame's right
COUNTS = {"no_cache": RIGHT_MARGIN - 1.5 * COUNT_WIDTH, "with_cache": RIGHT_MARGIN - 0.5 * COUNT_WIDTH}  # centres
WORDS_RIGHT = RIGHT_MARGIN - 2 * COUNT_WIDTH - 0.2  # the rows' words end here
TOP, BOTTOM = 2.5, -2.45  # rows between these (a short sentence's end higher); totals and results below them
ROWS, COLUMNS = 6, 5  # rows and copies a row drawn at most; a long sentence's middle ones share a "⋯"
WORD_ROOM = 0.88  # share of a copy's width its word may take: neighbours keep a gap


def key_value(stored: bool, size: float) -> VGroup:
    """A word's Key and value groups as two blocks; stored ones are dashed outlines."""
    blocks = VGroup()
    for role in ("key", "value"):
        block = RoundedRectangle(
            corner_radius=0.05,
            width=size,
            height=size * 0.7,
            stroke_width=OUTLINE_WIDTH,
            stroke_color=role_colour(role),
            fill_color=role_colour(role),
            fill_opacity=0.15 if stored else 0.85,
        )
        blocks.add(DashedVMobject(block, num_dashes=14) if stored else block)
    return blocks.arrange(RIGHT, buff=0.08)


class KVCache(ExplainerScene):
    title_key = "ch07.title"
    narration_lines = 8  # with the question and the recap

    def construct(self):
        self.recompute_everything()
        self.count_the_waste()
        self.cache_keys_and_values()
        self.query_meets_stored_keys()
        self.same_result()
        self.memory_for_compute()

    @property
    def kv(self) -> dict:
        return self.trace["kv_cache"]

    def pitch(self) -> tuple[float, float]:
        """Height of a row and width of a copy in it."""
        T = len(self.trace["tokens"])
        return min(1.2, (TOP - BOTTOM) / min(T, ROWS)), min(2.3, (WORDS_RIGHT - LEFT_MARGIN) / min(T, COLUMNS))

    def rows_bottom(self) -> float:
        """Where the rows end: at BOTTOM, or higher for a sentence of fewer words than fill the frame."""
        height, _ = self.pitch()
        return max(BOTTOM, TOP - height * min(len(self.trace["tokens"]), ROWS))

    @cached_property
    def word_size(self) -> float:
        """One font size for the words the chapter draws (size_to_fit; a long word among the elided
        middle ones does not count): words keep a gap to their neighbours and read alike, never smaller
        than the smallest type."""
        tokens, T = self.trace["tokens"], len(self.trace["tokens"])
        steps = [t for t in drawn_slots(T, [T - 1], ROWS) if isinstance(t, int)]
        drawn = {tokens[j] for t in steps for j in drawn_slots(t + 1, [t], COLUMNS) if isinstance(j, int)}
        height, pitch = self.pitch()
        largest = HEADING if height >= 1.0 else LABEL  # many rows: smaller words leave their blocks room
        return max(SMALL, size_to_fit(sorted(drawn), largest, WORD_ROOM * pitch))

    def block_size(self) -> float:
        """A Key or value block's width: as much as the row leaves under its word."""
        height, pitch = self.pitch()
        word = label("Ag", self.word_size).height
        return min(0.9, 0.4 * pitch, (height - word - 0.2) / 0.7)

    def row_y(self, place: int) -> float:
        height, _ = self.pitch()
        return TOP - height * (place + 0.5)

    def row(self, t: int, place: int, cached: bool) -> VGroup:
        """Generation step t, drawn as row ``place``: the words so far, each with its Key/value blocks
        (a long row's middle words as one "⋯"), and the step's count in its column."""
        tokens = self.trace["tokens"]
        _, pitch = self.pitch()
        y = self.row_y(place)
        copies, gaps = VGroup(), VGroup()
        for column, slot in enumerate(drawn_slots(t + 1, [t], COLUMNS)):
            x = LEFT_MARGIN + pitch * (column + 0.5)
            if isinstance(slot, range):
                gaps.add(label("⋯", LABEL, "muted").move_to([x, y, 0]))
                continue
            stored = cached and slot < t
            word = fitted(label(tokens[slot], self.word_size, "muted" if stored else "text"), WORD_ROOM * pitch)
            copies.add(VGroup(word, key_value(stored, self.block_size())).arrange(DOWN, buff=0.08).move_to([x, y, 0]))
        counts = self.kv["steps_with_cache" if cached else "steps_without_cache"]
        count = self.shown(
            f"{'with' if cached else 'without'} cache step {t}",
            counts[t],
            0,
            HEADING,
            "highlight" if counts[t] > 1 else "input",
        )
        count.move_to([COUNTS["with_cache" if cached else "no_cache"], y, 0])
        return VGroup(copies, count, gaps)

    def work_band(self, row: VGroup, cached: bool) -> Rectangle:
        """A light band behind the work a step does: without the cache, across the row, every copy, up
        to its count; with it, behind the newest word's copy alone."""
        height, pitch = self.pitch()
        copies = row[0]
        left = copies[-1].get_x() - pitch / 2 if cached else LEFT_MARGIN
        right = copies[-1].get_x() + pitch / 2 if cached else COUNTS["no_cache"] + COUNT_WIDTH / 2 - 0.15
        band = Rectangle(
            width=right - left,
            height=0.92 * height,
            stroke_width=0,
            fill_color=role_colour("highlight"),
            fill_opacity=0.14,
        )
        return band.move_to([(left + right) / 2, copies.get_y(), 0])

    def skipped_rows(self, place: int, cached: bool) -> VGroup:
        """Row ``place`` standing for the generation steps not drawn: "︙" under the words and the count."""
        _, pitch = self.pitch()
        y = self.row_y(place)
        column = COUNTS["with_cache" if cached else "no_cache"]
        marks = VGroup(label("︙", SMALL, "muted").move_to([column, y, 0]))
        if not cached:  # the words' "︙" stands once, for both ways
            marks.add(label("︙", SMALL, "muted").move_to([LEFT_MARGIN + pitch / 2, y, 0]))
        return marks

    def panel(self, cached: bool) -> tuple[VGroup, list[VGroup], dict[int, VGroup]]:
        """The count column's heading, the rows (one per generation step drawn), and the "︙" of the
        steps not drawn, by the number of rows drawn above it."""
        name = "with_cache" if cached else "no_cache"
        heading = self.word(name, SMALL, "input" if cached else "highlight").move_to([COUNTS[name], TOP + 0.32, 0])
        T = len(self.trace["tokens"])
        rows, skipped = [], {}
        for place, slot in enumerate(drawn_slots(T, [T - 1], ROWS)):
            if isinstance(slot, range):
                skipped[len(rows)] = self.skipped_rows(place, cached)
            else:
                rows.append(self.row(slot, place, cached))
        return heading, rows, skipped

    def block_names(self, first: VGroup) -> VGroup:
        """ "Key" and the value group's name, in their colours, right of the first row's only word."""
        names = VGroup(label(self.say("key"), SMALL, "key"), label(self.say("value"), SMALL, "value"))
        return names.arrange(RIGHT, buff=0.3).next_to(first, RIGHT, buff=0.4)

    def recompute_everything(self):
        self.title = self.show_title()
        heading, self.plain, skipped = self.panel(cached=False)
        self.bands = [self.work_band(row, cached=False) for row in self.plain]  # the work each step does
        names = self.block_names(self.plain[0][0])
        with self.narration("ch07.waste"):
            self.play(FadeIn(heading))
            for place, row in enumerate(self.plain):
                if place in skipped:
                    self.play(FadeIn(skipped[place]), run_time=0.4)
                copies, count, gaps = row
                band = self.bands[place]
                before = list(self.mobjects)
                # each word flows through the network: its blocks come out of it, under it
                self.play(
                    FadeIn(band), FadeIn(VGroup(*(copy[0] for copy in copies)), gaps, shift=0.15 * DOWN), run_time=0.4
                )
                self.play(*(FadeIn(copy[1], shift=0.25 * DOWN) for copy in copies), FadeIn(count), run_time=0.5)
                # the row, shown in parts, stands as one group (over its band): the cache step transforms it
                self.remove(*(m for m in self.mobjects if m not in before))
                self.add(band, row)
                if place == 0:
                    self.play(FadeIn(names, shift=0.2 * LEFT), run_time=0.5)

    def total(self, cached: bool) -> VGroup:
        count = self.kv["projections_with_cache" if cached else "projections_without_cache"]
        self.numbers_on_screen[f"{'with' if cached else 'without'} cache total"] = count
        text = fitted(
            label(self.say("computed", count=count), HEADING, "input" if cached else "highlight"), COUNT_WIDTH - 0.15
        )
        return text.move_to([COUNTS["with_cache" if cached else "no_cache"], self.rows_bottom() - 0.4, 0])

    @staticmethod
    def add_up(counts: VGroup, total: Mobject) -> AnimationGroup:
        """The rows' counts slide down into their total, which appears where they meet."""
        return AnimationGroup(
            *(FadeOut(count.copy(), target_position=total) for count in counts), FadeIn(total, scale=1.3), run_time=1.0
        )

    def count_the_waste(self):
        without, with_cache = self.kv["projections_without_cache"], self.kv["projections_with_cache"]
        total = self.total(cached=False)
        y = self.rows_bottom() - 0.05
        column = COUNTS["no_cache"]
        rule = Line([column - COUNT_WIDTH / 2 + 0.2, y, 0], [column + COUNT_WIDTH / 2 - 0.2, y, 0])
        counts = VGroup(*(row[1] for row in self.plain))
        with self.narration(
            "ch07.total", words=len(self.trace["tokens"]), without=without, repeated=without - with_cache
        ):
            self.play(Create(rule.set_stroke(role_colour("muted"), 2)))
            self.play(self.add_up(counts, total))
            self.play(*(emphasise(copy[1], role="highlight") for row in self.plain for copy in row[0][:-1]))

    def cache_keys_and_values(self):
        heading, self.cached, skipped = self.panel(cached=True)
        total = self.total(cached=True)
        with self.narration("ch07.cache", with_cache=self.kv["projections_with_cache"]):
            self.play(FadeIn(heading))
            for place, (plain, cached) in enumerate(zip(self.plain, self.cached)):
                if place in skipped:
                    self.play(FadeIn(skipped[place]), run_time=0.4)
                # the earlier words' blocks turn into stored ones; only the newest word is computed
                self.play(
                    ReplacementTransform(plain[0], cached[0]),
                    FadeIn(cached[1], shift=0.2 * LEFT),
                    self.bands[place].animate.become(self.work_band(cached, cached=True)),
                    run_time=0.6,
                )
                self.play(emphasise(cached[0][-1][1], scale_factor=1.3), run_time=0.4)
            self.play(self.add_up(VGroup(*(row[1] for row in self.cached)), total))

    def query_meets_stored_keys(self):
        newest = self.cached[-1][0]
        asker = newest[-1]
        query = RoundedRectangle(
            corner_radius=0.05,
            width=asker[1][0].width,
            height=asker[1][0].height,
            stroke_width=OUTLINE_WIDTH,
            stroke_color=role_colour("query"),
            fill_color=role_colour("query"),
            fill_opacity=0.85,
        )
        query.next_to(asker[1][0], DOWN, buff=0.18)
        name = label(self.say("query"), SMALL, "query").next_to(query, LEFT, buff=0.2)
        self.query = VGroup(query, name)
        self.links = VGroup(
            *(
                Line(
                    query.get_bottom(),
                    copy[1][0].get_bottom(),
                    path_arc=-0.8,
                    stroke_width=3,
                    color=role_colour("query"),
                )
                for copy in newest[:-1]
            )
        )
        with self.narration("ch07.query"):
            self.play(FadeIn(query, shift=0.2 * DOWN), FadeIn(name))
            self.play(Create(self.links), run_time=1.5)
            self.play(*(emphasise(copy[1]) for copy in newest[:-1]))

    def same_result(self):
        difference = self.kv["max_abs_diff"]
        self.numbers_on_screen["max difference"] = difference
        # in the room the second row leaves right of its words: the rows below are what it compares
        shown = label(f"max |Δ| = {difference:.1e}", LABEL, "output")
        shown.move_to([WORDS_RIGHT, self.row_y(1), 0], aligned_edge=RIGHT)
        with self.narration("ch07.same", diff=f"{difference:.1e}"):
            self.play(FadeOut(self.links), FadeOut(self.query), FadeIn(shown, shift=0.2 * UP))

    def memory_for_compute(self):
        numbers = self.kv["cached_numbers"]
        self.numbers_on_screen["cached numbers"] = numbers
        stored = VGroup(*(copy[1] for copy in self.cached[-1][0]), self.cached[-1][2])
        # a brace under the stored blocks: a frame around them would run through the words above them
        self.cache_mark = Brace(stored, DOWN, buff=0.08, color=role_colour("output"))
        amount = label(self.say("cache_size", count=numbers), SMALL, "output").next_to(self.cache_mark, DOWN, buff=0.1)
        amount.shift(RIGHT * max(0.0, LEFT_MARGIN - amount.get_left()[0]))
        with self.narration("ch07.memory", numbers=numbers):
            self.play(GrowFromCenter(self.cache_mark), FadeIn(amount, shift=0.2 * DOWN))

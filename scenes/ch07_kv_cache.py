"""Chapter 7 — the KV cache (seed 4.1–4.2): generating word by word, every earlier word flows through
the network again; with the cache its Key and value are stored and only the new word flows."""

from __future__ import annotations

from functools import cached_property

from manim import (DOWN, LEFT, RIGHT, UP, UR, Brace, Create, DashedVMobject, FadeIn, FadeOut, GrowFromCenter, Line,
                   RoundedRectangle, VGroup)

from scenes.base import RIGHT_MARGIN, ExplainerScene
from scenes.layout import drawn_slots
from scenes.mobjects import emphasise, fitted, label, legend, size_to_fit
from scenes.theme import role_colour

PANELS = {"no_cache": -3.55, "with_cache": 3.55}  # panel centres
PANEL_WIDTH = 6.6
COUNT_WIDTH = 1.5  # room at a row's right for its count
TOP, BOTTOM = 2.1, -1.9  # rows between these (a short sentence's end higher); totals and results below them
ROWS, COLUMNS = 9, 8  # rows and copies a row drawn at most; a long sentence's middle ones share a "⋯"


def key_value(stored: bool, size: float) -> VGroup:
    """A word's Key and value groups as two small blocks; stored ones are dashed outlines."""
    blocks = VGroup()
    for role in ("key", "value"):
        block = RoundedRectangle(corner_radius=0.04, width=size, height=size * 0.7, stroke_width=2,
                                 stroke_color=role_colour(role), fill_color=role_colour(role),
                                 fill_opacity=0.15 if stored else 0.8)
        blocks.add(DashedVMobject(block, num_dashes=12) if stored else block)
    return blocks.arrange(RIGHT, buff=0.05)


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
        return min(1.0, (TOP - BOTTOM) / min(T, ROWS)), min(1.2, (PANEL_WIDTH - COUNT_WIDTH) / min(T, COLUMNS))

    def rows_bottom(self) -> float:
        """Where the rows end: at BOTTOM, or higher for a sentence of fewer words than fill the panel."""
        height, _ = self.pitch()
        return max(BOTTOM, TOP - height * min(len(self.trace["tokens"]), ROWS))

    @cached_property
    def word_size(self) -> float:
        """One font size for the words the chapter draws (size_to_fit; a long word among the elided
        middle ones does not count): words keep a gap to their neighbours and read alike; only a word
        too long even at the smallest shared size is smaller."""
        tokens, T = self.trace["tokens"], len(self.trace["tokens"])
        steps = [t for t in drawn_slots(T, [T - 1], ROWS) if isinstance(t, int)]
        drawn = {tokens[j] for t in steps for j in drawn_slots(t + 1, [t], COLUMNS) if isinstance(j, int)}
        _, pitch = self.pitch()
        return size_to_fit(sorted(drawn), min(20, 30 * pitch), 0.85 * pitch)

    def row(self, t: int, place: int, cached: bool) -> VGroup:
        """Generation step t, drawn as row ``place``: the words so far, each with its Key/value blocks
        (a long row's middle words as one "⋯"), and the count."""
        tokens = self.trace["tokens"]
        height, pitch = self.pitch()
        centre = PANELS["with_cache" if cached else "no_cache"]
        left = centre - PANEL_WIDTH / 2
        y = TOP - height * (place + 0.5)
        copies, gaps = VGroup(), VGroup()
        for column, slot in enumerate(drawn_slots(t + 1, [t], COLUMNS)):
            x = left + pitch * (column + 0.5)
            if isinstance(slot, range):
                gaps.add(label("⋯", min(24, 40 * pitch), "muted").move_to([x, y, 0]))
                continue
            stored = cached and slot < t
            word = fitted(label(tokens[slot], self.word_size, "muted" if stored else "text"), 0.85 * pitch)
            blocks = key_value(stored, min(0.3, 0.4 * pitch))
            copies.add(VGroup(word, blocks).arrange(DOWN, buff=0.05).move_to([x, y, 0]))
        counts = self.kv["steps_with_cache" if cached else "steps_without_cache"]
        self.numbers_on_screen[f"{'with' if cached else 'without'} cache step {t}"] = counts[t]
        count = label(self.say("computed", count=counts[t]), 16, "highlight" if counts[t] > 1 else "input")
        count.move_to([centre + PANEL_WIDTH / 2 - COUNT_WIDTH / 2, y, 0])
        return VGroup(copies, count, gaps)

    def skipped_rows(self, place: int, cached: bool) -> VGroup:
        """Row ``place`` standing for the generation steps not drawn: "︙" under the words and the counts."""
        height, pitch = self.pitch()
        centre = PANELS["with_cache" if cached else "no_cache"]
        y = TOP - height * (place + 0.5)
        return VGroup(*(label("︙", min(24, 60 * height), "muted").move_to([x, y, 0])
                        for x in (centre - PANEL_WIDTH / 2 + pitch / 2, centre + PANEL_WIDTH / 2 - COUNT_WIDTH / 2)))

    def panel(self, cached: bool) -> tuple[VGroup, list[VGroup], dict[int, VGroup]]:
        """The panel's heading, its rows (one per generation step drawn), and the "︙" of the steps
        not drawn, by the number of rows drawn above it."""
        name = "with_cache" if cached else "no_cache"
        heading = self.word(name, 22, "key" if cached else "highlight").move_to([PANELS[name], TOP + 0.45, 0])
        T = len(self.trace["tokens"])
        rows, skipped = [], {}
        for place, slot in enumerate(drawn_slots(T, [T - 1], ROWS)):
            if isinstance(slot, range):
                skipped[len(rows)] = self.skipped_rows(place, cached)
            else:
                rows.append(self.row(slot, place, cached))
        return heading, rows, skipped

    def recompute_everything(self):
        self.title = self.show_title()
        heading, self.plain, skipped = self.panel(cached=False)
        key = legend({role: self.say(role) for role in ("key", "value")}).to_corner(UR, buff=0.3)
        with self.narration("ch07.waste"):
            self.play(FadeIn(heading), FadeIn(key))
            for place, row in enumerate(self.plain):
                if place in skipped:
                    self.play(FadeIn(skipped[place]), run_time=0.5)
                self.play(FadeIn(row, shift=0.1 * DOWN), run_time=0.5)
                self.play(*(emphasise(copy[1], scale_factor=1.3) for copy in row[0]), run_time=0.6)

    def total(self, cached: bool) -> VGroup:
        count = self.kv["projections_with_cache" if cached else "projections_without_cache"]
        self.numbers_on_screen[f"{'with' if cached else 'without'} cache total"] = count
        text = label(self.say("computed", count=count), 22, "input" if cached else "highlight")
        centre = PANELS["with_cache" if cached else "no_cache"]
        text.move_to([centre + PANEL_WIDTH / 2 - COUNT_WIDTH / 2, self.rows_bottom() - 0.5, 0])
        return text.shift(LEFT * max(0.0, text.get_right()[0] - RIGHT_MARGIN))

    def count_the_waste(self):
        without, with_cache = self.kv["projections_without_cache"], self.kv["projections_with_cache"]
        total = self.total(cached=False)
        y = self.rows_bottom() - 0.1
        rule = Line([PANELS["no_cache"] + 1.8, y, 0], [PANELS["no_cache"] + PANEL_WIDTH / 2, y, 0])
        with self.narration("ch07.total", words=len(self.trace["tokens"]), without=without,
                            repeated=without - with_cache):
            self.play(Create(rule.set_stroke(role_colour("muted"), 1)), FadeIn(total))
            self.play(*(emphasise(copy[1], role="highlight")
                        for row in self.plain for copy in row[0][:-1]))

    def cache_keys_and_values(self):
        heading, self.cached, skipped = self.panel(cached=True)
        total = self.total(cached=True)
        with self.narration("ch07.cache", with_cache=self.kv["projections_with_cache"]):
            self.play(FadeIn(heading))
            for place, row in enumerate(self.cached):
                if place in skipped:
                    self.play(FadeIn(skipped[place]), run_time=0.5)
                self.play(FadeIn(row, shift=0.1 * DOWN), run_time=0.5)
                self.play(emphasise(row[0][-1][1], scale_factor=1.3), run_time=0.5)
            self.play(FadeIn(total))

    def query_meets_stored_keys(self):
        newest = self.cached[-1][0]
        asker = newest[-1][1]
        self.links = VGroup(*(Line(asker.get_bottom(), copy[1][0].get_bottom(), path_arc=-1.0, stroke_width=2,
                                   color=role_colour("query")) for copy in newest[:-1]))
        with self.narration("ch07.query"):
            self.play(Create(self.links), run_time=1.5)
            self.play(*(emphasise(copy[1]) for copy in newest[:-1]))

    def same_result(self):
        difference = self.kv["max_abs_diff"]
        self.numbers_on_screen["max difference"] = difference
        shown = label(f"max |Δ| = {difference:.1e}", 22, "output").move_to([0, self.rows_bottom() - 1.4, 0])
        with self.narration("ch07.same", diff=f"{difference:.1e}"):
            self.play(FadeOut(self.links), FadeIn(shown, shift=0.2 * UP))

    def memory_for_compute(self):
        numbers = self.kv["cached_numbers"]
        self.numbers_on_screen["cached numbers"] = numbers
        stored = VGroup(*(copy[1] for copy in self.cached[-1][0]), self.cached[-1][2])
        # a brace under the stored blocks: a frame around them would run through the words above them
        self.cache_mark = Brace(stored, DOWN, buff=0.06, color=role_colour("output"))
        amount = label(self.say("cache_size", count=numbers), 18, "output").next_to(self.cache_mark, DOWN, buff=0.1)
        with self.narration("ch07.memory", numbers=numbers):
            self.play(GrowFromCenter(self.cache_mark), FadeIn(amount))

"""Chapter 11 — encoder and decoder (Q10): the architecture built up as a diagram, then the real
translation model: encoder self-attention, the decoder writing English under its mask, and the
cross-attention from each English word onto the Chinese words."""

from __future__ import annotations

from manim import (DOWN, LEFT, RIGHT, UP, Arrow, Create, FadeIn, GrowFromCenter, RoundedRectangle,
                   SurroundingRectangle, VGroup)

from scenes.base import ExplainerScene
from scenes.mobjects import WeightGrid, emphasise, label, row_peaks
from scenes.theme import role_colour

BLOCK = {"width": 3.6, "height": 0.7}
COLUMNS = {"encoder": -3.3, "decoder": 3.0}
HALF = 5.0  # width for the cells of one grid when two share the screen


def block(text: str, role: str) -> VGroup:
    frame = RoundedRectangle(corner_radius=0.12, width=BLOCK["width"], height=BLOCK["height"], stroke_width=2,
                             stroke_color=role_colour(role), fill_color=role_colour(role), fill_opacity=0.15)
    return VGroup(frame, label(text, 18).move_to(frame))


class EncoderDecoder(ExplainerScene):
    title_key = "ch11.title"
    narration_lines = 9  # with the question and the recap

    def construct(self):
        self.build_encoder()
        self.build_decoder()
        self.encode_the_source()
        self.decode_under_the_mask()
        self.attend_across()
        self.focus_on_the_object()
        self.count_exact_translations()

    @property
    def pair(self) -> dict:
        return self.trace["encoder_decoder"]

    def stack(self, names: list[tuple[str, str]], x: float, title: str) -> VGroup:
        """Blocks bottom to top in a frame, titled, with "× N" beside it."""
        blocks = VGroup(*(block(self.say(name), role) for name, role in names)).arrange(UP, buff=0.35)
        frame = SurroundingRectangle(blocks, buff=0.25, corner_radius=0.15, color=role_colour("muted"))
        group = VGroup(frame, blocks, label(self.say(title), 22).next_to(frame, UP, buff=0.15),
                       label(self.say("stacked"), 16, "muted").next_to(frame, RIGHT if x > 0 else LEFT, buff=0.15))
        return group.move_to([x, -0.2, 0])

    def build_encoder(self):
        self.title = self.show_title()
        self.encoder = self.stack([("self_attention", "key"), ("feed_forward", "input")], COLUMNS["encoder"], "encoder")
        source = label(self.say("source"), 18, "muted").next_to(self.encoder[0], DOWN, buff=0.5)
        self.source_arrow = VGroup(source, Arrow(source.get_top(), self.encoder[0].get_bottom(), buff=0.05,
                                                 color=role_colour("muted")))
        with self.narration("ch11.encoder"):
            self.play(Create(self.encoder[0]), FadeIn(self.encoder[2]), FadeIn(self.source_arrow))
            for part in self.encoder[1]:
                self.play(GrowFromCenter(part), run_time=0.6)
            self.play(FadeIn(self.encoder[3]))

    def build_decoder(self):
        self.decoder = self.stack([("masked_self_attention", "query"), ("cross_attention", "highlight"),
                                   ("feed_forward", "input")], COLUMNS["decoder"], "decoder")
        written = label(self.say("written"), 18, "muted").next_to(self.decoder[0], DOWN, buff=0.5)
        after = label(self.say("next_word"), 18, "output").next_to(self.decoder[2], UP, buff=0.5)
        feed = Arrow(self.encoder[0].get_right(), self.decoder[1][1].get_left(), buff=0.1, color=role_colour("highlight"))
        with self.narration("ch11.decoder"):
            self.play(Create(self.decoder[0]), FadeIn(self.decoder[2]),
                      FadeIn(written), FadeIn(Arrow(written.get_top(), self.decoder[0].get_bottom(), buff=0.05,
                                                    color=role_colour("muted"))))
            for part in self.decoder[1]:
                self.play(GrowFromCenter(part), run_time=0.6)
            self.play(Create(feed), emphasise(self.decoder[1][1]), FadeIn(self.decoder[3]))
            self.play(FadeIn(after, shift=0.2 * UP),
                      FadeIn(Arrow(self.decoder[2].get_top(), after.get_bottom(), buff=0.08, color=role_colour("output"))))

    def grid(self, name: str, weights, rows: list[str], columns: list[str], causal: bool, cell: float) -> WeightGrid:
        return self.weight_grid(name, weights, rows, columns, cell, causal, 15, 18)

    def encode_the_source(self):
        self.clear_stage()
        source = self.pair["source_tokens"]
        self.encoder_grid = self.grid("encoder", self.pair["encoder_weights"], source, source, False,
                                      min(0.62, HALF / len(source)))
        self.encoder_grid.move_to([-3.6, -0.3, 0])
        heading = VGroup(self.word("encoder", 22), self.word("self_attention", 20, "key")).arrange(RIGHT, buff=0.3)
        self.encoder_heading = heading.next_to(self.encoder_grid, UP, buff=0.25)
        self.keep_below_title(VGroup(heading, self.encoder_grid))
        line = {"sentence": "ch11.encode", "twin": "ch11.encode_twin", "default": "ch11.encode_default"}
        with self.narration(line[self.pair["source_from"]], source="".join(source)):
            self.play(FadeIn(heading), FadeIn(self.encoder_grid))

    def decode_under_the_mask(self):
        target = self.pair["target_tokens"]
        cell = min(0.62, HALF / len(target))
        self.decoder_grid = self.grid("decoder", self.pair["decoder_weights"], target, ["<s>"] + target[:-1], True, cell)
        self.decoder_grid.move_to([3.4, -0.3, 0])
        heading = VGroup(self.word("decoder", 22), self.word("masked_self_attention", 20, "query"))
        self.decoder_heading = heading.arrange(RIGHT, buff=0.3).next_to(self.decoder_grid, UP, buff=0.25)
        # the taller grid's heading comes down to the encoder's line, so the two read as one row
        self.keep_below(VGroup(heading, self.decoder_grid), self.encoder_heading.get_y() + heading.height / 2)
        with self.narration("ch11.decode"):
            self.play(FadeIn(heading), FadeIn(self.decoder_grid.column_labels))
            for i in range(len(target)):
                self.play(FadeIn(self.decoder_grid.row_labels[i], shift=0.2 * RIGHT),
                          FadeIn(self.decoder_grid.cells[i]), run_time=0.6)

    def attend_across(self):
        self.clear_stage()
        source, target = self.pair["source_tokens"], self.pair["target_tokens"]
        self.cross = self.grid("cross", self.pair["cross_weights"], target, source, False, min(0.75, 5.2 / len(target)))
        self.cross.move_to([-1.0, -0.4, 0])
        heading = self.word("cross_attention", 22, "highlight").next_to(self.cross, UP, buff=0.25)
        self.keep_below_title(VGroup(heading, self.cross))
        peaks = VGroup(*(SurroundingRectangle(self.cross.cell(i, j), buff=0.02, color=role_colour("output"),
                                              stroke_width=4)
                         for i, j in enumerate(row_peaks(self.pair["cross_weights"]))))
        with self.narration("ch11.cross"):
            self.play(FadeIn(heading), FadeIn(self.cross))
            self.play(Create(peaks), run_time=1.5)

    def focus_on_the_object(self):
        """The last English word: which Chinese word it looked at most."""
        row, peak = self.pair["cross_weights"][-1], row_peaks(self.pair["cross_weights"])[-1]
        word, source = self.pair["target_tokens"][-1], self.pair["source_tokens"][peak]
        line = "ch11.focus" if peak == 0 else "ch11.focus_other"
        with self.narration(line, word=word, source=source, weight=f"{row[peak]:.3f}"):
            self.play(emphasise(self.cross.row_labels[-1]), emphasise(self.cross.column_labels[peak]),
                      emphasise(self.cross.cell(len(self.pair["target_tokens"]) - 1, peak)))

    def count_exact_translations(self):
        share = self.pair["exact_match"]
        self.numbers_on_screen["exact match"] = share
        text = f"{share:.0%}"
        reference = self.pair["reference_tokens"]
        missed = reference is not None and reference != self.pair["target_tokens"]
        shown = VGroup(label(text, 40, "output"), self.word("exact_label", 18, "muted"))
        if missed:  # said, and written too, for a clip watched without sound or subtitles
            shown.add(self.word("missed_label", 18, "highlight"))
        shown.arrange(DOWN, buff=0.2).next_to(self.cross, RIGHT, buff=1.2)
        with self.narration("ch11.exact_missed" if missed else "ch11.exact", share=text):
            self.play(FadeIn(shown, scale=1.3))

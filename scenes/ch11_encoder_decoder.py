"""Chapter 11 — encoder and decoder (Q10): the architecture built up big, block by block; then the
real translation model: each diagram gives way to the weights its attention block produces (the
encoder's self-attention over the Chinese beside the decoder still drawn, then the decoder writing
English row by row under its mask), the cross-attention from each English word onto the Chinese with
each row's peak framed; it ends on that grid beside the sentence translated and the share of unseen
sentences translated exactly."""

from __future__ import annotations

from manim import (
    DOWN,
    LEFT,
    ORIGIN,
    RIGHT,
    UP,
    Arrow,
    Create,
    FadeIn,
    FadeOut,
    FadeTransform,
    GrowArrow,
    GrowFromCenter,
    LaggedStart,
    RoundedRectangle,
    SurroundingRectangle,
    Transform,
    TransformFromCopy,
    VGroup,
)

from scenes.base import LEFT_MARGIN, RIGHT_MARGIN, ExplainerScene
from scenes.mobjects import emphasise, label, row_peaks
from scenes.mobjects.patterns import AttentionPattern, pattern_cell, pattern_numbers
from scenes.strings import written as written_sentence
from scenes.theme import HEADING, LABEL, OUTLINE_WIDTH, SMALL, TITLE, role_colour

BLOCK = {"width": 5.0, "height": 0.95, "size": LABEL}  # beside the other stack
BIG_BLOCK = {"width": 10.5, "height": 1.6, "size": TITLE}  # the encoder alone: the frame's width
COLUMNS = {"encoder": -3.55, "decoder": 3.55}
TOP = 2.9  # the pictures' top: clear of the title's band
BOTTOM = -3.1  # above the recap's band
LOW = -3.85  # a tall grid mid-chapter may reach this far down (the recap comes later)
WIDTH = RIGHT_MARGIN - LEFT_MARGIN
HEADED = 1.35  # room over two grids side by side for their headings
HEADING_GAP = 0.6  # between a grid shown alone and its heading
HEADING_ROOM = 5.2  # right of a grid shown alone: its heading
WIDE_CELL = 1.25  # a grid alone may widen its cells this far, to fill the width beside its heading
SIDE_GAP = 0.6  # between the cross grid and the translation beside it
NAME_GAP = 0.35  # under the cross grid's name, over the translation
SENTENCE_WIDTH = 12.5  # the translated sentence wraps at this width
SENTENCE, SHARE = (54, 42, 36, LABEL), (96, 84, 72)  # the last picture's sentences and share, as big as the room allows


def block(text: str, role: str, shape: dict = BLOCK) -> VGroup:
    frame = RoundedRectangle(
        corner_radius=0.12,
        width=shape["width"],
        height=shape["height"],
        stroke_width=OUTLINE_WIDTH,
        stroke_color=role_colour(role),
        fill_color=role_colour(role),
        fill_opacity=0.15,
    )
    return VGroup(frame, label(text, shape["size"]).move_to(frame))


def lines_of(words: list, width: float, gap: float = 0.25) -> VGroup:
    """Words (texts) in lines no wider than ``width``, left to right."""
    lines, line, used = VGroup(), VGroup(), 0.0
    for word in words:
        if len(line) and used + gap + word.width > width:
            lines.add(line.arrange(RIGHT, buff=gap, aligned_edge=DOWN))
            line, used = VGroup(), 0.0
        used += (gap if len(line) else 0.0) + word.width
        line.add(word)
    lines.add(line.arrange(RIGHT, buff=gap, aligned_edge=DOWN))
    return lines.arrange(DOWN, buff=0.25)


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

    def stack(self, names: list[tuple[str, str]], x: float, title: str, shape: dict = BLOCK) -> VGroup:
        """Blocks bottom to top in a frame, its name and "× N" at the frame's top, inside it."""
        big = shape is BIG_BLOCK
        blocks = VGroup(*(block(self.say(name), role, shape) for name, role in names))
        blocks.arrange(UP, buff=0.35 if big else 0.3)
        header = VGroup(
            self.word(title, TITLE if big else HEADING), self.word("stacked", LABEL if big else SMALL, "muted")
        ).arrange(RIGHT, buff=0.3, aligned_edge=DOWN)
        inside = VGroup(blocks, header).arrange(UP, buff=0.3)
        frame = SurroundingRectangle(inside, buff=0.25, corner_radius=0.15, color=role_colour("muted"))
        return VGroup(frame, blocks, header).move_to([x, 0, 0])

    def fed_encoder(self, shape: dict) -> VGroup:
        """The encoder's stack and, under it, the Chinese going in."""
        encoder = self.stack([("self_attention", "key"), ("feed_forward", "input")], 0, "encoder", shape)
        source = self.word("source", HEADING if shape is BIG_BLOCK else LABEL, "muted")
        source.next_to(encoder[0], DOWN, buff=0.55)
        return VGroup(
            encoder,
            VGroup(source, Arrow(source.get_top(), encoder[0].get_bottom(), buff=0.05, color=role_colour("muted"))),
        )

    def build_encoder(self):
        """The encoder alone, as wide as the frame and as high as the picture, its blocks one by one."""
        self.title = self.show_title()
        alone = self.fed_encoder(BIG_BLOCK).move_to([0, 0, 0])
        alone.shift((TOP - alone.get_top()[1]) * UP)
        self.encoder_aside = self.fed_encoder(BLOCK)  # where it stands beside the decoder
        self.encoder_aside.set_x(COLUMNS["encoder"])
        self.encoder_aside.shift((-2.35 - self.encoder_aside[0].get_bottom()[1]) * UP)
        self.encoder, self.source_arrow = alone
        with self.narration("ch11.encoder"):
            self.play(Create(self.encoder[0]), FadeIn(self.encoder[2]), FadeIn(self.source_arrow))
            for part in self.encoder[1]:
                self.play(GrowFromCenter(part), run_time=0.6)

    def build_decoder(self):
        """The encoder moves aside while the decoder's frame comes in beside it; its blocks grow, the
        encoder's output feeds the middle one."""
        self.decoder = self.stack(
            [("masked_self_attention", "query"), ("cross_attention", "highlight"), ("feed_forward", "input")],
            COLUMNS["decoder"],
            "decoder",
        )
        encoder = self.encoder_aside[0]
        self.decoder.align_to(encoder, DOWN)
        written = self.word("written", LABEL, "muted").next_to(self.decoder[0], DOWN, buff=0.55)
        after = self.word("next_word", LABEL, "output").next_to(self.decoder[0], UP, buff=0.55)
        middle = self.decoder[1][1].get_y()
        self.feed = Arrow(
            [encoder.get_right()[0], middle, 0],
            [self.decoder[0].get_left()[0], middle, 0],
            buff=0.1,
            color=role_colour("highlight"),
            stroke_width=6,
        )
        written_arrow = Arrow(written.get_top(), self.decoder[0].get_bottom(), buff=0.05, color=role_colour("muted"))
        after_arrow = Arrow(self.decoder[0].get_top(), after.get_bottom(), buff=0.08, color=role_colour("output"))
        self.decoder_parts = VGroup(self.decoder, written, written_arrow, after, after_arrow)
        with self.narration("ch11.decoder"):
            self.play(
                Transform(VGroup(self.encoder, self.source_arrow), self.encoder_aside),
                Create(self.decoder[0]),
                FadeIn(self.decoder[2]),
                FadeIn(written),
                GrowArrow(written_arrow),
            )
            self.play(LaggedStart(*(GrowFromCenter(part) for part in self.decoder[1]), lag_ratio=0.5), run_time=1.4)
            self.play(GrowArrow(self.feed), emphasise(self.decoder[1][1]))
            self.play(FadeIn(after, shift=0.2 * UP), GrowArrow(after_arrow))

    def pattern(
        self,
        name: str,
        weights,
        rows: list[str],
        columns: list[str],
        causal: bool,
        cell: float,
        inside: bool,
        pitch: float | None = None,
    ) -> AttentionPattern:
        """A weight grid, its written weights recorded as "name i j"."""
        numbers = pattern_numbers(weights, causal, inside, lambda i, j, w: self.shown(f"{name} {i} {j}", w, 2, SMALL))
        return AttentionPattern(
            weights,
            rows,
            columns,
            numbers,
            cell,
            inside,
            causal=causal,
            keep=sorted(set(row_peaks(weights, causal))),
            pitch=pitch,
        )

    def side_by_side(self) -> bool:
        """Whether the encoder's and the decoder's grids both fit, numbers inside, in half the width."""
        source, target = self.pair["source_tokens"], self.pair["target_tokens"]
        half, high = WIDTH / 2 - 0.3, TOP - HEADED - LOW
        return (
            pattern_cell(len(source), len(source), half, high, source)[2]
            and pattern_cell(len(target), len(target), half, high, target)[2]
        )

    def alone(
        self,
        name: str,
        weights,
        rows: list[str],
        columns: list[str],
        causal: bool,
        heading: VGroup,
        bottom: float = LOW,
    ):
        """A grid alone at the left, filling the height down to ``bottom``, room for its heading at the
        right; when its numbers fit inside, its cells widen to fill the width beside the heading."""
        room = max(HEADING_ROOM, heading.width + HEADING_GAP)
        cell, pitch, inside = pattern_cell(len(rows), len(columns), WIDTH - room, TOP - bottom, rows)
        if inside:
            cell = max(
                cell, pattern_cell(len(rows), len(columns), WIDTH - room, float("inf"), rows, largest=WIDE_CELL)[0]
            )
        grid = self.pattern(name, weights, rows, columns, causal, cell, inside, pitch)
        grid.next_to([LEFT_MARGIN, 0, 0], RIGHT, buff=0)
        return grid.shift((TOP - grid.get_top()[1]) * UP)

    def heading(
        self, name: tuple[str, float, str], kind: tuple[str, float, str], note: tuple[str, float, str]
    ) -> VGroup:
        """A grid's name and kind (on one line over a grid, one under the other beside it) and a note under them."""
        words = VGroup(*(self.word(key, size, role) for key, size, role in (name, kind)))
        if self.two_grids:
            words.arrange(RIGHT, buff=0.3, aligned_edge=DOWN)
        else:
            words.arrange(DOWN, buff=0.2, aligned_edge=LEFT)
        return VGroup(words, self.word(*note)).arrange(DOWN, buff=0.2, aligned_edge=ORIGIN if self.two_grids else LEFT)

    @staticmethod
    def centre(picture: VGroup) -> None:
        """A grid and its heading, as wide as they need, in the middle of the width."""
        picture.shift((RIGHT_MARGIN - picture.get_right()[0]) / 2 * RIGHT)

    def encode_the_source(self):
        """The encoder gives way to its self-attention's weights, beside the decoder still drawn (a long
        sentence's grid takes the whole picture)."""
        source = self.pair["source_tokens"]
        self.two_grids = self.side_by_side()
        weights = self.pair["encoder_weights"]
        self.encoder_heading = self.heading(
            ("encoder", HEADING, "text"), ("self_attention", HEADING, "key"), ("ch11.no_mask", LABEL, "muted")
        )
        if self.two_grids:  # in the encoder's half, where it stays when the decoder's grid comes
            half = WIDTH / 2 - 0.3
            cell, _, _ = pattern_cell(len(source), len(source), half, TOP - HEADED - LOW, source, largest=1.3)
            self.encoder_grid = self.pattern("encoder", weights, source, source, False, cell, True)
            self.encoder_grid.move_to([LEFT_MARGIN + half / 2, 0, 0])
            self.encoder_grid.shift((TOP - HEADED - self.encoder_grid.get_top()[1]) * UP)
        else:
            self.encoder_grid = self.alone("encoder", weights, source, source, False, self.encoder_heading)
        self.place_heading(self.encoder_heading, self.encoder_grid)
        if not self.two_grids:
            self.centre(VGroup(self.encoder_grid, self.encoder_heading))
        line = {"sentence": "ch11.encode", "twin": "ch11.encode_twin", "default": "ch11.encode_default"}
        with self.narration(line[self.pair["source_from"]], source=written_sentence(source, "zh")):
            if self.two_grids:
                attention, rest = self.encoder[1][0], [self.encoder[0], self.encoder[1][1], self.encoder[2]]
                self.play(
                    FadeTransform(attention, self.encoder_grid),
                    *(FadeOut(m) for m in rest),
                    FadeOut(self.source_arrow),
                    FadeOut(self.feed),
                    FadeIn(self.encoder_heading),
                    run_time=1.4,
                )
            else:
                self.play(
                    *(FadeOut(m) for m in self.mobjects if m is not self.title),
                    FadeIn(self.encoder_heading),
                    FadeIn(self.encoder_grid),
                )

    def place_heading(self, heading: VGroup, grid: AttentionPattern) -> None:
        """Over the grid, on one line with the other grid's heading, when the two stand side by side;
        otherwise right of the grid, at the same height for both."""
        if self.two_grids:
            heading.move_to([grid.cells.get_x(), TOP - heading.height / 2, 0])
            heading.shift(
                (max(LEFT_MARGIN - heading.get_left()[0], 0) + min(RIGHT_MARGIN - heading.get_right()[0], 0)) * RIGHT
            )  # kept inside the margins
        else:
            heading.next_to(grid, RIGHT, buff=HEADING_GAP).set_y(TOP - HEADED - heading.height / 2)

    def decode_under_the_mask(self):
        """The decoder's diagram gives way to its masked self-attention, written row by row."""
        target = self.pair["target_tokens"]
        weights, columns = self.pair["decoder_weights"], ["<s>"] + target[:-1]
        if self.two_grids:
            half = WIDTH / 2 - 0.3
            cell, _, _ = pattern_cell(len(target), len(target), half, TOP - HEADED - LOW, target, largest=1.3)
            self.decoder_grid = self.pattern("decoder", weights, target, columns, True, cell, True)
            self.decoder_grid.move_to([RIGHT_MARGIN - half / 2, 0, 0])
            self.decoder_grid.shift((TOP - HEADED - self.decoder_grid.get_top()[1]) * UP)  # under the headings' line
        self.decoder_heading = self.heading(
            ("decoder", HEADING, "text"), ("masked_self_attention", HEADING, "query"), ("ch11.masked", LABEL, "muted")
        )
        if not self.two_grids:
            self.decoder_grid = self.alone("decoder", weights, target, columns, True, self.decoder_heading)
        self.place_heading(self.decoder_heading, self.decoder_grid)
        grid = self.decoder_grid
        if not self.two_grids:
            self.centre(VGroup(self.decoder_grid, self.decoder_heading))
        with self.narration("ch11.decode"):
            leaving = self.decoder_parts if self.two_grids else VGroup(self.encoder_grid, self.encoder_heading)
            self.play(FadeOut(leaving), FadeIn(self.decoder_heading), FadeIn(grid.column_labels), FadeIn(grid.elided))
            for i in range(len(target)):
                self.play(FadeIn(grid.row(i), shift=0.2 * RIGHT), run_time=0.6)

    def attend_across(self):
        """The cross-attention grid, filling the picture above the recap's strip (it stays for the last
        picture), while the two grids leave."""
        source, target = self.pair["source_tokens"], self.pair["target_tokens"]
        self.two_grids = False
        self.cross_heading = self.heading(
            ("cross_attention", TITLE, "highlight"),
            ("ch11.rows_english", HEADING, "muted"),
            ("ch11.columns_chinese", HEADING, "muted"),
        )
        self.cross = self.alone(
            "cross", self.pair["cross_weights"], target, source, False, self.cross_heading, bottom=BOTTOM
        )
        self.place_heading(self.cross_heading, self.cross)  # at the left: the translation comes beside it
        peaks = self.cross.peak_frames(row_peaks(self.pair["cross_weights"]))
        leaving = [m for m in self.mobjects if m is not self.title]
        with self.narration("ch11.cross"):
            self.play(*(FadeOut(m) for m in leaving), FadeIn(self.cross_heading), FadeIn(self.cross))
            self.play(Create(peaks), run_time=1.5)

    def focus_on_the_object(self):
        """The last English word: which Chinese word it looked at most."""
        row, peak = self.pair["cross_weights"][-1], row_peaks(self.pair["cross_weights"])[-1]
        word, source = self.pair["target_tokens"][-1], self.pair["source_tokens"][peak]
        last = len(self.pair["target_tokens"]) - 1
        looked_at = [emphasise(self.cross.column_label(peak))] if self.cross.column_label(peak) else []
        line = "ch11.focus" if peak == 0 else "ch11.focus_other"
        with self.narration(line, word=word, source=source, weight=f"{row[peak]:.3f}"):
            self.play(emphasise(self.cross.row_labels[-1]), *looked_at, emphasise(self.cross.square(last, peak)))

    @property
    def missed(self) -> bool:
        """Whether the translator got this sentence wrong (known when the sentence has a reference)."""
        reference = self.pair["reference_tokens"]
        return reference is not None and reference != self.pair["target_tokens"]

    def translation(self, width: float, height: float, aligned_edge) -> VGroup | None:
        """The Chinese, an arrow named by the translator, the English it wrote and the share of unseen
        sentences translated exactly, one under the other, at the largest size that fits in
        ``width`` × ``height``; None if even the smallest does not."""
        share = self.pair["exact_match"]
        said = VGroup(self.word("exact_label", HEADING, "muted"))
        if self.missed:  # said, and written too, for a clip watched without sound or subtitles
            said.add(self.word("missed_label", LABEL, "highlight"))
        said.arrange(DOWN, aligned_edge=LEFT, buff=0.2)
        for size in SHARE:  # its label beside it: as big as the width allows, else under it
            measured = VGroup(label(f"{share:.0%}", size, "output"), said).arrange(RIGHT, buff=0.4)
            if measured.width <= width:
                break
        else:
            measured = VGroup(label(f"{share:.0%}", SHARE[0], "output"), said).arrange(
                DOWN, buff=0.2, aligned_edge=LEFT
            )
        reach = 0.75 if aligned_edge is ORIGIN else 0.5
        arrow = Arrow(reach * UP, reach * DOWN, color=role_colour("muted"), stroke_width=8)
        translator = self.word("ch11.translator", LABEL, "muted")
        for size in SENTENCE:  # the largest at which a long sentence still fits
            source = lines_of([label(written_sentence(self.pair["source_tokens"], "zh"), size, "key")], width)
            english = lines_of([label(w, size, "output") for w in self.pair["target_tokens"]], width)
            english.arrange(DOWN, buff=0.25, aligned_edge=aligned_edge)
            picture = VGroup(source, arrow, english, measured).arrange(DOWN, buff=0.35, aligned_edge=aligned_edge)
            if aligned_edge is LEFT:
                arrow.shift(0.3 * RIGHT)
            translator.next_to(arrow, RIGHT, buff=0.2)
            if (
                picture.height <= height
                and source.width <= width
                and max(picture.width, translator.get_right()[0] - picture.get_left()[0]) <= width
            ):
                return picture.add(translator)
        return None

    def count_exact_translations(self):
        """The last picture: the cross grid (what was weighed) and beside it the Chinese, the English the
        translator wrote (its words coming from the grid's rows) and how often it translates an unseen
        sentence exactly. A sentence too long for that column leaves the whole picture to the sentences."""
        share = self.pair["exact_match"]
        self.numbers_on_screen["exact match"] = share
        name, notes = self.cross_heading[0][0], [self.cross_heading[0][1], self.cross_heading[1]]
        left = self.cross.get_right()[0] + SIDE_GAP
        room = TOP - BOTTOM - name.height - NAME_GAP
        picture = None
        if self.cross.get_bottom()[1] >= BOTTOM - 1e-6:
            picture = self.translation(RIGHT_MARGIN - left, room, LEFT)
        if picture is not None:  # beside the grid, under the grid's name
            named = name.copy().move_to([left + name.width / 2, TOP - name.height / 2, 0])
            picture.move_to([left + picture.width / 2, (named.get_bottom()[1] - NAME_GAP + BOTTOM) / 2, 0])
            moves = [*(FadeOut(note) for note in notes), name.animate.move_to(named)]
        else:
            picture = self.translation(SENTENCE_WIDTH, TOP - BOTTOM, ORIGIN)
            picture.move_to([0, (TOP + BOTTOM) / 2, 0])
            moves = [FadeOut(m) for m in self.mobjects if m is not self.title]
        source, arrow, english, measured, translator = picture
        words = [word for line in english for word in line]
        text = f"{share:.0%}"
        with self.narration("ch11.exact_missed" if self.missed else "ch11.exact", share=text):
            self.play(
                *(TransformFromCopy(self.cross.row_labels[i], word) for i, word in enumerate(words)),
                *moves,
                FadeIn(source, shift=0.2 * DOWN),
                GrowArrow(arrow),
                FadeIn(translator),
                run_time=1.5,
            )
            self.play(FadeIn(measured, scale=1.3))

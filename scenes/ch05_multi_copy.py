"""Chapter 5 — multi-copy inference (seed 2.3–2.4): one network copy per word, side by side across the
frame, each row named at its left; the current word's Query linked to every copy's Key, a score where
they meet; softmax turns the scores into bars; the weighted values fly up and stack into the sum; the
prediction. It ends on the current word's Query linked to the largest-weight Key (and the subject's
copy, where the largest goes to another word), with the weight, the sum and the prediction in view."""

from __future__ import annotations

from manim import (
    DOWN,
    RIGHT,
    UP,
    Arrow,
    Create,
    FadeIn,
    FadeOut,
    FadeTransform,
    GrowArrow,
    GrowFromEdge,
    LaggedStart,
    Line,
    Mobject,
    ReplacementTransform,
    VGroup,
)

from scenes.base import LEFT_MARGIN, RIGHT_MARGIN, ExplainerScene
from scenes.layout import drawn_slots
from scenes.mobjects import (
    NetworkCopy,
    NodeLayer,
    bar,
    emphasise,
    fitted,
    label,
    row_peaks,
    scale_group,
    size_to_fit,
    tag,
    weighed,
)
from scenes.theme import LABEL, SMALL, role_colour

# Where each row of every copy stands, bottom to top: the word, its input, then the three groups the
# input feeds; the score (then the weight and its bar) stands between the Key it comes from and the
# values it weighs; the sum of the weighted values and the prediction stand on top.
ROWS = {"word": -2.75, "input": -2.05, "query": -1.2, "key": -0.45, "value": 1.55}
WEIGHT_Y = 0.15
BAR_HEIGHT = 0.8
SUM_Y = 2.55
ROOM = 8  # slots side by side at most: a copy each, or one for a run of middle words of a long sentence
WIDEST_COPY = 3.8
TAG_BUFF = 0.3  # between the row names and the first copy
WORD_ROOM = 0.92  # of a slot's width, for its word
ARROW_LENGTH = 1.5  # from the sum to the prediction, at least: the name of the layers between stands over it


class MultiCopyInference(ExplainerScene):
    title_key = "ch05.title"
    narration_lines = 10  # with the question and the recap
    query_index: int | None = None  # the current word; None: the word before the last

    def construct(self):
        self.show_copies()
        self.compute_keys()
        self.query_meets_keys()
        self.softmax_weights()
        self.scale_values()
        self.add_values()
        self.predict()
        self.focus_on_key()

    @property
    def query(self) -> int:
        return len(self.trace["tokens"]) - 2 if self.query_index is None else self.query_index

    @property
    def key(self) -> int:
        """The word the current word gives the largest weight."""
        return row_peaks(self.trace["attention"]["weights"], causal=True)[self.query]

    @property
    def subject(self) -> int | None:
        """The word chapter 3 follows (the earliest that tells the sentence apart), where it is neither
        the largest weight's word nor the current word: the last step then names it as well."""
        followed = self.trace["rnn"]["followed_index"]
        return None if followed in (self.key, self.query) else followed

    @property
    def row(self) -> list[float]:
        return self.trace["attention"]["weights"][self.query]

    def show_copies(self):
        """A copy per word up to the current one, as many side by side as their words allow; a long
        sentence's middle words share one "⋯" slot (the first words, the largest weight's word, the
        subject and the last words keep their copies). Each row is named at its left."""
        self.title = self.show_title()
        self.tags = self.row_tags()
        left = self.tags.get_right()[0] + TAG_BUFF
        slots, width = self.slots(RIGHT_MARGIN - left)
        start = (left + RIGHT_MARGIN - len(slots) * width) / 2  # fewer, wider copies stand in the middle
        places = {
            slot if isinstance(slot, int) else slot.start: start + (place + 0.5) * width
            for place, slot in enumerate(slots)
        }
        self.positions = [slot for slot in slots if isinstance(slot, int)]
        self.gap_words = [slot for slot in slots if isinstance(slot, range)]
        self.copies = self.built_copies(self.positions, [places[j] for j in self.positions], width)
        self.gaps = VGroup(*(self.gap(words, width).set_x(places[words.start]) for words in self.gap_words))
        with self.narration("ch05.copies"):
            self.play(
                *(copy.create() for copy in self.copies),
                *(FadeIn(gap) for gap in self.gaps),
                LaggedStart(*(FadeIn(name, shift=0.2 * RIGHT) for name in self.tags), lag_ratio=0.15),
                run_time=2.5,
            )

    def row_tags(self) -> VGroup:
        """Each row's name at the frame's left, level with its row, right-aligned towards the copies."""
        names = VGroup(
            *(
                label(self.say(key), LABEL, role).set_y(ROWS[role])
                for key, role in (("input", "input"), ("query", "query"), ("key", "key"), ("ch05.value_row", "value"))
            )
        )
        right = LEFT_MARGIN + max(name.width for name in names)
        for name in names:
            name.align_to([right, 0, 0], RIGHT)
        return names

    def weight_row_tag(self, key: str) -> Mobject:
        """The name of the row between the Keys and the values: the scores', then the weights'."""
        return label(self.say(key), LABEL, "highlight").align_to(self.tags, RIGHT).set_y(WEIGHT_Y)

    def slots(self, room: float) -> tuple[list[int | range], float]:
        """The slots drawn and their width: as many (up to ROOM) as leave each drawn word room at the
        least size; a word too wide even in the fewest slots is shrunk to fit its own."""
        kept = [j for j in (self.key, self.subject, self.query) if j is not None]
        widths: dict[int, float] = {}  # each word's width at the least size, measured once
        for count in range(ROOM, 2, -1):
            slots = drawn_slots(self.query + 1, kept, count)
            width = min(WIDEST_COPY, room / len(slots))
            for j in slots:
                if isinstance(j, int) and j not in widths:
                    widths[j] = label(self.trace["tokens"][j], SMALL).width
            if max(widths[j] for j in slots if isinstance(j, int)) <= WORD_ROOM * width:
                break
        return slots, width

    def built_copies(self, positions: list[int], places: list[float], width: float) -> list[NetworkCopy]:
        """The copies of the words at ``positions``, centred on ``places``, each ``width`` wide; the
        other words' Query rows are faint: only the current word's asks."""
        attention, tokens = self.trace["attention"], self.trace["tokens"]
        spacing = min(0.42, 0.85 * width / len(attention["inputs"][0]))  # the widest row fills 85 %
        fit = size_to_fit([tokens[j] for j in positions], LABEL, WORD_ROOM * width)
        size = max(SMALL, fit)
        copies = []
        for j, x in zip(positions, places):
            copy = NetworkCopy(
                tokens[j],
                attention["inputs"][j],
                attention["queries"][j],
                attention["keys"][j],
                attention["values"][j],
                radius=0.37 * spacing,
                spacing=spacing,
                word_size=size,
                heights=ROWS,
                edge_width=1.2,
                edge_opacity=0.3,
            ).set_x(x)
            if fit < SMALL:  # a word too wide at the least size (a user's corpus) shrinks on its own
                fitted(copy.word, WORD_ROOM * width)
            if j != self.query:
                copy.query_nodes.set_opacity(0.15)
                copy.edges_to("query").set_opacity(0.05)
            copies.append(copy)
        return copies

    def gap(self, words: range, width: float) -> VGroup:
        """The slot of a run of middle words: "⋯" where their copies would stand, and how many words."""
        dots = label("⋯", 40, "muted").set_y(ROWS["key"])
        count = fitted(label(self.say("more_words", n=len(words)), SMALL, "muted"), 0.95 * width)
        return VGroup(dots, count.set_y(ROWS["word"]))

    def compute_keys(self):
        with self.narration("ch05.keys"):
            self.play(*(copy.forward() for copy in self.copies), run_time=1.6)

    def link(self, asking: NetworkCopy, asked: NetworkCopy, width: float = 3) -> Line:
        """The current word's Query row joined to a copy's Key row."""
        return Line(
            asking.query_nodes.get_top(), asked.key_nodes.get_bottom(), stroke_width=width, color=role_colour("query")
        )

    def query_meets_keys(self):
        """Lines from the current word's Query to every copy's Key; each score rises from where its
        line meets the Key, into the row between the Key and the values it will weigh."""
        q, asking = self.query, self.copy_of(self.query)
        links = VGroup(*(self.link(asking, copy) for copy in self.copies))
        self.scores = VGroup(
            *(
                backed(
                    self.shown(f"score {j}", self.trace["attention"]["scores"][q][j], size=SMALL, role="highlight")
                ).move_to([copy.get_x(), WEIGHT_Y, 0])
                for j, copy in zip(self.positions, self.copies)
            )
        )
        self.weight_tag = self.weight_row_tag("score")
        with self.narration("ch05.query", query=self.trace["tokens"][q]):
            self.play(emphasise(asking.query_nodes.nodes, role="query"))
            self.play(Create(links), run_time=1.5)
            self.play(
                *(emphasise(copy.key_nodes.nodes, role="key") for copy in self.copies),
                *(
                    FadeIn(score, target_position=copy.key_nodes.get_bottom(), scale=0.3)
                    for score, copy in zip(self.scores, self.copies)
                ),
                FadeIn(self.weight_tag, shift=0.2 * RIGHT),
            )
        self.play(FadeOut(links))

    def softmax_weights(self):
        """Each score becomes its weight, and the weight grows into a bar towards the values."""
        row = self.row
        self.weights = VGroup(
            *(
                backed(self.shown(f"weight {j}", row[j], digits=3, size=SMALL, role="highlight")).move_to(score)
                for j, score in zip(self.positions, self.scores)
            )
        )
        self.bars = VGroup(*(self.weight_bar(row[j], weight) for j, weight in zip(self.positions, self.weights)))
        sums = [sum(row[j] for j in words) for words in self.gap_words]  # a run of middle words: together
        self.shared = VGroup(
            *(
                backed(
                    self.shown(f"weight {words.start}-{words.stop - 1}", total, digits=3, size=SMALL, role="highlight")
                ).move_to([gap.get_x(), WEIGHT_Y, 0])
                for words, total, gap in zip(self.gap_words, sums, self.gaps)
            )
        )
        self.shared_bars = VGroup(*(self.weight_bar(total, text) for total, text in zip(sums, self.shared)))
        weight_tag = self.weight_row_tag("weight")
        with self.narration("ch05.softmax"):
            self.play(
                *(FadeTransform(s, w) for s, w in zip(self.scores, self.weights)),
                FadeTransform(self.weight_tag, weight_tag),
                *(FadeIn(t) for t in self.shared),
                run_time=1.5,
            )
            self.play(*(GrowFromEdge(b, DOWN) for b in [*self.bars, *self.shared_bars]))
        self.weight_tag = weight_tag

    @staticmethod
    def weight_bar(weight: float, under: Mobject) -> Mobject:
        return bar(weight, BAR_HEIGHT, width=0.4).next_to(under, UP, buff=0.12)

    def scale_values(self):
        with self.narration("ch05.scale"):
            self.play(*(scale_group(copy.value_nodes, self.row[j]) for j, copy in zip(self.positions, self.copies)))

    def add_values(self):
        """Each copy's weighted value nodes fly up onto the sum's nodes, one place each, and become
        the sum. The sum stands on top, named at its left, with room at its right for the prediction."""
        mixed = self.trace["attention"]["mixed"][self.query]
        self.total = NodeLayer(mixed, "value", radius=0.18, spacing=0.5, direction=RIGHT)
        self.total_tag = tag(self.total, self.say("sum"), "value", size=LABEL)
        word, p = self.trace["attention"]["predictions"][self.query][0]
        self.guess = VGroup(label(word, LABEL, "output"), self.shown("p prediction", p, 4, SMALL, "output"))
        self.layers = label(self.say("following"), SMALL, "muted")  # named along the arrow to the prediction
        arrow_length = max(ARROW_LENGTH, self.layers.width + 0.3)
        self.guess.arrange(RIGHT, buff=0.25).next_to(self.total, RIGHT, buff=arrow_length)
        self.result = VGroup(self.total_tag, self.total, self.guess)
        middle = (self.tags.get_right()[0] + RIGHT_MARGIN) / 2  # over the copies, inside the margins
        self.result.move_to([middle, SUM_Y, 0])
        self.result.shift(min(0.0, RIGHT_MARGIN - self.result.get_right()[0]) * RIGHT)
        movers = [copy.value_nodes.node(i).copy() for copy in self.copies for i in range(len(mixed))]
        places = [self.total.node(i).get_center() for _ in self.copies for i in range(len(mixed))]
        with self.narration("ch05.add"):
            self.play(
                LaggedStart(*(mover.animate.move_to(place) for mover, place in zip(movers, places)), lag_ratio=0.01),
                run_time=1.5,
            )
            self.play(*(FadeOut(mover) for mover in movers), FadeIn(self.total), FadeIn(self.total_tag))

    def predict(self):
        """The following layers turn the sum into the next word: an arrow out of the sum to it."""
        word, p = self.trace["attention"]["predictions"][self.query][0]
        self.arrow = Arrow(self.total.get_right(), self.guess.get_left(), buff=0.1, color=role_colour("output"))
        self.layers.next_to(self.arrow, DOWN, buff=0.1)  # under it: a wide title may reach over it
        self.result.add(self.arrow, self.layers)
        with self.narration("ch05.predict", word=word, p=f"{p:.4f}"):
            self.play(GrowArrow(self.arrow), FadeIn(self.layers))
            self.play(FadeIn(self.guess, shift=0.3 * RIGHT))

    def focus_on_key(self):
        """The copies of the largest weight's word, the current word (and the subject, where that is
        another word) gather in the middle, wider; the others leave. The current word's Query is linked
        to the largest weight's Key, under the sum and the prediction, every row still named."""
        kept = sorted({j for j in (self.key, self.subject, self.query) if j is not None})
        leaving = [m for j, parts in zip(self.positions, self.word_columns()) if j not in kept for m in parts]
        leaving += [m for parts in zip(self.gaps, self.shared, self.shared_bars) for m in parts]
        tags = [*self.tags, self.weight_tag]
        tag_width = VGroup(*tags).width
        room = RIGHT_MARGIN - LEFT_MARGIN - tag_width - TAG_BUFF
        width = min(WIDEST_COPY, room / len(kept))
        left = -(tag_width + TAG_BUFF + len(kept) * width) / 2  # names and copies together in the middle
        places = [left + tag_width + TAG_BUFF + (i + 0.5) * width for i in range(len(kept))]
        gathered = self.built_copies(kept, places, width)
        for j, copy in zip(kept, gathered):
            weighed(copy.value_nodes, self.row[j])
        to_names, to_result = left + tag_width - self.tags.get_right()[0], -self.result.get_x()
        moves = [
            *(name.animate.shift(to_names * RIGHT) for name in tags),
            *(part.animate.shift(to_result * RIGHT) for part in self.result),
        ]
        self.gathered = dict(zip(kept, gathered))
        for j, copy, x in zip(kept, gathered, places):
            p = self.positions.index(j)
            moving = self.copies[p].copy()  # the row as drawn stays on record (self.copies)
            self.remove(*self.copies[p].get_family())  # its parts came on stage one by one
            self.add(moving)
            moves += [
                ReplacementTransform(moving, copy),
                self.weights[p].animate.set_x(x),
                self.bars[p].animate.set_x(x),
            ]
        line, names = self.focus_line(self.row)
        with self.narration(line, **names):
            if leaving:  # a one-word sentence has no other copy
                self.play(*(FadeOut(m) for m in leaving), run_time=0.8)
            self.play(*moves, run_time=2)
            self.link_to_key = self.link(self.gathered[self.query], self.gathered[self.key], width=6)
            self.play(Create(self.link_to_key), run_time=1)
            key = self.positions.index(self.key)
            self.play(
                emphasise(self.weights[key], scale_factor=1.3),
                emphasise(self.gathered[self.key].word),
                emphasise(self.bars[key]),
            )

    def copy_of(self, j: int) -> NetworkCopy:
        return self.copies[self.positions.index(j)]

    def word_columns(self) -> list[tuple[Mobject, ...]]:
        """Each drawn word's column: its copy, its weight and its bar."""
        return list(zip(self.copies, self.weights, self.bars))

    def focus_line(self, row: list[float]) -> tuple[str, dict]:
        """The last step's line and what it names."""
        key, query, tokens = self.key, self.query, self.trace["tokens"]
        names = dict(key=tokens[key], query=tokens[query], back=query - key, weight=f"{row[key]:.2f}")
        subject = self.subject
        if subject is not None:
            return "ch05.focus_subject", {
                **names,
                "subject": tokens[subject],
                "back": query - subject,
                "subject_weight": f"{row[subject]:.2f}",
            }
        line = (
            "ch05.alone"
            if query == 0
            else "ch05.focus"
            if key == 0
            else "ch05.focus_earlier"
            if query - key > 1
            else "ch05.focus_other"
        )
        return line, names


def backed(number: Mobject) -> Mobject:
    """A number outlined in the background's colour behind its glyphs, so that the edges running
    behind it (input to values) do not cross its digits."""
    return number.set_stroke(role_colour("background"), width=6, background=True)

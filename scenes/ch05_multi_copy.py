"""Chapter 5 — multi-copy inference (seed 2.3–2.4): one network copy per word; the current word's
Query against every copy's Key; weighted values added; the prediction; a close-up on the largest
weight (and on the subject's, where the largest goes to another word)."""

from __future__ import annotations

from manim import RIGHT, UL, UP, UR, Arrow, FadeIn, FadeOut, FadeTransform, Line, Mobject, VGroup, Write

from scenes.base import ExplainerScene
from scenes.layout import drawn_slots
from scenes.mobjects import (NetworkCopy, NodeLayer, add_groups, bar, emphasise, fitted, label, legend, row_peaks,
                             scale_group, size_to_fit)
from scenes.theme import role_colour

COPIES_WIDTH = 12.6  # horizontal room for all copies
ROOM = 8  # slots side by side: a copy each, or one for a run of middle words of a long sentence
BAR_HEIGHT = 1.1


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

    def show_copies(self):
        """A copy per word up to the current one; a long sentence's middle words share one "⋯" slot
        (the first words, the largest weight's word, the subject and the last words keep their copies)."""
        self.title = self.show_title()
        attention, tokens = self.trace["attention"], self.trace["tokens"]
        kept = [j for j in (self.key, self.subject, self.query) if j is not None]
        slots = drawn_slots(self.query + 1, kept, ROOM)
        width = min(2.6, COPIES_WIDTH / len(slots))
        spacing = min(0.27, 0.85 * width / len(attention["inputs"][0]))  # the widest row fills 85 %
        places = {slot if isinstance(slot, int) else slot.start: (place - (len(slots) - 1) / 2) * width
                  for place, slot in enumerate(slots)}
        self.positions = [slot for slot in slots if isinstance(slot, int)]
        self.gap_words = [slot for slot in slots if isinstance(slot, range)]
        word_size = size_to_fit([tokens[j] for j in self.positions], 26, 0.9 * width)
        self.copies = VGroup(*(
            NetworkCopy(tokens[j], attention["inputs"][j], attention["queries"][j], attention["keys"][j],
                        attention["values"][j], radius=0.37 * spacing, spacing=spacing, word_size=word_size)
            .move_to([places[j], -1.95, 0]) for j in self.positions))
        for copy in self.copies:  # input rows on one line, whatever the words' descenders; long words fit
            copy.set_y(copy.get_y() + self.copies[0].input_nodes.get_y() - copy.input_nodes.get_y())
            fitted(copy.word, 0.9 * width)
        self.gaps = VGroup(*(self.gap(words, width, self.copies[0]).set_x(places[words.start])
                             for words in self.gap_words))
        self.copy_of = dict(zip(self.positions, self.copies))
        for j, copy in self.copy_of.items():
            if j != self.query:
                copy.query_nodes.set_opacity(0.15)
                copy.edges_to("query").set_opacity(0.05)
        self.legend = legend({role: self.say(role) for role in ("value", "key", "query", "input")})
        with self.narration("ch05.copies"):
            self.play(*(copy.create() for copy in self.copies), *(FadeIn(gap) for gap in self.gaps),
                      FadeIn(self.legend.to_corner(UR, buff=0.3)), run_time=2.5)

    def gap(self, words: range, width: float, beside: NetworkCopy) -> VGroup:
        """The slot of a run of middle words: "⋯" where their copies would stand, and how many words."""
        dots = label("⋯", 40, "muted").set_y(beside.key_nodes.get_y())
        count = fitted(label(self.say("more_words", n=len(words)), 20, "muted"), 0.95 * width)
        return VGroup(dots, count.set_y(beside.word.get_y()))

    def compute_keys(self):
        with self.narration("ch05.keys"):
            self.play(*(copy.forward() for copy in self.copies), run_time=1.6)

    def query_meets_keys(self):
        q = self.query
        source = self.copy_of[q].query_nodes
        links = VGroup(*(Line(source.get_top(), copy.key_nodes.get_bottom(), stroke_width=2,
                              color=role_colour("query")) for copy in self.copies))
        self.scores = VGroup(*(
            self.shown(f"score {j}", self.trace["attention"]["scores"][q][j], size=18, role="highlight")
            .next_to(copy.value_nodes, UP, buff=0.35) for j, copy in self.copy_of.items()))
        with self.narration("ch05.query", query=self.trace["tokens"][q]):
            self.play(emphasise(source.nodes, role="query"))
            self.play(Write(links), run_time=1.5)
            self.play(*(emphasise(copy.key_nodes.nodes, role="key") for copy in self.copies),
                      FadeIn(self.scores, shift=0.2 * UP))
        self.play(links.animate.set_opacity(0.0))
        self.remove(links)

    def softmax_weights(self):
        row = self.trace["attention"]["weights"][self.query]
        self.weights = VGroup(*(self.shown(f"weight {j}", row[j], digits=3, size=20, role="highlight")
                                .move_to(score) for j, score in zip(self.positions, self.scores)))
        self.bars = VGroup(*(bar(row[j], BAR_HEIGHT, width=0.35).next_to(weight, UP, buff=0.1)
                             for j, weight in zip(self.positions, self.weights)))
        sums = [sum(row[j] for j in words) for words in self.gap_words]  # a run of middle words: together
        self.shared = VGroup(*(self.shown(f"weight {words.start}-{words.stop - 1}", total, digits=3, size=20,
                                          role="highlight").move_to([gap.get_x(), self.weights[0].get_y(), 0])
                               for words, total, gap in zip(self.gap_words, sums, self.gaps)))
        self.shared_bars = VGroup(*(bar(total, BAR_HEIGHT, width=0.35).next_to(text, UP, buff=0.1)
                                    for total, text in zip(sums, self.shared)))
        with self.narration("ch05.softmax"):
            self.play(*(FadeTransform(s, w) for s, w in zip(self.scores, self.weights)),
                      *(FadeIn(t) for t in self.shared), run_time=1.5)
            self.play(*(FadeIn(b, shift=0.3 * UP) for b in [*self.bars, *self.shared_bars]))

    def scale_values(self):
        row = self.trace["attention"]["weights"][self.query]
        with self.narration("ch05.scale"):
            self.play(*(scale_group(copy.value_nodes, row[j]) for j, copy in self.copy_of.items()))

    def add_values(self):
        mixed = self.trace["attention"]["mixed"][self.query]
        self.total = NodeLayer(mixed, "value", radius=0.16, spacing=0.45, direction=RIGHT,
                               show_values=True, value_size=13).move_to([0, 1.9, 0])
        self.total_title = self.word("sum", 18, "value").next_to(self.total, RIGHT, buff=0.3)
        with self.narration("ch05.add"):
            self.play(add_groups([copy.value_nodes for copy in self.copies], self.total), FadeIn(self.total_title))

    def predict(self):
        word, p = self.trace["attention"]["predictions"][self.query][0]
        guess = VGroup(label(word, 30, "output"), self.shown("p prediction", p, 4, 20, "output"))
        self.keep_below_title(guess.arrange(RIGHT, buff=0.25).move_to([0, 3.1, 0]))
        arrow = Arrow(self.total.get_top(), guess.get_bottom(), buff=0.08, color=role_colour("output"))
        with self.narration("ch05.predict", word=word, p=f"{p:.4f}"):
            self.play(FadeIn(arrow), FadeIn(guess, shift=0.2 * UP))
        self.result = VGroup(self.total, self.total_title, arrow, guess)

    def focus_on_key(self):
        """The camera closes in on the largest weight's word (and on the subject, where that is another),
        with the words it keeps in view in the middle of the picture."""
        row, key, subject = self.trace["attention"]["weights"][self.query], self.key, self.subject
        focused = [j for j in (key, subject) if j is not None]
        places = [self.positions.index(j) for j in focused]
        target = VGroup(*(VGroup(self.copies[p], self.bars[p], self.weights[p]) for p in places))
        view = self.camera.frame.copy().set(height=target.height * 1.5).move_to(target)
        if view.width < target.width * 1.2:
            view.set(width=target.width * 1.2)
        self.centre_what_it_keeps(view)
        line, names = self.focus_line(row)
        with self.narration(line, **names):
            self.play(*(FadeOut(m) for m in [self.result, *self.cut_by(view)]), run_time=0.8)
            self.pin_title_to_the_camera()
            self.play(self.camera.frame.animate.become(view), run_time=2)
            self.play(*(emphasise(self.weights[p], scale_factor=1.3) for p in places),
                      *(emphasise(self.copies[p].word) for p in places))

    def pin_title_to_the_camera(self):
        """Keeps the title where it stands on the screen, at its size, while the camera closes in: the
        close-up is the chapter's key frame and should say which chapter it is."""
        frame, title = self.camera.frame, self.title
        width, title_width, corner_gap = frame.width, title.width, title.get_corner(UL) - frame.get_corner(UL)
        title.add_updater(lambda t: t.set(width=title_width * frame.width / width).move_to(
            frame.get_corner(UL) + corner_gap * frame.width / width, aligned_edge=UL))

    def focus_line(self, row: list[float]) -> tuple[str, dict]:
        """The last step's line and what it names."""
        key, query, tokens = self.key, self.query, self.trace["tokens"]
        names = dict(key=tokens[key], query=tokens[query], back=query - key, weight=f"{row[key]:.2f}")
        subject = self.subject
        if subject is not None:
            return "ch05.focus_subject", {**names, "subject": tokens[subject], "back": query - subject,
                                          "subject_weight": f"{row[subject]:.2f}"}
        line = ("ch05.alone" if query == 0 else "ch05.focus" if key == 0 else
                "ch05.focus_earlier" if query - key > 1 else "ch05.focus_other")
        return line, names

    def centre_what_it_keeps(self, view: Mobject):
        """Moves the view sideways until the word slots wholly inside it stand in its middle. Each move
        keeps every slot that was inside and may take in another, so it ends."""
        while True:
            kept = VGroup(*(m for m in self.word_slots() if within(m, view)))
            if abs(kept.get_x() - view.get_x()) < 1e-3:
                return
            view.set_x(kept.get_x())

    def word_slots(self) -> list[Mobject]:
        """Each word's column (copy, bar, weight) and each "⋯" slot."""
        columns = [VGroup(*parts) for parts in zip(self.copies, self.bars, self.weights)]
        return columns + [VGroup(*parts) for parts in zip(self.gaps, self.shared, self.shared_bars)]

    def cut_by(self, view: Mobject) -> list[Mobject]:
        """What a close-up on ``view`` would cut or leave out: word slots and the legend."""
        return [m for m in [*self.word_slots(), self.legend] if not within(m, view)]


def within(mobject: Mobject, view: Mobject) -> bool:
    """Whether the mobject lies wholly inside the view."""
    return (view.get_left()[0] <= mobject.get_left()[0] and mobject.get_right()[0] <= view.get_right()[0]
            and view.get_bottom()[1] <= mobject.get_bottom()[1] and mobject.get_top()[1] <= view.get_top()[1])

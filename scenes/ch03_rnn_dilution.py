"""Chapter 3 — RNN information dilution (seed 1.3): the RNN unrolled, one copy of its small network
per word, each copy's hidden layer handed to the next with the next word; the earlier words' shares
of that fixed-size state shrinking step by step; accuracy against distance."""

from __future__ import annotations

from manim import DOWN, LEFT, ORIGIN, RIGHT, UP, Arrow, Create, FadeIn, FadeOut, GrowArrow, Line, VGroup

from scenes.base import LEFT_MARGIN, RIGHT_MARGIN, ExplainerScene
from scenes.layout import drawn_slots
from scenes.mobjects import Plot, accuracy_curve, emphasise, label, size_to_fit
from scenes.mobjects.rnn import INPUT_Y, WORD_Y, RNNStep, ShareBar
from scenes.theme import EDGE_WIDTH, LABEL, SMALL, role_colour

ROOM = 6  # copies side by side; a longer sentence's middle steps share a "⋯"
NET_LEFT = -4.85  # the copies stand right of here; their groups' names stand left of it
TAG_BUFF = 0.2
HANDOFF = 0.5  # room between a copy's state (and its share bar) and the next copy, for the arrow
BAR_ROOM = 0.45  # room right of a copy's hidden layer for its share bar
CHART = {"left": -5.4, "right": 6.0, "bottom": -2.2, "top": 2.45}


def rnn_falls(rows: list[dict]) -> bool:
    """Whether the RNN's accuracy at the furthest distance is below that at distance 0 by more than three
    standard errors of the difference (each measured on its row's held-out sentences): a fall, not the
    luck of the sentences drawn."""
    near, far = rows[0], rows[-1]
    variance = sum(row["rnn"] * (1 - row["rnn"]) / row["sentences"] for row in (near, far))
    return near["rnn"] - far["rnn"] > 3 * variance**0.5


class RNNDilution(ExplainerScene):
    title_key = "ch03.title"
    narration_lines = 8  # with the question and the recap

    def construct(self):
        self.show_title()
        self.read_the_first_word()
        self.hand_the_state_on()
        self.count_the_state()
        self.shrink_the_followed_word()
        self.compare_accuracy()

    # -- the unrolled network ---------------------------------------------------------------------

    def followed(self) -> int:
        """The word whose share is followed: the earliest that tells this sentence apart (the subject
        in the story; in English not "the", which every sentence starts with)."""
        return self.trace["rnn"]["followed_index"]

    def lay_out(self):
        """A slot per copy across the frame (a long sentence's middle words share one "⋯" slot, the
        followed word keeps its own); the words and predictions share one size that fits a slot."""
        tokens, rnn = self.trace["tokens"], self.trace["rnn"]
        self.slots = drawn_slots(len(tokens), [self.followed()], ROOM)
        self.pitch = (RIGHT_MARGIN - NET_LEFT) / len(self.slots)
        steps = [slot for slot in self.slots if isinstance(slot, int)]
        written = [tokens[t] for t in steps] + [rnn["predictions"][t][0][0] for t in steps]
        self.word_size = max(SMALL, size_to_fit(written, LABEL, 0.9 * self.pitch))
        self.steps = {t: self.step(t, column) for column, t in enumerate(self.slots) if isinstance(t, int)}

    def slot_x(self, column: int) -> float:
        return NET_LEFT + self.pitch * (column + 0.5)

    def step(self, t: int, column: int) -> RNNStep:
        """Copy t of the network, its hidden layer left of the room for its share bar."""
        rnn = self.trace["rnn"]
        predicted, probability = rnn["predictions"][t][0]
        width = min(self.pitch - HANDOFF - BAR_ROOM, 2.6)
        step = RNNStep(
            self.trace["tokens"][t],
            rnn["inputs"][t],
            rnn["hidden"][t],
            predicted,
            self.shown(f"prediction {t}", probability, 2, SMALL, "output"),
            width,
            self.word_size,
        )
        return step.shift((self.slot_x(column) - BAR_ROOM / 2) * RIGHT)

    def tags(self) -> dict[str, VGroup]:
        """The names of the first copy's groups, left of it, in their roles' colours."""
        first, right = self.steps[0], NET_LEFT - TAG_BUFF
        return {
            "prediction": self.tag("ch03.prediction_tag", "output", right, first.prediction[0].get_center()[1]),
            "state": self.tag("ch03.state_tag", "value", right, first.hidden_nodes.get_top()[1], UP),
            "input": self.tag("ch03.input_tag", "input", right, (INPUT_Y + WORD_Y) / 2),
        }

    def tag(self, key: str, role: str, right: float, y: float, edge=ORIGIN):
        """A name ending at x = ``right``, its ``edge`` (its middle, by default) at height ``y``."""
        return label(self.say(key), SMALL, role).move_to([right, y, 0], aligned_edge=RIGHT + edge)

    def read_the_first_word(self):
        """The sentence stands along the bottom, each word turned into its input nodes under its copy
        of the network, whose hidden layer waits empty; the first copy takes its word's in and
        predicts the next word."""
        self.lay_out()
        self.skipped = VGroup()
        for column, slot in enumerate(self.slots):
            if isinstance(slot, range):  # the "⋯" stands for the words and the state steps it passes over
                self.skipped.add(
                    VGroup(
                        label("⋯", LABEL, "input").move_to([self.slot_x(column), WORD_Y, 0]),
                        label("⋯", LABEL, "value").move_to([self.slot_x(column), 0, 0]),
                    )
                )
        words = VGroup(*(step.word for step in self.steps.values()), *(dots[0] for dots in self.skipped))
        self.names = self.tags()
        first = self.steps[0]
        self.empty = {t: step.empty_state() for t, step in self.steps.items()}
        with self.narration("ch03.one"):
            self.play(FadeIn(words, lag_ratio=0.1), run_time=1.0)
            self.play(
                *(step.read_word() for step in self.steps.values()),
                *(FadeIn(outlines) for outlines in self.empty.values()),
                FadeIn(self.names["input"]),
                FadeIn(self.names["state"]),
            )
            self.play(first.update_state(None), FadeOut(self.empty[0]))
            self.play(first.predict(), FadeIn(self.names["prediction"]))

    def hand_the_state_on(self):
        """Copy after copy: the hidden layer travels along an arrow into the next copy, where it meets
        the next word and takes the place of the empty outlines; across a "⋯" it passes the steps drawn
        as one."""
        self.handoffs = VGroup()
        gaps = iter(self.skipped)
        with self.narration("ch03.loop"):
            previous, dots = self.steps[0], None
            for slot in self.slots[1:]:
                if isinstance(slot, range):
                    dots = next(gaps)[1]
                    self.play(
                        GrowArrow(self.handoff(previous.hidden_nodes, BAR_ROOM, dots)),
                        FadeIn(dots, shift=0.2 * RIGHT),
                        run_time=0.8,
                    )
                    continue
                step = self.steps[slot]
                source = (dots, 0.0) if dots is not None else (previous.hidden_nodes, BAR_ROOM)
                self.play(GrowArrow(self.handoff(*source, step.hidden_nodes)), run_time=0.5)
                self.play(step.update_state(previous), FadeOut(self.empty[slot]), run_time=1.0)
                self.play(step.predict(), run_time=0.5)
                previous, dots = step, None

    def handoff(self, source, clear: float, target) -> Arrow:
        """The arrow carrying the state from one copy (or a "⋯") to the next, starting ``clear`` right
        of it (a copy's share bar stands there)."""
        arrow = Arrow(
            source.get_right() + clear * RIGHT,
            target.get_left(),
            buff=0.08,
            stroke_width=EDGE_WIDTH + 1,
            max_tip_length_to_length_ratio=0.35,
            color=role_colour("value"),
        )
        self.handoffs.add(arrow)
        return arrow

    def count_the_state(self):
        """Every copy's hidden layer has the same number of nodes."""
        nodes = self.trace["rnn"]["config"]["d_hidden"]
        count = VGroup(
            self.shown("hidden nodes", nodes, 0, LABEL, "value"), label(self.say("ch03.nodes_tag"), SMALL, "value")
        )
        count.arrange(DOWN, buff=0.08).next_to(self.names["state"], DOWN, buff=0.15, aligned_edge=RIGHT)
        self.count = count
        with self.narration("ch03.fixed", nodes=nodes):
            self.play(FadeIn(count, shift=0.2 * DOWN))
            self.play(*(emphasise(step.hidden_nodes, scale_factor=1.05) for step in self.steps.values()), run_time=1.5)

    def shrink_the_followed_word(self):
        """Beside each state from the followed word's on, a bar of the words' shares in it: the
        earlier words' pieces come over from the previous bar and shrink."""
        influence, followed, tokens = self.trace["rnn"]["influence"], self.followed(), self.trace["tokens"]
        start, end = f"{influence[followed][followed]:.2f}", f"{influence[-1][followed]:.2f}"
        line = "ch03.shares" if float(end) < float(start) else "ch03.shares_kept"
        self.bars, self.shares = [], VGroup()
        share_tag = label(self.say("ch03.share_tag", word=tokens[followed]), SMALL, "highlight")
        share_tag.next_to(self.count, DOWN, buff=0.25, aligned_edge=RIGHT)
        with self.narration(line, word=tokens[followed], start=start, end=end):
            self.play(self.steps[followed].word.animate.set_color(role_colour("highlight")), FadeIn(share_tag))
            before = None
            for t in (t for t in self.steps if t >= followed):
                bar = self.share_bar(t)
                self.play(bar[0].grow_from(before), FadeIn(bar[1], shift=0.2 * UP), run_time=1.2)
                self.bars.append(bar)
                before = bar[0]
        self.share_tag = share_tag

    def share_bar(self, t: int) -> VGroup:
        """Step t's state as a bar of its words' shares, the followed word's written above it."""
        state = self.steps[t].hidden_nodes
        pieces = ShareBar(self.trace["rnn"]["influence"][t][: t + 1], self.followed(), state.height)
        pieces.next_to(state, RIGHT, buff=0.1)
        share = self.shown(f"share {t}", self.trace["rnn"]["influence"][t][self.followed()], 2, SMALL, "highlight")
        return VGroup(pieces, share.next_to(pieces, UP, buff=0.1))

    # -- accuracy against distance ----------------------------------------------------------------

    def plot(self) -> Plot:
        return Plot(CHART, x_max=self.trace["accuracy_by_distance"][-1]["distance"])

    def curve(self, model: str, role: str) -> VGroup:
        last = self.trace["accuracy_by_distance"][-1]
        end = self.shown(f"{model} at {last['distance']}", last[model], 2, SMALL, role)
        return accuracy_curve(self.plot(), self.trace["accuracy_by_distance"], model, role, end)

    def axes(self) -> VGroup:
        last = self.trace["accuracy_by_distance"][-1]["distance"]
        axes = self.plot().axes(range(0, last + 1, 2), (0.0, 0.5, 1.0), self.say("distance"), self.say("accuracy"))
        y_title = axes[2][1]  # centred over the y axis, a long one would reach past the frame's left margin
        y_title.shift(max(0.0, LEFT_MARGIN - y_title.get_left()[0]) * RIGHT)
        return axes

    def grid_lines(self) -> VGroup:
        """Faint lines at every distance and every quarter of accuracy, to read the points against."""
        plot, last = self.plot(), self.trace["accuracy_by_distance"][-1]["distance"]
        lines = VGroup(
            *(Line(plot.point(x, 0), plot.point(x, 1)) for x in range(1, last + 1)),
            *(Line(plot.point(0, y), plot.point(last, y)) for y in (0.25, 0.5, 0.75, 1.0)),
        )
        return lines.set_stroke(role_colour("muted"), 2, opacity=0.3)

    def compare_accuracy(self):
        rows = self.trace["accuracy_by_distance"]
        if not rows:
            return  # a corpus without the story has no such measurement
        network = [m for m in self.mobjects if m is not self.title]
        rnn, transformer = self.curve("rnn", "key"), self.curve("transformer", "query")
        # the names over and under their last points, not right of them: the chart takes the frame's width
        for curve, side in ((rnn, DOWN), (transformer, UP)):
            curve[2].next_to(curve[1][-1], side, buff=0.15).align_to(curve[1][-1], RIGHT)
        self.numbers_on_screen["rnn at 0"] = rows[0]["rnn"]
        # Whether the RNN's accuracy really falls with distance decides which line is true: an RNN
        # trained on a user's corpus may be as good far as near, or never learn the object at all.
        line = "ch03.accuracy" if rnn_falls(rows) else "ch03.accuracy_flat"
        with self.narration(
            line, near=f"{rows[0]['rnn']:.2f}", far=f"{rows[-1]['rnn']:.2f}", flat=f"{rows[-1]['transformer']:.2f}"
        ):
            # the unrolled network gives way to the chart in one move: what it showed has a consequence
            self.play(
                *(FadeOut(m, shift=0.5 * LEFT) for m in network),
                Create(self.grid_lines()),
                FadeIn(self.axes()),
                run_time=1.5,
            )
            self.play(Create(transformer[0]), FadeIn(transformer[1:]), Create(rnn[0]), FadeIn(rnn[1:]), run_time=3.5)
        with self.narration("ch03.next"):
            self.play(emphasise(rnn[2]), emphasise(transformer[2]))

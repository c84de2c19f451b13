"""What every chapter shares: its Trace, its language, narration as subcaptions, and a record
of every number it puts on screen (so tests can compare them with the Trace)."""

from __future__ import annotations

import gc
import os
from contextlib import contextmanager

from manim import DOWN, UL, UP, FadeIn, FadeOut, ManimColor, Mobject, MovingCameraScene, Rectangle, Text, VGroup, config

from scenes import copies, encoding, source, voice
from scenes.bystanders import DrawsBystandersOnce
from scenes.camera import ExplainerCamera
from scenes.mobjects import fitted, label, number
from scenes.script import line_name
from scenes.strings import text
from scenes.theme import HEADING, LABEL, SMALL, TITLE, role_colour, theme

encoding.convert_held_frames_once()
copies.share_parsed_paths()
# Drawing a frame makes and drops many small objects: at Python's default threshold the collector ran
# 1,717 times in chapter 10 at 1080p60 (1.7 s, 12 of them full); at 50,000 new objects, 15 times
# (0.25 s), the same peak memory.
gc.set_threshold(50_000, 20, 20)

# Reading speed used to hold each narration line on screen long enough.
CHARACTERS_PER_SECOND = {"zh": 5.0, "en": 14.0}
MIN_LINE_SECONDS = 2.0
# Every chapter ends on its finished picture: a clip cut into a lecture does not stop mid-movement,
# and the key frame (taken half a second before the end) shows the whole picture.
END_HOLD_SECONDS = 1.0
TITLE_BUFF = 0.3  # between the title and the frame's top-left corner
LEFT_MARGIN = -config.frame_width / 2 + TITLE_BUFF  # where the title starts: nothing stands nearer the left edge
RIGHT_MARGIN = -LEFT_MARGIN  # nor nearer the right edge
# The picture stands between the title's band at the top and the recap's band at the bottom, which a
# chapter's last picture leaves free for the recap line.
CONTENT_TOP = 3.15
CONTENT_BOTTOM = -3.1
RECAP_BAND = 0.75  # height of the recap's strip at the frame's bottom


class ExplainerScene(DrawsBystandersOnce, MovingCameraScene):
    title_key = ""
    narration_lines = 0  # lines narrated in a full run: the pipeline's "how far" (a test checks it)

    def __init__(self, camera_class=ExplainerCamera, **kwargs):
        super().__init__(camera_class=camera_class, **kwargs)

    def setup(self):
        super().setup()
        self.trace = source.current_trace()
        self.lang = self.trace["lang"]
        self.camera.background_color = ManimColor(theme().background)
        self.numbers_on_screen: dict[str, float] = {}
        self.spoken: list[str] = []  # the narration so far, line by line

    def tear_down(self):
        self.recap()
        self.wait(END_HOLD_SECONDS)
        super().tear_down()

    @property
    def chapter_key(self) -> str:
        """The prefix of the chapter's strings: "ch05" for "ch05.title"."""
        return self.title_key.split(".")[0]

    def say(self, line: str, **values) -> str:
        return text(self.lang, line, **values)

    def word(self, key: str, size: float = 22, role: str = "text") -> Text:
        return label(self.say(key), size, role)

    def shown(
        self, name: str, value: float, digits: int = 2, size: float = SMALL, role: str = "text", grouped: bool = False
    ) -> Text:
        """A number for the screen, recorded under ``name`` for the tests."""
        self.numbers_on_screen[name] = value
        return number(value, digits, size, role, grouped)

    def show_title(self):
        """The chapter opens on its title and its question in one line, in the middle of the frame;
        then the question leaves and the title goes to the top-left corner, where it stays."""
        title = label(self.say(self.title_key), HEADING)
        question = self.one_line(self.say(f"{self.chapter_key}.question"), TITLE, "emphasis")
        VGroup(title, question).arrange(DOWN, buff=0.6)
        with self.narration(f"{self.chapter_key}.question"):
            self.play(FadeIn(title), FadeIn(question, shift=0.3 * UP), run_time=1.2)
        self.play(FadeOut(question, shift=0.3 * UP), title.animate.to_corner(UL, buff=TITLE_BUFF), run_time=0.8)
        self.title = title
        return title

    def recap(self):
        """The chapter ends on a one-line recap, on a strip at the bottom of its final picture (of the
        camera's frame, in a close-up)."""
        frame = self.camera.frame
        zoom = frame.height / config.frame_height
        line = self.one_line(self.say(f"{self.chapter_key}.recap"), LABEL, "emphasis").scale(zoom)
        strip = Rectangle(
            width=(RIGHT_MARGIN - LEFT_MARGIN) * zoom,
            height=RECAP_BAND * zoom,
            stroke_width=0,
            stroke_color=role_colour("background"),
            fill_color=role_colour("background"),
            fill_opacity=0.9,
        )
        strip.move_to(frame.get_bottom(), aligned_edge=DOWN)
        line.move_to(strip)
        with self.narration(f"{self.chapter_key}.recap"):
            self.play(FadeIn(strip), FadeIn(line, shift=0.2 * UP * zoom), run_time=1.0)

    @staticmethod
    def one_line(words: str, size: float, role: str) -> Text:
        """``words`` on one line across the frame, shrunk if need be but not below SMALL."""
        written = label(words, size, role)
        return fitted(written, max(RIGHT_MARGIN - LEFT_MARGIN, written.width * SMALL / size))

    def keep_below(group: Mobject, top: float) -> Mobject:
        """Move ``group`` down so that its top is no higher than ``top``, shrinking it if the room down
        to the frame's bottom runs out."""
        bottom = -config.frame_height / 2 + TITLE_BUFF
        if group.get_top()[1] > top:
            if group.height > top - bottom:
                group.scale_to_fit_height(top - bottom)
            group.shift((top - group.get_top()[1]) * UP)
        return group

    def clear_stage(self):
        """Fade out everything but the title, before the next step."""
        leaving = [m for m in self.mobjects if m is not getattr(self, "title", None)]
        if leaving:
            self.play(*(FadeOut(m) for m in leaving))

    def begin_step(self, name: str, line: str) -> None:
        """A narrated step starts a new section: with --sections each becomes its own clip."""
        self.next_section(self.section_name(name))

    def section_name(self, name: str) -> str:
        """The step's number and name: "03-flow" for the third step, narrated by "ch04.flow"."""
        return f"{len(self.spoken) + 1:02d}-{name.split('.')[-1]}"

    @property
    def chapter_number(self) -> int:
        return int(self.chapter_key.removeprefix("ch"))

    @contextmanager
    def narration(self, name: str, **values):
        """Narrate a step: its line is spoken (when the render has a voice) and becomes a subcaption
        spanning the step; the step lasts until the speech and a pause are over, or, silent, long
        enough to read the line."""
        line = self.say(name, **values)
        self.begin_step(name, line)
        start = self.time
        numbered = line_name(self.chapter_number, len(self.spoken) + 1)
        speech = voice.speak(numbered, line, self.lang)
        if speech is not None:
            voice.note_timeline(numbered, start, speech)
        yield line
        if speech is None:
            needed = max(MIN_LINE_SECONDS, len(line) / CHARACTERS_PER_SECOND[self.lang])
        else:
            needed = max(MIN_LINE_SECONDS, speech.seconds + voice.PAUSE_SECONDS)
        elapsed = self.time - start
        if elapsed < needed:
            self.wait(needed - elapsed)
        self.add_subcaption(line, duration=self.time - start, offset=start - self.time)
        self.spoken.append(line)
        report_progress(len(self.spoken), self.narration_lines)


def report_progress(done: int, total: int) -> None:
    """Tell the pipeline how far the chapter is (a line per narrated step, in ATTENTION_PROGRESS)."""
    path = os.environ.get("ATTENTION_PROGRESS")
    if path:
        with open(path, "a", encoding="utf-8") as progress:
            progress.write(f"{done}/{total}\n")

"""Colours by meaning, one value→colour mapping, and fonts that really have the glyphs.

Mobjects look the theme up when they are built (``theme()``, from ATTENTION_THEME), so switching
it takes effect for everything built afterwards.
"""

from __future__ import annotations

import functools
import math
import os
import subprocess
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from manim import ManimColor


@dataclass(frozen=True)
class Theme:
    background: str
    text: str
    muted: str  # secondary text, idle edges
    input: str
    query: str
    key: str
    value: str
    output: str
    highlight: str
    emphasis: str  # a brief "look here" flash (Indicate)
    negative: str  # colour of a value far below zero
    neutral: str  # colour of zero
    positive: str  # colour of a value far above zero
    font: str


# Roles (input, Query, Key, value, output) are told apart by hue on outlines, labels and brackets;
# a number is told by the diverging value scale (green above zero, rose below), whose hues no role
# uses: docs/visual-language.md shows both side by side.
DARK = Theme(
    background="#0f1117",
    text="#ECEFF4",
    muted="#9AA3B5",
    input="#C3CAD8",
    query="#F2A65A",
    key="#5FA8F0",
    value="#B794F4",
    output="#8FD46A",
    highlight="#FFD166",
    emphasis="#FFE9A8",
    negative="#F0607F",
    neutral="#2A2F3A",
    positive="#3DCC91",
    font="Noto Sans CJK SC",
)

# For slides and print: dark text on a light background, hues deep enough to read on white.
LIGHT = Theme(
    background="#FBFAF7",
    text="#1F2430",
    muted="#5F6675",
    input="#4B5563",
    query="#C8610A",
    key="#1C6FB8",
    value="#7C3AED",
    output="#3F8A1F",
    highlight="#9A7400",
    emphasis="#B7791F",
    negative="#D6336C",
    neutral="#E6E4DE",
    positive="#0E9F6E",
    font="Noto Sans CJK SC",
)

THEMES = {"dark": DARK, "light": LIGHT}


def theme() -> Theme:
    """The theme named by ATTENTION_THEME (dark by default), read when a mobject is built."""
    return THEMES.get(os.environ.get("ATTENTION_THEME", "dark"), DARK)


# The type scale, as font sizes. A digit of the theme's font stands DIGIT_HEIGHT frame units high per
# point (measured: 0.295 at 28 pt), so at 480p (60 px per unit of an 8-unit-high frame) SMALL's digits
# are 16.4 px high, the least a number may be (tests/test_scenes.py measures every text at every step).
DIGIT_HEIGHT = 0.01054
TITLE, HEADING, LABEL, SMALL = 42, 36, 30, 26
SMALLEST_PIXELS = 16  # at 480p, full frame
# Lines that carry values (edges) and outlines: wide and opaque enough to see at 480p.
EDGE_WIDTH, EDGE_OPACITY = 2.5, 0.55
OUTLINE_WIDTH = 3


def pixels_high(font_size: float, frame_height: float = 8.0, pixel_height: int = 480) -> float:
    """How many pixels a digit of text at ``font_size`` stands, seen in a camera frame
    ``frame_height`` units high rendered ``pixel_height`` pixels high."""
    return font_size * DIGIT_HEIGHT * pixel_height / frame_height


# Manim is imported where a colour is made, not with this module: the pipeline's own process reads the
# themes and never draws, and importing Manim cost it 0.6 s of CPU before every render's Trace.


def role_colour(role: str) -> ManimColor:
    from manim import ManimColor

    return ManimColor(getattr(theme(), role))


def value_colour(value: float) -> ManimColor:
    """The one mapping from a number to a colour: sign picks the hue, size the strength.

    tanh squashes any value into (-1, 1), so the same number always gets the same colour
    whichever layer it sits in.
    """
    from manim import ManimColor, interpolate_color

    t = theme()
    strength = math.tanh(abs(value))
    end = t.positive if value >= 0 else t.negative
    return interpolate_color(ManimColor(t.neutral), ManimColor(end), strength)


def value_text_colour(value: float) -> ManimColor:
    """The colour of a number written on the background: the value scale's hue, never fainter than
    half way from the text colour, so that a small number still reads."""
    from manim import ManimColor, interpolate_color

    t = theme()
    end = t.positive if value >= 0 else t.negative
    return interpolate_color(ManimColor(t.text), ManimColor(end), 0.5 + 0.5 * math.tanh(abs(value)))


class FontError(RuntimeError):
    """The font cannot draw some text; the message names the package to install."""


FONT_PACKAGE = "fonts-noto-cjk"


@functools.cache
def fonts_covering(characters: frozenset[str]) -> frozenset[str]:
    """Font families that have a glyph for every character, as fontconfig reports them."""
    charset = " ".join(f"{ord(ch):x}" for ch in sorted(characters))
    try:
        listing = subprocess.run(
            ["fc-list", f":charset={charset}", "family"], capture_output=True, text=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError) as error:
        raise FontError(f"cannot list fonts with fc-list ({error}): install fontconfig") from None
    return frozenset(name.strip() for line in listing.splitlines() for name in line.split(","))


def missing_glyphs(text: str) -> str:
    """The characters of ``text`` that the theme's font cannot draw."""
    font = theme().font
    visible = frozenset(ch for ch in text if not ch.isspace())
    if not visible or font in fonts_covering(visible):
        return ""
    return "".join(sorted(ch for ch in visible if font not in fonts_covering(frozenset(ch))))


_drawable: dict[str, set[str]] = {}  # by font: the characters font_for found it draws, in this process


def font_for(text: str) -> str:
    """The theme's font, after checking it has every glyph of ``text`` (Pango would draw boxes). Only
    characters not checked before are asked of fontconfig: a chapter's labels asked it 51 times."""
    font = theme().font
    drawable = _drawable.setdefault(font, set())
    new = {ch for ch in text if not ch.isspace()} - drawable
    missing = missing_glyphs("".join(sorted(new))) if new else ""
    if missing:
        raise FontError(
            f"font {font!r} cannot draw {missing!r}: install it with "
            f"'apt-get install {FONT_PACKAGE}' (or ./render.sh, which does)"
        )
    drawable.update(new)
    return font

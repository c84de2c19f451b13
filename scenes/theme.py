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

from manim import ManimColor, interpolate_color


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


DARK = Theme(
    background="#0f1117", text="#ECEFF4", muted="#5B6275",
    input="#A3BE8C", query="#F2A65A", key="#5FB3F0", value="#C792EA", output="#E5C07B",
    highlight="#FF6B6B", emphasis="#F7D96F", negative="#3B82F6", neutral="#2A2F3A", positive="#F59E0B",
    font="Noto Sans CJK SC",
)

# For slides and print: dark text on a light background, hues deep enough to read on white.
LIGHT = Theme(
    background="#FBFAF7", text="#1F2430", muted="#8A909C",
    input="#4C8A2E", query="#C8610A", key="#1C6FB8", value="#8B3DB8", output="#9A6A00",
    highlight="#D0343A", emphasis="#B7791F", negative="#2563EB", neutral="#E6E4DE", positive="#E08A00",
    font="Noto Sans CJK SC",
)

THEMES = {"dark": DARK, "light": LIGHT}


def theme() -> Theme:
    """The theme named by ATTENTION_THEME (dark by default), read when a mobject is built."""
    return THEMES.get(os.environ.get("ATTENTION_THEME", "dark"), DARK)


def role_colour(role: str) -> ManimColor:
    return ManimColor(getattr(theme(), role))


def value_colour(value: float) -> ManimColor:
    """The one mapping from a number to a colour: sign picks the hue, size the strength.

    tanh squashes any value into (-1, 1), so the same number always gets the same colour
    whichever layer it sits in.
    """
    t = theme()
    strength = math.tanh(abs(value))
    end = t.positive if value >= 0 else t.negative
    return interpolate_color(ManimColor(t.neutral), ManimColor(end), strength)


class FontError(RuntimeError):
    """The font cannot draw some text; the message names the package to install."""


FONT_PACKAGE = "fonts-noto-cjk"


@functools.lru_cache(maxsize=None)
def fonts_covering(characters: frozenset[str]) -> frozenset[str]:
    """Font families that have a glyph for every character, as fontconfig reports them."""
    charset = " ".join(f"{ord(ch):x}" for ch in sorted(characters))
    try:
        listing = subprocess.run(["fc-list", f":charset={charset}", "family"], capture_output=True,
                                 text=True, check=True).stdout
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


def font_for(text: str) -> str:
    """The theme's font, after checking it has every glyph of ``text`` (Pango would draw boxes)."""
    missing = missing_glyphs(text)
    if missing:
        raise FontError(f"font {theme().font!r} cannot draw {missing!r}: install it with "
                        f"'apt-get install {FONT_PACKAGE}' (or ./render.sh, which does)")
    return theme().font

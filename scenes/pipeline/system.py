"""What rendering needs from the machine and the font, checked before any work starts: a missing
piece is named with the package that brings it."""

from __future__ import annotations

import importlib
import shutil

from scenes.math import TexMissing, check_tex
from scenes.strings import text
from scenes.theme import FontError, font_for, missing_glyphs, theme


def undrawable(tokens: list[str]) -> str | None:
    """Why the sentence's words cannot be drawn (the font has the Chinese and Latin scripts, checked
    already; a word of another script, from a user's corpus, would come out as boxes), or None."""
    missing = missing_glyphs("".join(tokens))
    if missing:
        return (
            f"the font {theme().font!r} cannot draw {ascii(missing)} in the sentence: use words "
            "written in Chinese characters or Latin letters"
        )
    return None


class SystemMissing(RuntimeError):
    """A system piece rendering needs is missing; the message names the package."""


def check_system(lang: str) -> None:
    """What rendering needs from the system, checked before any work starts."""
    for tool in ("ffmpeg", "ffprobe"):
        if shutil.which(tool) is None:
            raise SystemMissing(f"{tool} is missing: install it with 'apt-get install ffmpeg' (./render.sh does)")
    try:
        importlib.import_module("manimpango")  # Manim's text layout, built against Pango
    except ImportError as error:
        raise SystemMissing(
            f"Pango text layout is unavailable ({error}): install 'apt-get install libpango1.0-dev "
            "libcairo2-dev pkg-config', then run ./render.sh setup"
        ) from None
    try:
        font_for(text(lang, "ch01.title") + text("zh", "ch01.title"))
    except FontError as error:
        raise SystemMissing(str(error)) from None
    try:
        check_tex()
    except TexMissing as error:
        raise SystemMissing(str(error)) from None

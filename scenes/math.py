"""Formulas typeset by TeX (Manim's MathTex), with a template that needs only Debian's
texlive-latex-base, preview-latex-style and dvisvgm (about 57 MB, 34 s to install here), not the
standalone class of texlive-latex-extra that Manim's default template asks for."""

from __future__ import annotations

import functools
import shutil
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from manim import MathTex, TexTemplate

from scenes.theme import HEADING, role_colour

TEX_PACKAGES = "texlive-latex-base preview-latex-style dvisvgm"


class TexMissing(RuntimeError):
    """latex or dvisvgm is not installed; the message names the packages."""


@functools.lru_cache(maxsize=1)
def template() -> TexTemplate:
    """Manim's body in an article, each formula cut to its ink by the preview package."""
    from manim import TexTemplate  # here, not above: the pipeline checks for TeX without importing Manim

    return TexTemplate(
        documentclass=r"\documentclass{article}",
        preamble=r"\usepackage{amsmath}\usepackage{amssymb}"
        r"\usepackage[active,tightpage]{preview}\PreviewEnvironment{align*}"
        r"\setlength\PreviewBorder{0pt}",
    )


def check_tex() -> None:
    """Raise TexMissing, naming the packages, unless latex and dvisvgm are installed."""
    missing = [tool for tool in ("latex", "dvisvgm") if shutil.which(tool) is None]
    if missing:
        raise TexMissing(
            f"formulas need {' and '.join(missing)}: install them with "
            f"'apt-get install {TEX_PACKAGES}' (or ./render.sh, which does)"
        )


def formula(*tex: str, size: float = HEADING, role: str = "text") -> MathTex:
    """``tex`` typeset (several strings give separately addressable parts, as MathTex's own)."""
    from manim import MathTex

    check_tex()
    return MathTex(*tex, tex_template=template(), font_size=size, color=role_colour(role))

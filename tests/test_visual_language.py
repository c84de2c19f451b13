"""The visual language: role hues apart from the value scale, the type scale's smallest size, the
vector column, typeset formulas, and the frame-use measure."""

import colorsys
import importlib.util
from pathlib import Path

import numpy as np
import pytest
from manim import ManimColor, Text

from scenes.math import TexMissing, formula
from scenes.mobjects import VectorColumn, tag
from scenes.theme import SMALL, SMALLEST_PIXELS, THEMES, pixels_high, role_colour, value_text_colour

ROLES = ("input", "query", "key", "value", "output")
HUED = 0.3  # saturation below which a colour reads as grey, whatever its hue


def hue_and_saturation(colour: str) -> tuple[float, float]:
    hue, _, saturation = colorsys.rgb_to_hls(*ManimColor(colour).to_rgb())
    return hue * 360, saturation


@pytest.mark.parametrize("look", sorted(THEMES))
def test_no_role_shares_a_hue_with_the_value_scale(look):
    theme = THEMES[look]
    values = [hue_and_saturation(getattr(theme, sign))[0] for sign in ("positive", "negative")]
    for role in ROLES:
        hue, saturation = hue_and_saturation(getattr(theme, role))
        if saturation < HUED:
            continue
        assert min(min(abs(hue - v), 360 - abs(hue - v)) for v in values) >= 40, role


@pytest.mark.parametrize("look", sorted(THEMES))
def test_the_roles_hues_are_told_apart(look):
    hues = {role: hue_and_saturation(getattr(THEMES[look], role)) for role in ROLES}
    hued = [hue for hue, saturation in hues.values() if saturation >= HUED]
    assert len(hued) >= 4
    assert all(min(abs(a - b), 360 - abs(a - b)) >= 30 for i, a in enumerate(hued) for b in hued[i + 1 :])


def test_the_smallest_size_stands_sixteen_pixels_high_at_480p():
    digit = Text("0", font="Noto Sans CJK SC", font_size=SMALL)
    assert digit.height * 480 / 8 >= SMALLEST_PIXELS
    assert pixels_high(SMALL) >= SMALLEST_PIXELS
    assert pixels_high(SMALL, frame_height=16) < SMALLEST_PIXELS  # seen from twice as far: too small


def test_a_vector_column_writes_its_numbers_between_brackets_in_its_role_colour():
    column = VectorColumn([0.5, -1.25, 2.0], "query")
    assert [column.entry(i).text for i in range(3)] == ["0.50", "-1.25", "2.00"]
    assert column.entry(1).get_fill_color() == value_text_colour(-1.25) != column.entry(0).get_fill_color()
    assert all(line.get_stroke_color() == role_colour("query") for line in column.brackets)
    assert column.brackets.get_top()[1] > column.entry(0).get_top()[1]


def test_a_long_vector_shows_its_first_rows_an_ellipsis_and_its_last():
    column = VectorColumn([float(i) for i in range(12)], "key", max_rows=5)
    assert [row.text for row in column.rows] == ["0.00", "1.00", "2.00", "︙", "11.00"]
    with pytest.raises(KeyError):
        column.entry(5)


def test_a_tag_stands_beside_its_group_in_the_role_colour():
    column = VectorColumn([0.1, 0.2], "key")
    name = tag(column, "Key", "key")
    assert name.get_right()[0] < column.get_left()[0] and abs(name.get_y() - column.get_y()) < 1e-6
    assert name.get_fill_color() == role_colour("key")


def test_a_formula_is_typeset_and_a_missing_tex_is_named(monkeypatch):
    typeset = formula(r"\frac{QK^\top}{\sqrt{d_k}}")
    assert typeset.height > 0.5  # a fraction: numerator over denominator
    import scenes.math as math

    monkeypatch.setattr(math.shutil, "which", lambda tool: None)
    with pytest.raises(TexMissing, match="apt-get install texlive-latex-base preview-latex-style dvisvgm"):
        formula("x")


def frame_use():
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "frame_use.py"
    spec = importlib.util.spec_from_file_location("frame_use", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_frame_use_counts_the_cells_that_differ_from_the_background():
    measure = frame_use()
    frame = np.full((90, 160, 3), 15, dtype=np.uint8)
    assert measure.used_share(frame) == 0
    frame[:, :80] = 240  # the left half drawn on
    assert measure.used_share(frame) == 0.5
    frame[:] = 15
    frame[3:6, 3:6] = 240  # a speck in the first cell: 9 of its 100 pixels
    assert measure.used_share(frame) == 1 / 144
    frame[:] = 15 + 10  # codec noise over the whole frame is no drawing
    frame[0, 0] = 15
    assert measure.used_share(frame) == 0


def test_the_visual_language_page_draws_in_both_themes(scene_trace, default_trace, monkeypatch):
    from manim import tempconfig

    from scenes.visual_language import VisualLanguage

    for look in sorted(THEMES):
        monkeypatch.setenv("ATTENTION_THEME", look)
        with tempconfig({"dry_run": True, "disable_caching": True, "quality": "low_quality"}):
            scene = VisualLanguage()
            scene.render()
        colours = {str(part.get_stroke_color()) for m in scene.mobjects for part in m.get_family()}
        assert {str(role_colour(role)) for role in ROLES} <= colours
        query = len(default_trace["tokens"]) - 2  # its vector is the Trace's Query of that word
        values = default_trace["attention"]["queries"][query]
        (column,) = [part for m in scene.mobjects for part in m.get_family() if isinstance(part, VectorColumn)]
        assert [column.entry(i).text for i in range(len(values))] == [f"{v:.2f}" for v in values]

"""Faster copies of text and formulas (scenes/copies.py, and labels without id groups): a copy still
draws what the original draws and moves on its own; only what is read once, when the glyphs are
made, is shared."""

from __future__ import annotations

import numpy as np
from manim import RIGHT, SVGMobject, Text, VMobject
from manim.mobject.svg import svg_mobject

import scenes.base  # noqa: F401  (installs the shared paths, as for every chapter)
from scenes.math import formula
from scenes.mobjects.nodes import label


def drawn(mobject: VMobject) -> list[tuple]:
    """What each shape of ``mobject`` draws: its points and its colours."""
    return [
        (shape.points.copy(), shape.fill_rgbas.copy(), shape.stroke_rgbas.copy(), shape.stroke_width)
        for shape in mobject.get_family()
    ]


def same_drawing(a: list[tuple], b: list[tuple]) -> bool:
    return len(a) == len(b) and all(
        np.array_equal(pa, pb) and np.array_equal(fa, fb) and np.array_equal(sa, sb) and wa == wb
        for (pa, fa, sa, wa), (pb, fb, sb, wb) in zip(a, b)
    )


def test_a_copied_label_draws_the_same_and_moves_on_its_own():
    original = label("√d_k 0.42 猫")
    before = drawn(original)
    copied = original.copy()
    assert same_drawing(drawn(copied), before)
    copied.shift(RIGHT).set_color("#ff0000")
    assert same_drawing(drawn(original), before)
    assert not same_drawing(drawn(copied), before)


def test_copied_glyphs_share_only_their_parsed_path():
    original = label("0.42")
    copied = original.copy()
    for glyph, glyph_copy in zip(original, copied):
        assert glyph_copy is not glyph
        assert glyph_copy.path_obj is glyph.path_obj
        assert glyph_copy.points is not glyph.points
        assert glyph_copy.fill_rgbas is not glyph.fill_rgbas


def test_a_label_keeps_no_groups_by_svg_id():
    assert label("0.42").id_to_vgroup_dict == {}
    assert label("d_k").id_to_vgroup_dict == {}  # the marked-up kind too


def test_a_copied_formula_keeps_its_parts_by_tex():
    """MathTex reads its groups by SVG id (to colour or find a part): a copy's groups are its own glyphs."""
    typeset = formula("q", r"\cdot", "k")
    copied = typeset.copy()
    copied.set_color_by_tex("k", "#ff0000")
    assert np.allclose(copied[2][0].get_fill_color().to_rgb(), (1, 0, 0))
    assert not np.allclose(typeset[2][0].get_fill_color().to_rgb(), (1, 0, 0))
    assert all(part in copied.get_family() for group in copied.id_to_vgroup_dict.values() for part in group.submobjects)


def uncached(written: Text) -> Text:
    """``written`` made again the way Manim makes a Text by default: parsed, no cache."""
    return Text(written.original_text, font=written.font, font_size=written.font_size, color=written.color)


def test_a_label_written_again_is_copied_not_parsed(monkeypatch):
    """Labels go through Manim's SVG cache: a repeat is the first label's picture, parsed once, and
    a label of its own (changing one leaves the other, and the next repeat, as written)."""
    parsed = []
    parse = SVGMobject.generate_mobject
    monkeypatch.setattr(SVGMobject, "generate_mobject", lambda self: parsed.append(self) or parse(self))
    monkeypatch.setattr(svg_mobject, "SVG_HASH_TO_MOB_MAP", {})  # as if no label had been written yet
    first = label("猫 0.731", role="key")
    before = drawn(first)
    again = label("猫 0.731", role="key")
    assert len(parsed) == 1
    assert same_drawing(drawn(again), before)
    again.shift(RIGHT).set_color("#ff0000")
    assert same_drawing(drawn(first), before)
    assert same_drawing(drawn(label("猫 0.731", role="key")), before)
    label("猫 0.731", role="query")  # another colour,
    label("猫 0.732", role="key")  # another text: parsed anew
    assert len(parsed) == 3
    assert same_drawing(drawn(uncached(first)), before)  # as Manim draws it parsed anew

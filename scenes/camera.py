"""The explainer's camera: Manim's MovingCamera, with two of its hot spots done in fewer steps
(issue 42). Every frame it draws is pixel for pixel the frame Manim's own camera draws.

- Manim's Cairo camera scales every stroke it draws by ``frame_width / frame_width`` (always 1), and
  a MovingCamera's ``frame_width`` measures its frame rectangle's points each time it is asked: twice
  a stroke, 1.9 % of the explainer's samples at 480p15 (py-spy). While this camera draws a frame,
  the width is measured once, as the frame stands then; drawing moves no frame, so every value is
  the one Manim would measure.
- Tracing a shape's outline into Cairo (``set_cairo_context_path``) was 19 % of the explainer's
  samples at 480p15: per shape, a dozen small NumPy calls to find where its subpaths split, then a
  loop reading each curve's coordinates out of a NumPy array one scalar at a time. Here the points
  are read once into Python floats and the splits found in the same loop that hands Cairo its
  curves, by the comparison of VMobject.get_subpath_split_indices_from_points (np.isclose's, taken
  from the next curve's start), written out for the points it can meet here: float64 (what Manim
  keeps), finite (Manim's camera draws a shape with any other as nothing), four a curve. Any other
  shape, or one whose class splits its subpaths its own way, is traced by Manim's own method. Cairo
  gets the same calls with the same numbers.
"""

from __future__ import annotations

import numpy as np
from manim import MovingCamera, VMobject

RTOL = 1.0e-5  # np.isclose's, as Manim's subpath split uses
SPLIT_BY_MANIM = VMobject.get_subpath_split_indices_from_points


class ExplainerCamera(MovingCamera):
    measured_width: float | None = None  # the frame's width while a frame is drawn

    @property
    def frame_width(self) -> float:
        return self.measured_width if self.measured_width is not None else self.frame.width

    @frame_width.setter
    def frame_width(self, frame_width: float) -> None:
        MovingCamera.frame_width.fset(self, frame_width)

    def capture_mobjects(self, mobjects, **kwargs) -> None:
        self.measured_width = self.frame.width
        try:
            super().capture_mobjects(mobjects, **kwargs)
        finally:
            self.measured_width = None

    def set_cairo_context_path(self, ctx, vmobject):
        points = self.transform_points_pre_display(vmobject, vmobject.points)
        if (
            len(points) % 4
            or points.dtype != np.float64
            or vmobject.n_points_per_cubic_curve != 4
            or type(vmobject).get_subpath_split_indices_from_points is not SPLIT_BY_MANIM
        ):
            return super().set_cairo_context_path(ctx, vmobject)
        if len(points) == 0:
            return self
        ctx.new_path()
        tolerance = vmobject.tolerance_for_point_equality
        curves = points.reshape(-1, 12).tolist()  # x y z of a curve's four points
        first = last = curves[0]
        ctx.new_sub_path()
        ctx.move_to(first[0], first[1])
        ctx.curve_to(first[3], first[4], first[6], first[7], first[9], first[10])
        for curve in curves[1:]:
            x, y = curve[0], curve[1]
            if abs(last[9] - x) > tolerance + RTOL * abs(x) or abs(last[10] - y) > tolerance + RTOL * abs(y):
                if vmobject.consider_points_equals_2d(first, last[9:]):
                    ctx.close_path()
                first = curve
                ctx.new_sub_path()
                ctx.move_to(x, y)
            ctx.curve_to(curve[3], curve[4], curve[6], curve[7], curve[9], curve[10])
            last = curve
        if vmobject.consider_points_equals_2d(first, last[9:]):
            ctx.close_path()
        return self

"""The explainer's camera: Manim's MovingCamera, measuring its frame once a frame (issue 42).

Manim's Cairo camera scales every stroke it draws by ``frame_width / frame_width`` (always 1), and a
MovingCamera's ``frame_width`` measures its frame rectangle's points each time it is asked: twice a
stroke, 1.9 % of the explainer's samples at 480p15 (py-spy). While this camera draws a frame, the
width is measured once, as the frame stands then; drawing moves no frame, so every value is the one
Manim would measure.
"""

from __future__ import annotations

from manim import MovingCamera


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

"""Held frames nearly free (issue 42).

When nothing moves (a ``wait``, a step held for its narration), Manim draws the frame once and hands
it to the encoder with ``repeat=n``; its encoder then makes an RGBA frame and converts it to the
codec's pixel format n times, which at 1080p costs more than drawing. Here the frame is made and
converted once and the same converted picture is encoded n times, each with its own timestamp: the
same pixels reach the codec, at a fraction of the cost. Installed by ``scenes.base`` for every
chapter; Manim's API at the scenes is unchanged.
"""

from __future__ import annotations

from fractions import Fraction

import av
from manim.scene.video_segment_encoder import VideoSegmentEncoder


def write_frame(self: VideoSegmentEncoder, pixels, *, repeat: int = 1) -> None:
    """VideoSegmentEncoder.write_frame, converting the frame once for all its repeats."""
    self._validate_frame(pixels, repeat)
    time_base = Fraction(self.spec.frame_rate.denominator, self.spec.frame_rate.numerator)
    try:
        frame = av.VideoFrame.from_ndarray(pixels, format="rgba")
        if self._stream.pix_fmt != "rgba":
            frame = frame.reformat(format=self._stream.pix_fmt)
        for _ in range(repeat):
            frame.pts = self._next_pts  # the codec keeps its own reference: the next repeat may reuse the frame
            frame.time_base = time_base
            self._next_pts += 1
            for packet in self._stream.encode(frame):
                self._container.mux(packet)
    except BaseException as error:
        raise self._operation_error("encode", error) from error


def convert_held_frames_once() -> None:
    VideoSegmentEncoder.write_frame = write_frame

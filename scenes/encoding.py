"""Held frames nearly free (issue 42).

When nothing moves (a ``wait``, a step held for its narration), Manim draws the frame once and hands
it to its segment encoder with ``repeat=n``; that encoder then makes an RGBA frame, converts it to
the codec's pixel format and encodes it n times, which at 1080p costs more than drawing. Here:

- the frame is made and converted once, whatever the codec (when the codec takes another pixel
  format than RGBA, by a converter kept for the segment);
- a moving frame is copied from the camera into a spare array the encoder gives back once it has
  converted it, and converted where it lies: Manim copied the camera's pixels into a new array every
  frame (8 MB at 1080p, which the kernel then zeroes), and the encoder copied that once more;
- with libx264, a segment that opens on a held frame (Manim gives every frozen ``wait`` a segment of
  its own) has x264 encode that picture for its first REFINING_FRAMES frames, and the rest become
  skip frames repeating the last, written into the stream when the segment closes
  (``scenes.skip_frames``: constant frame rate, checked before first use); otherwise the codec
  encodes every repeat as Manim's own encoder would.

Installed by ``scenes.base`` for every chapter; Manim's API at the scenes is unchanged.
"""

from __future__ import annotations

from collections import deque
from fractions import Fraction

import av
import numpy as np
from av.video.reformatter import VideoReformatter
from manim.renderer.cairo_renderer import CairoRenderer
from manim.scene.video_segment_encoder import VideoSegmentEncoder

from scenes.skip_frames import REFINING_FRAMES, SkipFrames, still_frames


def time_base(encoder: VideoSegmentEncoder) -> Fraction:
    return Fraction(encoder.spec.frame_rate.denominator, encoder.spec.frame_rate.numerator)


def converter(encoder: VideoSegmentEncoder) -> VideoReformatter:
    """The segment's colour converter, kept from frame to frame: ``VideoFrame.reformat`` would set up
    and free a new one for every frame (at 1080p 4.3 ms a frame against 3.3 ms kept)."""
    if not hasattr(encoder, "converter"):
        encoder.converter = VideoReformatter()
    return encoder.converter


class CameraCopy(np.ndarray):
    """A copy of the camera's picture made for the segment encoder, which gives it back to SPARE once
    it has converted it."""


# Copies converted, to be filled again (the renderer takes, the encoder's thread gives): at most
# SPARES, the oldest freed beyond them, so that after a burst of copies in flight (the encoder behind
# the renderer) the spares do not keep memory the chapter needs later.
SPARES = 4
SPARE: deque[CameraCopy] = deque(maxlen=SPARES)


def for_the_encoder(pixels: np.ndarray) -> CameraCopy:
    """A copy of ``pixels`` in a spare array: a copy in flight is the encoder's until converted."""
    try:
        copy = SPARE.pop()
    except IndexError:
        copy = None
    if copy is None or copy.shape != pixels.shape:
        copy = np.empty_like(pixels).view(CameraCopy)
    np.copyto(copy, pixels)
    return copy


def render(self: CairoRenderer, scene, time: float, moving_mobjects=None) -> None:
    """CairoRenderer.render, the frame copied into a spare array instead of a new one."""
    self.update_frame(scene, moving_mobjects)
    self.add_frame(for_the_encoder(self.camera.pixel_array))


def converted(encoder: VideoSegmentEncoder, pixels: np.ndarray) -> av.VideoFrame:
    """``pixels`` in the codec's pixel format; a camera copy goes back to SPARE."""
    if encoder._stream.pix_fmt == "rgba":  # the codec takes the frame itself, and may hold on to it
        frame = av.VideoFrame.from_ndarray(pixels, format="rgba")
    else:  # converted from the array where it lies (from_ndarray would copy it first)
        frame = converter(encoder).reformat(
            av.VideoFrame.from_numpy_buffer(pixels, format="rgba"), format=encoder._stream.pix_fmt
        )
    if isinstance(pixels, CameraCopy):
        SPARE.append(pixels)
    return frame


def mux(encoder: VideoSegmentEncoder, packets: list[av.Packet]) -> None:
    """Write the codec's packets, noting how many frames the last is decoded before it is shown
    (x264 with B frames decodes ahead; the skip frames after it keep the same distance)."""
    for packet in packets:
        encoder.delay = packet.pts - packet.dts
        encoder._container.mux(packet)


def encode(encoder: VideoSegmentEncoder, frame: av.VideoFrame, repeat: int) -> None:
    """Encode the converted ``frame`` ``repeat`` times at the next timestamps."""
    for _ in range(repeat):
        frame.pts = encoder._next_pts  # the codec keeps its own reference: the next repeat may reuse the frame
        frame.time_base = time_base(encoder)
        encoder._next_pts += 1
        mux(encoder, encoder._stream.encode(frame))


def write_frame(self: VideoSegmentEncoder, pixels, *, repeat: int = 1) -> None:
    """VideoSegmentEncoder.write_frame: each frame converted once, a segment's opening hold as skip frames."""
    self._validate_frame(pixels, repeat)
    try:
        frame = converted(self, pixels)
        held = getattr(self, "held", None)
        if held is not None:  # not a frozen segment after all: the codec encodes the repeats held back
            self.held = None
            encode(self, *held)
        if repeat > REFINING_FRAMES and self._next_pts == 0 and self.spec.codec == "libx264":
            mux(self, still_frames(self._stream, frame, 0, 1))  # the codec opens: its parameter sets exist
            self._next_pts, repeat = 1, repeat - 1
            skips = SkipFrames.for_stream(self.spec, bytes(self._stream.codec_context.extradata or b""))
            if skips is not None:
                mux(self, still_frames(self._stream, frame, 1, REFINING_FRAMES - 1))
                self._next_pts = REFINING_FRAMES
                self.held, self.skips = (frame, repeat - (REFINING_FRAMES - 1)), skips
                return
        encode(self, frame, repeat)
    except BaseException as error:
        raise self._operation_error("encode", error) from error


def finish(self: VideoSegmentEncoder) -> None:
    """VideoSegmentEncoder.finish, with a held picture's skip frames after the codec's last packet."""
    if self._closed:
        return
    self._closed = True
    held, self.held = getattr(self, "held", None), None
    first_error: Exception | None = None
    try:
        try:
            mux(self, self._stream.encode())
            if held is not None:
                for packet in self.skips.packets(self._next_pts, held[1], self._stream, self.delay):
                    self._container.mux(packet)
        except Exception as error:
            first_error = error
    finally:
        try:
            self._container.close()
        except Exception as error:
            if first_error is None:
                first_error = error
    if first_error is not None:
        raise self._operation_error("finish", first_error) from first_error


def convert_held_frames_once() -> None:
    CairoRenderer.render = render
    VideoSegmentEncoder.write_frame = write_frame
    VideoSegmentEncoder.finish = finish

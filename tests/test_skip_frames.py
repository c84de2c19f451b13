"""Held frames as H.264 skip frames (scenes/skip_frames.py, scenes/encoding.py): the segment a frozen
``wait`` makes still has every frame at a constant rate, decodes without an error to the held picture,
and x264 encodes only the first REFINING_FRAMES of it; anything else falls back to the codec."""

import dataclasses
import subprocess
from fractions import Fraction

import av
import numpy as np
import pytest
from manim._config.video_encoder import VideoEncoderSpec
from manim.scene.video_segment_encoder import VideoSegmentEncoder

from scenes import encoding, skip_frames
from scenes.pipeline.rendering import encoder_options
from scenes.pipeline.request import DEFAULT_PRESET
from scenes.skip_frames import REFINING_FRAMES, SkipFrames

encoding.convert_held_frames_once()

# the options the pipeline gives Manim for mp4 at 1080p60
OPTIONS = tuple(
    tuple(part.strip() for part in line.split("=", 1))
    for line in encoder_options(DEFAULT_PRESET, "mp4", "h").splitlines()
)


def spec(width=320, height=180, options=OPTIONS, codec="libx264", container="mp4", pixels="yuv420p"):
    return VideoEncoderSpec(container, codec, pixels, width, height, Fraction(60), options)


def picture(seed: int, width=320, height=180) -> np.ndarray:
    pixels = np.random.default_rng(seed).integers(0, 256, (height, width, 4), np.uint8)
    pixels[..., :3] = pixels[..., :3] // 64 * 64  # blocks of few colours, like a diagram
    pixels[..., 3] = 255
    return np.ascontiguousarray(np.repeat(np.repeat(pixels[::8, ::8], 8, 0), 8, 1)[:height, :width])


def segment(tmp_path, writes, encoder_spec=None):
    """A segment written as Manim writes one: ``writes`` is a list of (pixels, repeat)."""
    encoder = VideoSegmentEncoder(target=tmp_path / "segment.mp4", spec=encoder_spec or spec())
    for pixels, repeat in writes:
        encoder.write_frame(pixels, repeat=repeat)
    encoder.finish()
    return tmp_path / "segment.mp4"


def decoded(path):
    """Every frame as an RGB array with its timestamp, and the packet sizes."""
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        sizes = [p.size for p in container.demux(stream) if p.size]
    with av.open(str(path)) as container:
        frames = [(f.pts, f.to_ndarray(format="rgb24")) for f in container.decode(video=0)]
    return frames, sizes


def ffmpeg_errors(path) -> str:
    return subprocess.run(
        ["ffmpeg", "-v", "error", "-xerror", "-i", str(path), "-f", "null", "-"], capture_output=True, text=True
    ).stderr


def psnr(a, b) -> float:
    return 10 * np.log10(255**2 / np.mean((a.astype(float) - b.astype(float)) ** 2))


def test_a_held_picture_is_every_frame_at_a_constant_rate_and_mostly_tiny_skip_frames(tmp_path):
    held = picture(1)
    path = segment(tmp_path, [(held, 300)])
    frames, sizes = decoded(path)
    assert ffmpeg_errors(path) == ""
    assert len(frames) == 300
    step = frames[1][0] - frames[0][0]
    assert [pts for pts, _ in frames] == [i * step for i in range(300)]
    last_refined = frames[REFINING_FRAMES - 1][1]
    assert all(np.array_equal(pixels, last_refined) for _, pixels in frames[REFINING_FRAMES:])
    assert psnr(last_refined, held[..., :3]) > 25
    # x264 made the first REFINING_FRAMES frames; every other one is a copy of the skip slice
    _, skip = skip_frames.template(spec())
    assert sizes[REFINING_FRAMES:] == [len(skip.frame(n)) for n in range(REFINING_FRAMES, 300)]


@pytest.fixture
def skip_frames_written(monkeypatch):
    written = []
    packets = SkipFrames.packets

    def counted(self, first, count, stream, delay):
        written.append(count)
        return packets(self, first, count, stream, delay)

    monkeypatch.setattr(SkipFrames, "packets", counted)
    return written


def test_the_segment_is_decoded_in_steps_of_one_frame_across_the_switch_to_skip_frames(tmp_path):
    """x264 with B frames decodes two frames ahead of showing them; the skip frames keep that distance,
    so the segment file itself has a constant frame rate, not one frame lasting three."""
    path = segment(tmp_path, [(picture(1), 100)])
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        decoding = [p.dts for p in container.demux(stream) if p.size]
        assert stream.average_rate == 60
    assert [b - a for a, b in zip(decoding, decoding[1:])] == [decoding[1] - decoding[0]] * 99


def test_x264_numbering_its_frames_otherwise_means_no_skip_frames():
    """An IDR picture among the refining frames (a keyframe every 10 frames) restarts the frame
    numbers: copies numbered on from the hold's first frame would not follow, so none are made."""
    every_ten = spec(options=(*OPTIONS[:2], ("x264-params", "keyint=10:min-keyint=1")))
    assert SkipFrames.for_stream(every_ten, skip_frames.encoded(every_ten, picture(1), 1)[0]) is None


def test_a_frame_after_the_hold_has_the_codec_encode_the_repeats_after_all(tmp_path, skip_frames_written):
    held, after = picture(1), picture(2)
    frames, _ = decoded(segment(tmp_path, [(held, 40), (after, 1)]))
    assert skip_frames_written == []
    assert len(frames) == 41
    assert all(psnr(pixels, held[..., :3]) > 25 for _, pixels in frames[:40])
    assert psnr(frames[40][1], after[..., :3]) > 25


def test_a_hold_after_moving_frames_and_a_short_hold_are_encoded_by_the_codec(tmp_path, skip_frames_written):
    frames, _ = decoded(segment(tmp_path, [(picture(1), 1), (picture(2), 50)]))
    assert len(frames) == 51
    frames, _ = decoded(segment(tmp_path, [(picture(3), REFINING_FRAMES)]))
    assert len(frames) == REFINING_FRAMES
    assert skip_frames_written == []
    decoded(segment(tmp_path, [(picture(3), REFINING_FRAMES + 1)]))
    assert skip_frames_written == [1]


def test_other_codecs_and_sliced_x264_get_no_skip_frames():
    assert SkipFrames.for_stream(spec(codec="libvpx-vp9", container="webm"), b"") is None
    sliced = spec(options=(("preset", "veryfast"), ("thread_type", "slice"), ("threads", "2")))
    assert SkipFrames.for_stream(sliced, b"anything") is None


@pytest.mark.parametrize("preset", ["ultrafast", "veryfast", "medium"])
def test_the_skip_slice_of_each_entropy_coder_decodes_past_the_frame_number_wrap(preset):
    settings = spec(options=(("preset", preset), ("thread_type", "frame")))
    extradata, skip = skip_frames.template(settings)
    assert skip.picture.cabac == (preset != "ultrafast")
    assert skip_frames.decodes_to_held_picture(settings, extradata, skip)


@pytest.mark.parametrize(
    "broken",
    [
        lambda s: dataclasses.replace(s, qp_delta=s.qp_delta + 3),
        lambda s: dataclasses.replace(s, data=skip_frames.template(spec(64, 64))[1].data),
        lambda s: dataclasses.replace(s, cabac_init=(s.cabac_init + 1) % 3),
        lambda s: dataclasses.replace(s, data=bytes([s.data[0] ^ 0x10]) + s.data[1:]),
    ],
    ids=["qp", "smaller-picture", "cabac-init", "flipped-bit"],
)
def test_the_check_refuses_a_skip_slice_that_does_not_repeat_the_picture(broken):
    extradata, skip = skip_frames.template(spec())
    assert not skip_frames.decodes_to_held_picture(spec(), extradata, broken(skip))


@pytest.mark.parametrize(
    "raw", [b"\x00\x00\x00\x01", b"\x00\x00\x03\x00\x00\x02", b"\x12\x00\x00", bytes(range(256)) * 2]
)
def test_emulation_prevention_round_trips_and_leaves_no_start_code(raw):
    escaped = skip_frames.escaped(raw)
    assert skip_frames.unescaped(escaped) == raw
    assert b"\x00\x00\x01" not in escaped and b"\x00\x00\x00" not in escaped


def test_exp_golomb_codes_read_back_as_written():
    values = [0, 1, 2, 7, 8, 255, 65535]
    writer = skip_frames.BitWriter()
    for value in values:
        writer.ue(value)
        writer.se(-value)
        writer.se(value)
    writer.align(0)
    reader = skip_frames.BitReader(writer.to_bytes())
    assert [(reader.ue(), reader.se(), reader.se()) for _ in values] == [(v, -v, v) for v in values]


def test_a_written_skip_frame_reads_back_as_the_slice_it_was_written_from():
    _, skip = skip_frames.template(spec())
    for number in (REFINING_FRAMES, 17, 1000):
        unit = skip.frame(number)[4:]  # after the start code
        assert skip_frames.read_skip_slice(unit, skip.sequence, skip.picture) == skip


def test_frames_of_a_width_whose_rows_are_padded_convert_whole(tmp_path):
    """854 wide (480p): rows of 3416 bytes, not a multiple of the 64 FFmpeg pads its own frames to."""
    size = {"width": 854, "height": 480}
    pictures = [picture(seed, **size) for seed in (1, 2, 3)]
    frames, _ = decoded(segment(tmp_path, [(p, 1) for p in pictures], spec(**size)))
    assert [round(psnr(pixels, p[..., :3])) > 25 for (_, pixels), p in zip(frames, pictures)] == [True] * 3
    assert psnr(frames[0][1], pictures[1][..., :3]) < 15


@pytest.fixture
def no_spares(monkeypatch):
    monkeypatch.setattr(encoding, "SPARE", type(encoding.SPARE)(maxlen=encoding.SPARES))
    return encoding.SPARE


def test_a_camera_copy_is_refilled_only_once_the_encoder_has_converted_it(tmp_path, no_spares):
    """The renderer's copy of a frame goes back to the spares once converted, and the next frame is
    copied into it; each frame still decodes to its own picture."""
    pictures = [picture(seed) for seed in (1, 2, 3)]
    encoder = VideoSegmentEncoder(target=tmp_path / "segment.mp4", spec=spec())
    copies = []
    for pixels in pictures:
        copy = encoding.for_the_encoder(pixels)
        assert np.array_equal(copy, pixels) and not np.shares_memory(copy, pixels)
        copies.append(copy)
        encoder.write_frame(copy, repeat=1)
    encoder.finish()
    assert copies[1] is copies[0] and copies[2] is copies[0]
    frames, _ = decoded(tmp_path / "segment.mp4")
    assert [psnr(pixels, p[..., :3]) > 25 for (_, pixels), p in zip(frames, pictures)] == [True] * 3
    assert psnr(frames[0][1], pictures[1][..., :3]) < 15


def test_an_array_the_caller_keeps_is_never_refilled(tmp_path, no_spares):
    """Only the renderer's own copies are given back: an array written that is not one (Manim's still
    picture, a test's) stays as it was, and the next copy is made elsewhere."""
    kept = picture(1)
    segment(tmp_path, [(kept, 1)])
    assert len(no_spares) == 0
    copy = encoding.for_the_encoder(picture(2))
    assert copy is not kept and np.array_equal(kept, picture(1))


def test_the_renderer_hands_the_encoder_a_copy_of_the_cameras_picture():
    """CairoRenderer.render as installed: the frame added is a camera copy equal to the picture drawn,
    not the camera's own array, which the next frame draws over."""
    from manim import Scene, Square

    added = []

    class Drawn(Scene):
        def construct(self):
            self.add(Square())

    scene = Drawn()
    scene.renderer.add_frame = lambda frame, num_frames=1: added.append(frame)
    scene.construct()
    scene.renderer.render(scene, 0)
    (frame,) = added
    assert isinstance(frame, encoding.CameraCopy)
    assert frame is not scene.renderer.camera.pixel_array
    assert np.array_equal(frame, scene.renderer.camera.pixel_array)
    assert frame[..., :3].any()  # the square was drawn


def test_no_more_than_SPARES_copies_are_kept_spare(tmp_path, no_spares):
    """A burst of copies in flight, all converted: SPARES of them are kept for the next frames, the
    rest freed."""
    burst = [encoding.for_the_encoder(picture(seed)) for seed in range(encoding.SPARES + 3)]
    segment(tmp_path, [(copy, 1) for copy in burst])
    assert len(no_spares) == encoding.SPARES
    assert all(any(spare is copy for copy in burst) for spare in no_spares)

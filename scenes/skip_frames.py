"""A held picture as H.264 skip frames (issue 42).

A frozen frame (a ``wait``, a step held for its speech) reaches the encoder once with ``repeat=n``.
x264 would still analyse each of the n pictures, about 6 ms apiece at 1080p even when nothing
moved. Instead, x264 encodes the picture for its first REFINING_FRAMES frames (P frames that refine
it), and the other n - REFINING_FRAMES are P frames in which every macroblock is skipped ("the
picture before, again"): one such frame is made by x264 for a flat picture at the segment's own
settings, and each repeat is a copy of it with its frame number and picture order count rewritten.
The stream keeps its constant frame rate, and every skip frame decodes to x264's last picture.

The copies are used only when checked (``SkipFrames.for_stream``): the template's parameter sets are
the segment's, each of its frames is one slice and nothing else, and a textured picture encoded the
same way is numbered as the copies continue and then decodes, with skip frames past the wraps of
the frame number and the picture order count, without an FFmpeg message to that picture. Otherwise
for_stream returns None and x264 encodes every repeat.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from fractions import Fraction

import av
import numpy as np

FIRST_MB = 0
NAL_SLICE = 1
NAL_IDR = 5
NAL_SPS = 7
NAL_PPS = 8
REFERENCE = 2  # nal_ref_idc of the copies: each is a reference picture, so frame numbers simply count up
P_SLICE = 0
# x264 refines a still picture over the P frames that follow its first: on a chapter's last frame at
# 1080p, 31.1 dB after one frame, 33.5 after 8, 33.8 after 16 and after 60. A hold's first frames
# come from x264, the rest are skip frames repeating the last.
REFINING_FRAMES = 16
HIGH_PROFILES = {100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135}


class Unsupported(Exception):
    """A stream this module does not rewrite (x264 then encodes the repeats itself)."""


class BitReader:
    def __init__(self, data: bytes, position: int = 0):
        self.data = data
        self.position = position  # in bits

    def bits(self, count: int) -> int:
        value = 0
        for _ in range(count):
            byte = self.data[self.position >> 3]
            value = (value << 1) | ((byte >> (7 - (self.position & 7))) & 1)
            self.position += 1
        return value

    def ue(self) -> int:
        zeros = 0
        while self.bits(1) == 0:
            zeros += 1
            if zeros > 31:
                raise Unsupported("malformed Exp-Golomb code")
        return (1 << zeros) - 1 + self.bits(zeros)

    def se(self) -> int:
        code = self.ue()
        return (code + 1) // 2 if code % 2 else -(code // 2)

    def aligned(self) -> bool:
        return self.position % 8 == 0


class BitWriter:
    def __init__(self):
        self.value = 0
        self.length = 0

    def bits(self, count: int, value: int) -> None:
        self.value = (self.value << count) | (value & ((1 << count) - 1))
        self.length += count

    def ue(self, value: int) -> None:
        code = value + 1
        self.bits(2 * code.bit_length() - 1, code)

    def se(self, value: int) -> None:
        self.ue(2 * value - 1 if value > 0 else -2 * value)

    def align(self, bit: int) -> None:
        while self.length % 8:
            self.bits(1, bit)

    def to_bytes(self) -> bytes:
        assert self.length % 8 == 0
        return self.value.to_bytes(self.length // 8, "big")


def nal_units(annex_b: bytes) -> list[bytes]:
    """The NAL units of an Annex B byte stream (start codes removed)."""
    units = []
    for chunk in annex_b.split(b"\x00\x00\x01"):
        unit = chunk.rstrip(b"\x00")  # a four-byte start code leaves one zero on the chunk before
        if unit:
            units.append(unit)
    return units


def unescaped(payload: bytes) -> bytes:
    """The raw bits of a NAL unit's payload: emulation prevention bytes (00 00 03) removed."""
    return payload.replace(b"\x00\x00\x03", b"\x00\x00")


def escaped(raw: bytes) -> bytes:
    """A NAL payload from raw bits: 03 inserted wherever 00 00 is followed by a byte up to 03."""
    out = bytearray()
    zeros = 0
    for byte in raw:
        if zeros >= 2 and byte <= 3:
            out.append(3)
            zeros = 0
        out.append(byte)
        zeros = zeros + 1 if byte == 0 else 0
    return bytes(out)


@dataclass(frozen=True)
class Sequence:
    """What a slice header needs from the sequence parameter set."""

    chroma_format: int
    log2_max_frame_num: int
    picture_order_type: int
    log2_max_order_lsb: int

    @property
    def max_frame_num(self) -> int:
        return 1 << self.log2_max_frame_num

    @property
    def max_order_lsb(self) -> int:
        return 1 << self.log2_max_order_lsb


def read_sequence(unit: bytes) -> Sequence:
    r = BitReader(unescaped(unit[1:]))
    profile = r.bits(8)
    r.bits(16)  # constraint flags, level
    r.ue()  # seq_parameter_set_id
    chroma_format = 1
    if profile in HIGH_PROFILES:
        chroma_format = r.ue()
        if chroma_format == 3 and r.bits(1):
            raise Unsupported("colour planes coded separately")
        r.ue(), r.ue(), r.bits(1)  # bit depths, lossless bypass
        if r.bits(1):
            raise Unsupported("scaling matrices in the sequence parameter set")
    log2_max_frame_num = r.ue() + 4
    order_type = r.ue()
    if order_type == 1:
        raise Unsupported("picture order count type 1")
    log2_max_order_lsb = r.ue() + 4 if order_type == 0 else 0
    r.ue(), r.bits(1)  # max_num_ref_frames, gaps allowed
    r.ue(), r.ue()  # size in macroblocks
    if not r.bits(1):
        raise Unsupported("interlaced coding")
    return Sequence(chroma_format, log2_max_frame_num, order_type, log2_max_order_lsb)


@dataclass(frozen=True)
class Picture:
    """What a slice header needs from the picture parameter set."""

    cabac: bool
    bottom_field_order_present: bool
    default_l0_refs: int
    weighted: bool
    deblocking_control: bool


def read_picture(unit: bytes) -> Picture:
    r = BitReader(unescaped(unit[1:]))
    r.ue(), r.ue()  # pic and seq parameter set ids
    cabac = bool(r.bits(1))
    bottom_field_order_present = bool(r.bits(1))
    if r.ue():
        raise Unsupported("slice groups")
    default_l0_refs = r.ue() + 1
    r.ue()  # l1
    weighted = bool(r.bits(1))
    r.bits(2)  # weighted bi-prediction
    r.se(), r.se(), r.se()  # initial QP, QS, chroma QP offset
    deblocking_control = bool(r.bits(1))
    r.bits(1)  # constrained intra prediction
    if r.bits(1):
        raise Unsupported("redundant pictures")
    return Picture(cabac, bottom_field_order_present, default_l0_refs, weighted, deblocking_control)


@dataclass(frozen=True)
class SkipSlice:
    """An all-skip P slice, ready to be written with any frame number."""

    sequence: Sequence
    picture: Picture
    slice_type: int
    pps_id: int
    bottom_delta: int
    luma_denominator: int
    chroma_denominator: int
    cabac_init: int
    qp_delta: int
    deblocking: tuple[int, ...]
    data: bytes  # CABAC: the byte-aligned slice data; CAVLC: its bits, left-aligned, zero-padded
    data_bits: int  # CAVLC: how many bits of ``data`` are slice data (before the stop bit)

    def frame(self, number: int) -> bytes:
        """The NAL unit (Annex B) of the ``number``-th picture after an IDR picture."""
        w = BitWriter()
        w.ue(FIRST_MB)
        w.ue(self.slice_type)
        w.ue(self.pps_id)
        w.bits(self.sequence.log2_max_frame_num, number % self.sequence.max_frame_num)
        if self.sequence.picture_order_type == 0:
            w.bits(self.sequence.log2_max_order_lsb, 2 * number % self.sequence.max_order_lsb)
            if self.picture.bottom_field_order_present:
                w.se(self.bottom_delta)
        w.bits(1, 1)  # num_ref_idx_active_override_flag: one reference, the picture before
        w.ue(0)
        w.bits(1, 0)  # no reference list modification
        if self.picture.weighted:
            w.ue(self.luma_denominator)
            if self.sequence.chroma_format:
                w.ue(self.chroma_denominator)
            w.bits(1, 0)
            if self.sequence.chroma_format:
                w.bits(1, 0)
        w.bits(1, 0)  # sliding-window reference marking
        if self.picture.cabac:
            w.ue(self.cabac_init)
        w.se(self.qp_delta)
        if self.picture.deblocking_control:
            w.ue(self.deblocking[0])
            for offset in self.deblocking[1:]:
                w.se(offset)
        if self.picture.cabac:
            w.align(1)
            raw = w.to_bytes() + self.data
        else:
            w.bits(self.data_bits, int.from_bytes(self.data, "big") >> (-self.data_bits % 8))
            w.bits(1, 1)
            w.align(0)
            raw = w.to_bytes()
        return b"\x00\x00\x00\x01" + bytes([REFERENCE << 5 | NAL_SLICE]) + escaped(raw)


def numbering(unit: bytes, sequence: Sequence) -> tuple[int, int]:
    """A slice's frame number and picture order count (its lsb; 0 without one)."""
    r = BitReader(unescaped(unit[1:]))
    r.ue(), r.ue(), r.ue()  # first macroblock, slice type, picture parameter set
    frame_num = r.bits(sequence.log2_max_frame_num)
    if unit[0] & 0x1F == NAL_IDR:
        r.ue()
    order = r.bits(sequence.log2_max_order_lsb) if sequence.picture_order_type == 0 else 0
    return frame_num, order


def read_skip_slice(unit: bytes, sequence: Sequence, picture: Picture) -> SkipSlice:
    """The parts of x264's P slice ``unit`` that a rewritten copy keeps."""
    ref_idc = unit[0] >> 5
    raw = unescaped(unit[1:])
    r = BitReader(raw)
    if r.ue() != FIRST_MB:
        raise Unsupported("more than one slice a picture")
    slice_type = r.ue()
    if slice_type % 5 != P_SLICE:
        raise Unsupported("not a P slice")
    pps_id = r.ue()
    r.bits(sequence.log2_max_frame_num)
    bottom_delta = 0
    if sequence.picture_order_type == 0:
        r.bits(sequence.log2_max_order_lsb)
        if picture.bottom_field_order_present:
            bottom_delta = r.se()
    refs = r.ue() + 1 if r.bits(1) else picture.default_l0_refs
    if r.bits(1):  # reference list modification
        while (operation := r.ue()) != 3:
            if operation in (0, 1, 2):
                r.ue()
    luma_denominator = chroma_denominator = 0
    if picture.weighted:
        luma_denominator = r.ue()
        if sequence.chroma_format:
            chroma_denominator = r.ue()
        for _ in range(refs):
            if r.bits(1):
                r.se(), r.se()
            if sequence.chroma_format and r.bits(1):
                r.se(), r.se(), r.se(), r.se()
    if ref_idc and r.bits(1):  # adaptive reference marking
        while (operation := r.ue()) != 0:
            if operation in (1, 2, 3, 6):
                r.ue()
            if operation in (3, 4):
                r.ue()
    cabac_init = r.ue() if picture.cabac else 0
    qp_delta = r.se()
    deblocking: tuple[int, ...] = ()
    if picture.deblocking_control:
        idc = r.ue()
        deblocking = (idc,) if idc == 1 else (idc, r.se(), r.se())
    if picture.cabac:
        while not r.aligned():
            if not r.bits(1):
                raise Unsupported("CABAC alignment bits not ones")
        data, data_bits = raw[r.position // 8 :], 0
    else:
        stop = len(raw) * 8 - (raw[-1] & -raw[-1]).bit_length()  # the rbsp stop bit
        data_bits = stop - r.position
        padding = -data_bits % 8
        data = (r.bits(data_bits) << padding).to_bytes((data_bits + padding) // 8, "big")
    return SkipSlice(
        sequence,
        picture,
        slice_type,
        pps_id,
        bottom_delta,
        luma_denominator,
        chroma_denominator,
        cabac_init,
        qp_delta,
        deblocking,
        data,
        data_bits,
    )


def still_frames(stream, frame: av.VideoFrame, first_pts: int, count: int) -> list[av.Packet]:
    """Encode one converted picture ``count`` times from ``first_pts``: x264 picks the segment's first
    frame's type, every later one is a P frame (no B frames, so each refines the one before and the
    last is the reference the skip frames will repeat)."""
    packets = []
    time_base = Fraction(stream.codec_context.framerate.denominator, stream.codec_context.framerate.numerator)
    for pts in range(first_pts, first_pts + count):
        frame.pts, frame.time_base = pts, time_base
        frame.pict_type = av.video.frame.PictureType.P if pts else av.video.frame.PictureType.NONE
        packets += stream.encode(frame)
    frame.pict_type = av.video.frame.PictureType.NONE
    return packets


def encoded(spec, pixels: np.ndarray, count: int) -> tuple[bytes, list[av.Packet]]:
    """Manim's segment encoder at ``spec`` given ``pixels`` (RGBA) held ``count`` frames, as the
    opening of a hold is encoded: its extradata and packets."""
    container = av.open(io.BytesIO(), mode="w", format=spec.container_format)
    try:
        stream = container.add_stream(spec.codec, rate=spec.frame_rate, options=dict(spec.options))
        stream.pix_fmt = spec.pixel_format
        stream.width = spec.width
        stream.height = spec.height
        frame = av.VideoFrame.from_ndarray(pixels, format="rgba").reformat(format=spec.pixel_format)
        packets = still_frames(stream, frame, 0, count) + stream.encode()
        return bytes(stream.codec_context.extradata or b""), packets
    finally:
        container.close()


def picture_of(spec, textured: bool) -> np.ndarray:
    """A flat grey picture, or one with stripes and gradients in every channel, RGBA, the segment's size."""
    rows, columns = np.ogrid[: spec.height, : spec.width]
    pixels = np.full((spec.height, spec.width, 4), 255, np.uint8)
    if textured:
        pixels[..., 0] = (rows * 3 + columns) % 256
        pixels[..., 1] = (columns // 8 % 2) * 200
        pixels[..., 2] = (rows * columns // 64) % 256
    else:
        pixels[..., :3] = 128
    return pixels


def template(spec) -> tuple[bytes, SkipSlice]:
    """x264's skip slice for a flat picture held a few frames, at ``spec``'s settings."""
    extradata, packets = encoded(spec, picture_of(spec, False), 4)
    units = nal_units(extradata)
    sequences = [u for u in units if u[0] & 0x1F == NAL_SPS]
    pictures = [u for u in units if u[0] & 0x1F == NAL_PPS]
    if len(sequences) != 1 or len(pictures) != 1:
        raise Unsupported("not one parameter set of each kind in the extradata")
    sequence, picture = read_sequence(sequences[0]), read_picture(pictures[0])
    units = nal_units(bytes(packets[-1]))
    if len(units) != 1 or units[0][0] & 0x1F != NAL_SLICE or not units[0][0] >> 5:
        raise Unsupported("a frame is more than one reference slice (slices, SEI, delimiters)")
    return extradata, read_skip_slice(units[0], sequence, picture)


def decodes_to_held_picture(spec, extradata: bytes, skip: SkipSlice) -> bool:
    """Whether a textured picture held as a hold opens (REFINING_FRAMES from x264) and then as skip
    frames past the frame number's wrap twice decodes without an error message to x264's last
    picture every time."""
    own_extradata, packets = encoded(spec, picture_of(spec, True), REFINING_FRAMES)
    if own_extradata != extradata:
        return False
    (unit,) = nal_units(bytes(packets[-1]))
    expected = skip.frame(REFINING_FRAMES - 1)[4:]  # what a copy in the last refining frame's place would be
    if numbering(unit, skip.sequence) != numbering(expected, skip.sequence):
        return False  # x264 numbered its frames otherwise (an IDR picture among them): copies would not follow
    sequence = skip.sequence
    last = REFINING_FRAMES + 2 * max(sequence.max_frame_num, sequence.max_order_lsb // 2) + 2
    decoder = av.CodecContext.create("h264", "r")
    decoder.extradata = extradata
    decoded, held, same, kept = 0, None, True, []
    level = av.logging.get_level()
    av.logging.set_level(av.logging.WARNING)  # FFmpeg's messages reach Capture only with a level set
    try:
        with av.logging.Capture() as messages:
            units = [bytes(packet) for packet in packets]
            units += [skip.frame(number) for number in range(REFINING_FRAMES, last + 1)]
            for unit in [*units, None]:
                for frame in decoder.decode(av.Packet(unit) if unit is not None else None):
                    if decoded == REFINING_FRAMES - 1:
                        held = frame.to_ndarray()
                    elif decoded >= REFINING_FRAMES:
                        same = same and np.array_equal(frame.to_ndarray(), held)
                    if decoded < REFINING_FRAMES:
                        # x264's frames kept, the first skip frame is decoded into a new buffer, where a
                        # slice that leaves part of the picture undecoded shows (a reused buffer holds an
                        # earlier picture). Every frame kept took the check from 401 to 599 MB of its
                        # process at 1080p, 1204 to 1938 MB at 2160p.
                        kept.append(frame)
                    decoded += 1
    finally:
        av.logging.set_level(level)
    if any(severity <= av.logging.WARNING for severity, _, _ in messages):
        return False
    return decoded == last + 1 and same


_checked: dict[object, SkipFrames | None] = {}  # by VideoEncoderSpec: checked once a process


@dataclass(frozen=True)
class SkipFrames:
    """Repeats of a held picture for one encoder setting."""

    extradata: bytes
    skip: SkipSlice

    def packets(self, first: int, count: int, stream, delay: int) -> list[av.Packet]:
        """``count`` skip frames numbered from ``first`` (the frames since the hold's IDR picture),
        decoded ``delay`` frames before they are shown, as x264's own frames before them were."""
        time_base = Fraction(stream.codec_context.framerate.denominator, stream.codec_context.framerate.numerator)
        packets = []
        for number in range(first, first + count):
            packet = av.Packet(self.skip.frame(number))
            packet.pts, packet.dts = number, number - delay
            packet.duration = 1
            packet.time_base = time_base
            packet.stream = stream
            packets.append(packet)
        return packets

    @classmethod
    def for_stream(cls, spec, extradata: bytes) -> SkipFrames | None:
        """Checked skip frames for ``spec`` (a Manim VideoEncoderSpec) whose stream opened with
        ``extradata``, or None."""
        if spec.codec != "libx264":
            return None
        if spec not in _checked:
            try:
                made, skip = template(spec)
                _checked[spec] = cls(made, skip) if decodes_to_held_picture(spec, made, skip) else None
            except Exception:  # anything this module cannot read means: let x264 encode the repeats
                _checked[spec] = None
        found = _checked[spec]
        return found if found is not None and found.extradata == extradata else None

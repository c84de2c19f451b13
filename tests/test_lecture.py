"""Clips for lectures: English throughout, burned-in subtitles, sections, the slide deck,
transparent and GIF clips (issue 8). A few short renders of chapter 10, the shortest chapter."""

import json
import re
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import av
import pytest
from conftest import run_module

from scenes import subtitles
from scenes.ch10_multi_head import MultiHead
from scenes.theme import THEMES

pytestmark = pytest.mark.slow  # renders: the full suite runs them, ./render.sh test --fast does not

CJK = re.compile(r"[\u3000-\u30ff\u3400-\u9fff\uff00-\uffef]")
CHAPTER = "10-multi-head"


def render(*args, cwd: Path):
    result = run_module("scenes.render", "--chapters", "10", *args, cwd=cwd)
    assert result.returncode == 0, result.stderr
    return json.loads((cwd / "out" / "manifest.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def english(tmp_path_factory):
    """Chapter 10 in English with burned-in subtitles and as a slide deck, in one render."""
    folder = tmp_path_factory.mktemp("english")
    manifest = render("--lang", "en", "--subtitles", "burn", "--slides", "--out", "out", cwd=folder)
    return folder / "out", manifest


def test_the_english_render_has_english_subtitles(english):
    out, manifest = english
    cues = subtitles.parse((out / f"{CHAPTER}.srt").read_text(encoding="utf-8"))
    assert len(cues) == MultiHead.narration_lines
    assert not [c.text for c in cues if CJK.search(c.text)]
    assert manifest["tokens"] == "the cat likes to catch mice".split()


def frame_at(clip: Path, seconds: float):
    with av.open(str(clip)) as container:
        for frame in container.decode(video=0):
            if frame.time >= seconds:
                return frame.to_ndarray(format="rgb24")
    raise AssertionError(f"{clip} is shorter than {seconds}s")


def test_burned_subtitles_are_drawn_in_a_band_below_the_picture(english):
    out, manifest = english
    (chapter,) = manifest["chapters"]
    cues = subtitles.parse((out / f"{CHAPTER}.srt").read_text(encoding="utf-8"))
    spoken = frame_at(out / chapter["file"], (cues[0].start + cues[0].end) / 2)
    assert spoken.shape[:2] == (540, 854)  # 480 rows of picture and a 60-row band
    background = tuple(int(THEMES["dark"].background[i : i + 2], 16) for i in (1, 3, 5))
    band = spoken[480:]
    written = (abs(band.astype(int) - background).sum(axis=2) > 120).sum()
    assert written > 200  # the line's letters
    assert (abs(spoken[470:480].astype(int) - background).sum(axis=2) > 120).sum() < 50  # the band is clear above


class References(HTMLParser):
    """Every file an HTML page loads: src, href and background videos, outside comments."""

    def __init__(self):
        super().__init__()
        self.files, self.notes = [], []
        self._in_notes = False

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("src", "href", "data-background-video", "data-background-image") and value:
                self.files.append(value)
        self._in_notes = tag == "aside" and ("class", "notes") in attrs

    def handle_data(self, data):
        if self._in_notes and data.strip():
            self.notes.append(data.strip())
            self._in_notes = False


def test_the_slide_deck_loads_only_local_files_and_has_the_narration_as_notes(english):
    out, manifest = english
    deck = out / manifest["slides"]
    page = References()
    page.feed(deck.read_text(encoding="utf-8"))
    assert page.files and not [f for f in page.files if re.match(r"[a-z]+:|//", f)]
    assert all((deck.parent / f).is_file() for f in page.files), [
        f for f in page.files if not (deck.parent / f).is_file()
    ]
    assert any(f.endswith(".mp4") for f in page.files) and any("reveal.js" in f for f in page.files)
    cues = subtitles.parse((out / f"{CHAPTER}.srt").read_text(encoding="utf-8"))
    assert page.notes == [c.text for c in cues]  # a slide per narrated step, its line as speaker notes
    for css in (deck.parent / "reveal.js").rglob("*.css"):
        assert not re.search(r"url\(\s*['\"]?(https?:)?//", css.read_text(encoding="utf-8", errors="replace")), css


def test_sections_cut_a_chapter_into_its_steps(tmp_path):
    manifest = render("--sections", "--out", "out", cwd=tmp_path)
    (chapter,) = manifest["chapters"]
    index = json.loads((tmp_path / "out" / chapter["sections"]).read_text(encoding="utf-8"))
    sections = index["sections"]
    assert [s["name"] for s in sections] == [
        f"{n:02d}-{name}"
        for n, name in enumerate(("question", "one", "heads", "labels", "concat", "project", "recap"), start=1)
    ]
    folder = (tmp_path / "out" / chapter["sections"]).parent
    for section in sections:
        with av.open(str(folder / section["file"])) as clip:
            assert abs(float(clip.duration / av.time_base) - section["duration"]) < 0.1
    assert abs(sum(s["duration"] for s in sections) - chapter["duration"]) < 0.1 * len(sections)


@pytest.mark.parametrize("container, decoder", [("webm", ["-c:v", "libvpx-vp9"]), ("mov", [])])
def test_a_transparent_clip_has_a_see_through_background(tmp_path, container, decoder):
    from PIL import Image

    manifest = render("--format", container, "--transparent", "--voice", "none", "--out", "out", cwd=tmp_path)
    (chapter,) = manifest["chapters"]
    still = tmp_path / "still.png"
    # The alpha plane of VP9 is decoded by libvpx (FFmpeg's own VP9 decoder drops it).
    subprocess.run(
        [
            "ffmpeg",
            "-v",
            "error",
            *decoder,
            "-ss",
            str(chapter["duration"] / 2),
            "-i",
            str(tmp_path / "out" / chapter["file"]),
            "-frames:v",
            "1",
            "-pix_fmt",
            "rgba",
            str(still),
        ],
        check=True,
    )
    with Image.open(still) as frame:
        alpha = frame.getchannel("A")
        assert alpha.getpixel((2, 2)) < 255 and alpha.getpixel((frame.width - 3, frame.height - 3)) < 255
        assert alpha.getextrema()[1] == 255  # the drawing itself stays opaque


def test_a_gif_is_small_enough_for_slides(tmp_path):
    manifest = render("--format", "gif", "--out", "out", cwd=tmp_path)
    (chapter,) = manifest["chapters"]
    gif = tmp_path / "out" / chapter["file"]
    with av.open(str(gif)) as clip:
        stream = clip.streams.video[0]
        assert stream.width == 640
        frames = sum(1 for _ in clip.decode(stream))
    assert abs(frames / chapter["duration"] - 10) < 0.5 and frames == chapter["frames"]
    assert gif.stat().st_size < 60_000 * chapter["duration"]  # under 60 kB per second of video

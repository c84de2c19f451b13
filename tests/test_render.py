"""End to end: the render command, its outputs, and its refusals."""

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import av
import pytest
from conftest import command_env, run_module

from scenes import subtitles


def render(*args, cwd: Path):
    return run_module("scenes.render", *args, cwd=cwd)


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    out = tmp_path_factory.mktemp("render") / "out"
    result = render(
        "--chapters", "5", "--voice", "none", "--out", str(out), "--sentence", "狗喜欢抓飞盘", cwd=out.parent
    )
    assert result.returncode == 0, result.stderr
    return out, result


@pytest.mark.slow
def test_a_chapter_renders_with_its_subtitles_key_frame_trace_and_manifest(rendered):
    out, _ = rendered
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["tokens"] == ["狗", "喜欢", "抓", "飞盘"]
    (chapter,) = manifest["chapters"]
    with av.open(str(out / chapter["file"])) as clip:
        stream = clip.streams.video[0]
        frames = sum(1 for _ in clip.decode(stream))
        assert (stream.width, stream.height) == (854, 480)
        duration = float(clip.duration / av.time_base)
    assert frames == chapter["frames"]
    assert abs(duration - chapter["duration"]) < 0.1
    # held frames are written as skip frames (scenes/skip_frames.py): the clip still has every frame at
    # 15 fps, and FFmpeg decodes all of it without an error
    assert abs(frames - duration * 15) <= 1
    decoding = subprocess.run(
        ["ffmpeg", "-v", "error", "-xerror", "-i", str(out / chapter["file"]), "-f", "null", "-"],
        capture_output=True,
        text=True,
    )
    assert decoding.returncode == 0 and decoding.stderr == ""
    cues = subtitles.parse((out / f"{chapter['slug']}.srt").read_text(encoding="utf-8"))
    assert len(cues) >= 5 and all(0 <= c.start < c.end <= duration + 0.05 for c in cues)
    assert (out / f"{chapter['slug']}.png").stat().st_size > 10_000
    assert json.loads((out / "trace.json").read_text(encoding="utf-8"))["hash"] == manifest["trace_hash"]
    assert (out / "explainer.mp4").is_file() and (out / "explainer.srt").is_file()
    assert not [p for p in out.iterdir() if p.name.startswith(".staging")]


def test_an_unchanged_rerun_reuses_the_clip(rendered):
    out, _ = rendered
    before = (out / "05-multi-copy-inference.mp4").stat().st_mtime_ns
    result = render(
        "--chapters", "5", "--voice", "none", "--out", str(out), "--sentence", "狗喜欢抓飞盘", cwd=out.parent
    )
    assert result.returncode == 0 and "unchanged, reused" in result.stderr
    assert (out / "05-multi-copy-inference.mp4").stat().st_mtime_ns == before


def test_progress_lines_from_chapters_rendering_side_by_side_stay_whole(capsys):
    from scenes import render

    usual = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible, between any two writes

    def chapter(number):
        for step in range(300):
            render.say(f"  chapter {number}: step {step}")

    try:
        threads = [threading.Thread(target=chapter, args=(n,)) for n in range(1, 9)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(usual)
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 8 * 300
    assert all(line.startswith("  chapter ") and line.count("chapter") == 1 for line in lines)


def test_joined_subtitles_shift_each_chapter_by_the_ones_before(tmp_path):
    first, second = tmp_path / "a.srt", tmp_path / "b.srt"
    first.write_text(subtitles.write([subtitles.Cue(0.0, 2.0, "一")]), encoding="utf-8")
    second.write_text(subtitles.write([subtitles.Cue(1.0, 3.5, "二")]), encoding="utf-8")
    subtitles.join([first, None, second], [10.0, 5.0, 8.0], tmp_path / "all.srt")
    cues = subtitles.parse((tmp_path / "all.srt").read_text(encoding="utf-8"))
    assert [(c.start, c.end, c.text) for c in cues] == [(0.0, 2.0, "一"), (16.0, 18.5, "二")]


# Through the real process (python -m scenes.render); every bad flag is also checked in-process, with
# more cases, by tests/test_hardening.py's BAD_FLAGS.
@pytest.mark.parametrize(
    "args, fragment",
    [
        (["--chapters", "42"], "no chapter 42"),
        (["--format", "png", "--jobs", "-3"], "--jobs must be 1 or more"),
        (["--sentence", "大象喜欢抓老鼠"], "unknown word"),
        (["--sentence", "   "], "empty"),
        (["--sentence", "猫" + "今天每天早上晚上" * 6 + "喜欢抓老鼠"], "read at most 24"),
    ],
)
def test_bad_flags_and_sentences_exit_2_with_one_line_and_nothing_written(tmp_path, args, fragment):
    result = render(*args, "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert lines[-1].startswith("error:") and fragment in lines[-1], result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "out").exists()


def test_an_output_path_that_is_a_file_is_refused(tmp_path):
    (tmp_path / "taken").write_text("x")
    result = render("--out", str(tmp_path / "taken"), cwd=tmp_path)
    assert result.returncode == 2 and "is a file" in result.stderr


def test_list_names_the_chapters(tmp_path):
    result = render("list", cwd=tmp_path)
    numbers = [int(line.split()[0]) for line in result.stdout.splitlines()]
    assert result.returncode == 0 and "第五章" in result.stdout and numbers == sorted(numbers) and 5 in numbers
    english = render("list", "--lang", "en", cwd=tmp_path)
    assert english.returncode == 0 and "Chapter 5" in english.stdout and "第五章" not in english.stdout


def test_list_refuses_a_flag_it_does_not_know(tmp_path):
    result = render("list", "--lang", "fr", cwd=tmp_path)
    assert result.returncode == 2 and result.stderr.strip().splitlines()[-1].startswith("error:")
    assert "unknown language 'fr'" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM])
@pytest.mark.slow
def test_a_render_killed_midway_publishes_nothing_and_the_next_one_succeeds(tmp_path, how):
    out = tmp_path / "out"
    command = [sys.executable, "-m", "scenes.render", "--chapters", "4", "--voice", "none", "--out", str(out)]
    render_process = subprocess.Popen(
        command, cwd=tmp_path, env=command_env(tmp_path), stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    for line in render_process.stderr:
        if "rendering" in line:
            break
    time.sleep(3)
    os.killpg(render_process.pid, how)
    render_process.wait(timeout=60)
    finals = [p.name for p in out.iterdir() if not p.name.startswith(".")] if out.exists() else []
    assert finals == []
    result = render("--chapters", "4", "--voice", "none", "--out", str(out), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (out / "04-attention-nodes.mp4").is_file() and (out / "manifest.json").is_file()
    assert not list(out.glob(".staging-*"))


@pytest.mark.slow
def test_png_frames_with_a_transparent_background(tmp_path):
    from PIL import Image

    out = tmp_path / "out"
    result = render("--chapters", "4", "--format", "png", "--transparent", "--out", str(out), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    (chapter,) = json.loads((out / "manifest.json").read_text(encoding="utf-8"))["chapters"]
    frames = sorted((out / chapter["file"]).glob("frame-*.png"))
    assert len(frames) == chapter["frames"]
    with Image.open(frames[len(frames) // 2]) as frame:
        assert frame.mode == "RGBA" and frame.getpixel((2, 2))[3] < 255


@pytest.mark.parametrize("count, columns, rows", [(1, 1, 1), (3, 3, 1), (11, 4, 3)])
def test_the_contact_sheet_lays_key_frames_in_rows_of_four(tmp_path, count, columns, rows):
    from PIL import Image

    from scenes.outputs import contact_sheet

    frames = []
    for i in range(count):
        frames.append(tmp_path / f"{i:02d}.png")
        Image.new("RGB", (40, 20), (20 * i, 0, 0)).save(frames[-1])
    contact_sheet(frames, tmp_path / "sheet.png")
    sheet = Image.open(tmp_path / "sheet.png")
    assert sheet.size == (columns * 20, rows * 10)  # half size
    if count > 1:
        assert sheet.getpixel((0, 0))[0] < sheet.getpixel((columns * 20 - 5, 5))[0]  # later frames to the right


def test_a_chapter_depends_on_its_own_module_and_the_shared_code_only():
    from scenes.chapters import BY_NUMBER
    from scenes.render import drawing_sources

    four, five = drawing_sources(BY_NUMBER[4]), drawing_sources(BY_NUMBER[5])
    assert BY_NUMBER[4].path in four and BY_NUMBER[5].path not in four and BY_NUMBER[5].path in five
    shared = {p.name for p in four} & {p.name for p in five}
    assert {"base.py", "strings.py", "theme.py", "nodes.py"} <= shared and "render.py" not in shared


@pytest.mark.parametrize("published_before", [False, True])
def test_a_first_render_starts_its_manim_processes_while_the_trace_builds(tmp_path, monkeypatch, published_before):
    from scenes import render
    from scenes.pipeline.request import request_from

    events = []

    class Pool:
        def __init__(self, count):
            events.append(f"{count} Manim processes")

        def __enter__(self):
            return self

        def __exit__(self, *_):
            events.append("closed")

    def trace(*_):
        events.append("trace")
        raise render.UsageError("stop here")

    out = tmp_path / "out"
    out.mkdir()
    if published_before:
        (out / "manifest.json").write_text("{}", encoding="utf-8")
    monkeypatch.setattr(render, "PreloadedPool", Pool)
    monkeypatch.setattr(render, "checked_trace", trace)
    monkeypatch.setattr(render, "check_system", lambda lang: None)
    request = request_from(render.parser().parse_args(["--chapters", "9,10", "--jobs", "4", "--out", str(out)]))
    with pytest.raises(render.UsageError):
        render.run(request)
    # Two chapters: two processes, started before the Trace; a render into an output that has a
    # previous render's manifest may reuse every chapter, and starts them only when it knows.
    assert events == (["trace"] if published_before else ["2 Manim processes", "trace", "closed"])


def test_the_pipelines_own_process_does_not_import_manim():
    # Importing Manim cost the pipeline 0.6 s before every render's Trace; only the chapters draw.
    probe = "import sys, scenes.render; print(sorted(m for m in sys.modules if m.split('.')[0] == 'manim'))"
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=Path(__file__).resolve().parents[1], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"

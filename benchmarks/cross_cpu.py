"""Does training give bitwise the same weights on another processor?

    apt-get install qemu-user                   # once: the emulator
    .venv/bin/python benchmarks/cross_cpu.py    # every model, here and on an emulated AMD EPYC
    .venv/bin/python benchmarks/cross_cpu.py --models rnn,translator --steps 100 --cpu Haswell-v4

Trains each model with the project's own training code for a few hundred steps twice side by side:
on this processor, and under QEMU's user-mode emulator posing as another x86-64 processor (by
default an AMD EPYC Milan: AMD's vendor name, AVX2, no AVX-512), both with training's pinned kernels
(model/train.py, PINNED_KERNELS); then says whether the weights are bitwise equal. Intel MKL picks
its code by the vendor and instructions it sees, and QEMU answers even the approximate instructions
(RCPPS, RSQRTPS) exactly, where a real processor gives its own approximation, so arithmetic that
depends on the processor gives different weights here. 450 steps take the attention models
past step 300, where Query and Key start learning; the translator, whose Query and Key learn from
the first step and whose emulation is the slowest, gets 100. The default run took 20 minutes on 2
cores, almost all of it emulating.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from model import train  # noqa: E402
from model.models import MULTI_HEAD_HEADS, default_corpus, translator_training, twin_corpora  # noqa: E402
from model.tokenizer import Vocab  # noqa: E402

STEPS = {"attention": 450, "multi_head": 450, "rnn": 450, "translator": 100}  # each model's default
MODELS = tuple(STEPS)


def trained_state(name: str, steps: int) -> dict:
    """The model's weights after ``steps`` steps of its shipped schedule (the first size of the RNN)."""
    train.ATTENTION_SCHEDULE = replace(train.ATTENTION_SCHEDULE, steps=steps)
    train.TRANSLATOR_SCHEDULE = replace(train.TRANSLATOR_SCHEDULE, steps=steps)
    if name == "translator":
        return train.train_translator(*translator_training(*twin_corpora())).state_dict()
    corpus = default_corpus("zh")
    vocab = Vocab(corpus.words, corpus.lang)
    inputs, targets = train.next_word_data(corpus.sentences, vocab)
    if name == "attention":
        return train.train_attention(vocab, inputs, targets)[0].state_dict()
    if name == "multi_head":
        return train.train_multi_head(vocab, inputs, targets, MULTI_HEAD_HEADS).state_dict()
    return train.train_rnn_of_size(vocab, inputs, targets, train.RNN_STATE_SIZES[0], steps=steps).state_dict()


def train_both(name: str, steps: int, cpu: str, folder: Path) -> tuple[dict, dict, float, float]:
    """Train ``name`` here and emulated at once; both weights and both times."""
    env = os.environ | train.PINNED_KERNELS | {"PYTHONPATH": str(ROOT)}
    worker = [sys.executable, __file__, "--worker", name, "--steps", str(steps)]
    started = time.monotonic()
    processes = {
        where: subprocess.Popen(
            [*prefix, *worker, str(folder / f"{where}.pt")],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for where, prefix in (("here", []), ("emulated", ["qemu-x86_64", "-cpu", cpu]))
    }
    took = {}
    for where, process in processes.items():
        _, errors = process.communicate()
        took[where] = time.monotonic() - started
        if process.returncode:
            sys.exit(f"{name} ({where}) failed:\n{errors[-2000:]}")
    here, emulated = (torch.load(folder / f"{where}.pt", weights_only=True) for where in ("here", "emulated"))
    return here, emulated, took["here"], took["emulated"]


def compare(name: str, steps: int, cpu: str) -> bool:
    with tempfile.TemporaryDirectory() as folder:
        here, emulated, here_took, emulated_took = train_both(name, steps, cpu, Path(folder))
    equal = all(torch.equal(here[k], emulated[k]) for k in here)
    verdict = (
        "bitwise equal"
        if equal
        else f"DIFFERENT (largest difference {max((here[k] - emulated[k]).abs().max().item() for k in here):.2e})"
    )
    print(f"{name:<11} {steps} steps: {verdict}  (here {here_took:.0f} s, emulated {emulated_took:.0f} s)", flush=True)
    return equal


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(MODELS), help=f"comma-separated, of {', '.join(MODELS)}")
    parser.add_argument("--steps", type=int, help="training steps for every model (default: 450, translator 100)")
    parser.add_argument("--cpu", default="EPYC-Milan-v1", help="QEMU processor model (qemu-x86_64 -cpu help)")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("out", nargs="?", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        torch.save(trained_state(args.worker, args.steps), args.out)
        return
    models = args.models.split(",")
    if unknown := [m for m in models if m not in MODELS]:
        sys.exit(f"unknown model {unknown[0]!r}: choose from {', '.join(MODELS)}")
    if args.steps is not None and args.steps < 1:
        sys.exit("--steps must be at least 1")
    if not shutil.which("qemu-x86_64"):
        sys.exit("qemu-x86_64 not found: install it with `apt-get install qemu-user`")
    print(f"training here and on an emulated {args.cpu}, kernels pinned as {train.PINNED_KERNELS}")
    results = [compare(name, args.steps or STEPS[name], args.cpu) for name in models]
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()

"""Correctness of the models themselves: causal mask, weights, KV cache, determinism."""

import multiprocessing
import os
import platform
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import torch

from model import models, train
from model.attention import AttentionConfig, AttentionModel
from model.measure import kv_cache, sequential_steps
from model.rnn import ElmanRNN, RNNConfig


def random_sentence(length: int, vocab_size: int, seed: int) -> torch.Tensor:
    return torch.randint(vocab_size, (1, length), generator=torch.Generator().manual_seed(seed))


@pytest.fixture(params=["attention", "multi_head", "rnn"])
def language_model(request, zh_models):
    return getattr(zh_models, request.param)


def test_a_later_word_never_changes_an_earlier_prediction(language_model, zh_models):
    ids = random_sentence(10, len(zh_models.vocab), seed=1)
    changed = ids.clone()
    changed[0, 6:] = (changed[0, 6:] + 1) % len(zh_models.vocab)
    with torch.no_grad():
        before, after = language_model(ids), language_model(changed)
    assert torch.equal(before[0, :6], after[0, :6])
    assert not torch.allclose(before[0, 6:], after[0, 6:])


@pytest.mark.parametrize("heads", [1, 3])
def test_attention_rows_sum_to_one_and_ignore_later_words(heads):
    torch.manual_seed(0)
    model = AttentionModel(AttentionConfig(vocab_size=20, heads=heads))
    weights = model.inspect(random_sentence(9, 20, seed=2))["weights"][0]  # (H, T, T)
    assert torch.allclose(weights.sum(-1), torch.ones(heads, 9))
    assert torch.all(weights.triu(1) == 0)


@pytest.mark.parametrize("length", [1, 4, 13, 24])
def test_kv_cache_gives_the_full_recompute_logits_with_t_projections_instead_of_t_t1_over_2(zh_models, length):
    ids = random_sentence(length, len(zh_models.vocab), seed=length)[0].tolist()
    result = kv_cache(zh_models.attention, ids)
    assert result["projections_with_cache"] == length
    assert result["projections_without_cache"] == length * (length + 1) // 2
    assert result["max_abs_diff"] < 1e-5
    assert result["steps_without_cache"] == list(range(1, length + 1))
    assert result["steps_with_cache"] == [1] * length
    assert result["cached_numbers"] == length * 2 * zh_models.attention.config.d_k


@pytest.mark.parametrize("length", [2, 9])
def test_the_rnn_reads_one_word_per_step_and_attention_all_at_once(zh_models, length):
    ids = random_sentence(length, len(zh_models.vocab), seed=length)[0].tolist()
    steps = sequential_steps(zh_models.attention, zh_models.rnn, ids)
    assert steps == {"rnn_steps": length, "attention_steps": 1, "rnn_path": length - 1, "attention_path": 1}


def test_rnn_influence_rows_are_shares_of_earlier_words(zh_models):
    influence = zh_models.rnn.influence(random_sentence(8, len(zh_models.vocab), seed=3))
    assert torch.allclose(influence.sum(-1), torch.ones(8), atol=1e-6)
    assert torch.all(influence.triu(1) == 0)
    assert torch.all(influence >= 0)


def short_training(monkeypatch):
    monkeypatch.setattr(train, "ATTENTION_SCHEDULE", train.Schedule(steps=60, lr=1e-2, attention_delay=10))
    monkeypatch.setattr(train, "RNN_SCHEDULE", train.Schedule(steps=60, lr=3e-3))


def test_training_twice_gives_bitwise_equal_weights(monkeypatch, zh_models):
    short_training(monkeypatch)
    vocab = zh_models.vocab
    inputs, targets = train.next_word_data(zh_models.corpus.sentences, vocab)
    first, _, _ = train.train_attention(vocab, inputs, targets)
    second, _, _ = train.train_attention(vocab, inputs, targets)
    for name, tensor in first.state_dict().items():
        assert torch.equal(tensor, second.state_dict()[name]), name
    assert (
        train.train_rnn_of_size(vocab, inputs, targets, 16)
        .state_dict()["output.weight"]
        .equal(train.train_rnn_of_size(vocab, inputs, targets, 16).state_dict()["output.weight"])
    )


def kernels_in_use() -> tuple[str, str | None]:
    return torch.backends.cpu.get_cpu_capability(), os.environ.get("MKL_CBWR")


def test_a_training_process_uses_the_same_kernels_on_every_processor(monkeypatch):
    """MKL's processor-independent branch (strict) and torch's AVX2 kernels, whatever this process
    uses; even on one core, where training could have run here."""
    monkeypatch.setattr(train.os, "cpu_count", lambda: 1)
    monkeypatch.setenv("MKL_CBWR", "AUTO")
    monkeypatch.delenv("ATEN_CPU_CAPABILITY", raising=False)
    here = torch.backends.cpu.get_cpu_capability()
    expected = "AVX2" if here.startswith("AVX") else here  # AVX2 or one of the AVX512 levels
    assert train.run_parallel({"training": (kernels_in_use,)}) == {"training": (expected, "COMPATIBLE,STRICT")}
    assert os.environ["MKL_CBWR"] == "AUTO" and "ATEN_CPU_CAPABILITY" not in os.environ


@pytest.mark.skipif(platform.machine() != "x86_64", reason="the pins and the emulator are for x86-64 processors")
@pytest.mark.slow
def test_training_gives_bitwise_the_same_weights_on_an_emulated_amd_processor():
    """Five steps of every model here and under QEMU posing as an AMD EPYC (benchmarks/cross_cpu.py).
    With Adam's square root from MKL (until December 2026), an Intel Xeon differed from the first step."""
    benchmark = Path(__file__).resolve().parents[1] / "benchmarks" / "cross_cpu.py"
    result = subprocess.run([sys.executable, str(benchmark), "--steps", "5"], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count("bitwise equal") == 4, result.stdout


def test_training_history_records_every_fifty_steps_with_snapshots(zh_models):
    steps = [entry["step"] for entry in zh_models.history]
    assert steps == list(range(0, train.ATTENTION_SCHEDULE.steps + 1, train.ATTENTION_SCHEDULE.record_every))
    assert len(zh_models.snapshots) == len(steps)
    assert zh_models.history[-1]["loss"] < zh_models.history[0]["loss"]


def test_an_untrained_rnn_and_attention_model_share_one_interface():
    ids = random_sentence(5, 12, seed=4)
    for model in (AttentionModel(AttentionConfig(vocab_size=12)), ElmanRNN(RNNConfig(vocab_size=12))):
        assert model(ids).shape == (1, 5, 12)
        assert "logits" in model.inspect(ids)


def test_training_progress_says_the_time_left_and_never_stays_silent_long(monkeypatch, capsys):
    """A large vocabulary makes a step slow: 250 steps may take minutes, so a line also comes every 15 s."""
    clock = iter(range(0, 10_000, 2))  # 2 s a step
    monkeypatch.setattr(train.time, "monotonic", lambda: next(clock))
    progress = train.Progress("attention", 20)
    for step in range(1, 21):
        progress.step(step, 1.0)
    lines = capsys.readouterr().err.splitlines()
    assert lines == [
        "  attention: step 8/20  loss 1.000  16s, about 24s left",
        "  attention: step 16/20  loss 1.000  32s, about 8s left",
        "  attention: step 20/20  loss 1.000  40s",
    ]


def test_the_training_time_announced_grows_with_the_vocabulary():
    """A step's time grows with the output layer: 8,006 words took 16 minutes, not 'about a minute'."""
    assert models.training_time(30) == "this takes about a minute"
    assert "16 minutes" in models.training_time(8006)


def assert_no_worker_running() -> None:
    """Every worker process has ended (multiprocessing's own list of children may not know yet: the pool's
    thread can reap a worker first)."""
    for worker in multiprocessing.active_children():
        with pytest.raises(ProcessLookupError):
            os.kill(worker.pid, 0)


def finish_after(seconds: float, marker: str) -> None:
    time.sleep(seconds)
    Path(marker).touch()


@pytest.mark.slow
def test_ctrl_c_while_training_stops_every_training_at_once(monkeypatch, tmp_path):
    """Not after the trainings under way (and those waiting) have run to their end: with a large
    vocabulary that is many minutes."""
    monkeypatch.setattr(train.os, "cpu_count", lambda: 2)  # workers, even on a machine of one core
    markers = [tmp_path / f"{name}.done" for name in "abc"]
    tasks = {marker.stem: (finish_after, 8, str(marker)) for marker in markers}
    # Ctrl-C is SIGINT, which Python ignores when a shell starts it in the background (as CI may)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    threading.Timer(4, os.kill, (os.getpid(), signal.SIGINT)).start()
    try:
        with pytest.raises(KeyboardInterrupt):
            train.run_parallel(tasks)
    finally:
        signal.signal(signal.SIGINT, previous)
    time.sleep(10)  # a task still running would have finished by now
    assert not any(marker.exists() for marker in markers)
    assert_no_worker_running()


def test_a_training_worker_that_dies_ends_the_run_with_an_error_not_a_hang(monkeypatch):
    """As when the system kills it for lack of memory."""
    monkeypatch.setattr(train.os, "cpu_count", lambda: 2)  # in a worker, even on a machine of one core

    def hung(signum, frame):
        raise AssertionError("still waiting for the dead worker's result")

    signal.signal(signal.SIGALRM, hung)
    signal.alarm(50)  # not a speed bar: the other tasks end after 60 s, a hang never
    try:
        with pytest.raises(train.TrainingError, match="lack of memory"):
            train.run_parallel({"killed": (os._exit, 9), "other": (time.sleep, 60), "third": (time.sleep, 60)})
    finally:
        signal.alarm(0)
    assert_no_worker_running()

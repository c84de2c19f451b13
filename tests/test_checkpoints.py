"""Damaged, stale or foreign checkpoints are detected and never silently used."""

import hashlib
import io
import shutil

import pytest
import torch

from model import models, train
from model.checkpoint import FORMAT, CheckpointError, load_checkpoint, manifest_path, save_checkpoint
from model.corpus import load_corpus
from model.tokenizer import SentenceError


@pytest.fixture
def shipped_copy(tmp_path, zh_models):
    """A copy of the shipped zh checkpoint and its manifest."""
    source = models.models_path(zh_models.corpus)
    path = tmp_path / source.name
    shutil.copy(source, path)
    shutil.copy(manifest_path(source), manifest_path(path))
    return path


def test_the_shipped_checkpoint_loads(shipped_copy, zh_models):
    assert load_checkpoint(shipped_copy, zh_models.corpus.digest)["words"] == zh_models.vocab.words


def test_a_truncated_checkpoint_is_detected(shipped_copy, zh_models):
    shipped_copy.write_bytes(shipped_copy.read_bytes()[:1000])
    with pytest.raises(CheckpointError, match="hash manifest"):
        load_checkpoint(shipped_copy, zh_models.corpus.digest)


def test_a_flipped_bit_is_detected(shipped_copy, zh_models):
    data = bytearray(shipped_copy.read_bytes())
    data[len(data) // 2] ^= 0x10
    shipped_copy.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match="hash manifest"):
        load_checkpoint(shipped_copy, zh_models.corpus.digest)


def test_a_checkpoint_of_another_corpus_is_refused(shipped_copy):
    with pytest.raises(CheckpointError, match="another corpus"):
        load_checkpoint(shipped_copy, "0" * 64)


def test_a_checkpoint_of_another_model_version_is_refused(tmp_path, zh_models, monkeypatch):
    path = tmp_path / "old.pt"
    monkeypatch.setattr("model.checkpoint.FORMAT", -1)
    save_checkpoint({"corpus_digest": zh_models.corpus.digest}, path)
    monkeypatch.undo()
    with pytest.raises(CheckpointError, match="another version"):
        load_checkpoint(path, zh_models.corpus.digest)


def test_a_file_that_is_not_a_checkpoint_is_refused_even_with_a_matching_manifest(tmp_path):
    path = tmp_path / "models.pt"
    save_checkpoint({}, path)
    path.write_bytes(b"not a checkpoint at all")
    manifest_path(path).write_text(hashlib.sha256(b"not a checkpoint at all").hexdigest())
    with pytest.raises(CheckpointError, match="not a checkpoint"):
        load_checkpoint(path, "x")


def test_a_pickled_object_is_refused(tmp_path):
    path = tmp_path / "models.pt"
    buffer = io.BytesIO()
    torch.save({"format": FORMAT, "corpus_digest": "x", "code": print}, buffer)
    path.write_bytes(buffer.getvalue())
    manifest_path(path).write_text(hashlib.sha256(buffer.getvalue()).hexdigest())
    with pytest.raises(CheckpointError, match="not a checkpoint"):
        load_checkpoint(path, "x")


@pytest.fixture
def small_corpus(tmp_path, zh_models):
    path = tmp_path / "mine.txt"
    path.write_text("\n".join(" ".join(s) for s in zh_models.corpus.sentences[:300]) + "\n", encoding="utf-8")
    return load_corpus(path, "zh")


def fast(monkeypatch):
    monkeypatch.setattr(train, "ATTENTION_SCHEDULE", train.Schedule(steps=30, lr=1e-2, attention_delay=5))
    monkeypatch.setattr(train, "RNN_SCHEDULE", train.Schedule(steps=30, lr=3e-3))
    monkeypatch.setattr(train, "run_parallel", lambda tasks: {name: fn(*args) for name, (fn, *args) in tasks.items()})


@pytest.mark.slow
def test_a_user_corpus_is_trained_once_then_loaded_from_the_cache(monkeypatch, small_corpus, tmp_path):
    fast(monkeypatch)
    first = models.load_models(small_corpus)
    path = models.models_path(small_corpus)
    assert path.is_relative_to(tmp_path / "cache") and small_corpus.digest in str(path)
    monkeypatch.setattr(models, "train_models", lambda *a, **k: pytest.fail("trained again"))
    again = models.load_models(small_corpus)
    assert again.digest == first.digest


@pytest.mark.slow
def test_an_unknown_word_sends_the_user_to_their_own_corpus_file(monkeypatch, small_corpus, zh_models):
    """Not to --corpus FILE, which they passed, nor to --lang en, which would not change the corpus."""
    fast(monkeypatch)
    with pytest.raises(SentenceError) as unknown:
        models.load_models(small_corpus).vocab.split("the lion", 24)
    assert str(unknown.value).endswith(f"or add sentences that use it to {small_corpus.path}")
    assert "--lang" not in str(unknown.value)
    with pytest.raises(SentenceError, match="use --lang en; otherwise .* pass --corpus FILE"):
        zh_models.vocab.split("the lion", 24)


@pytest.mark.slow
def test_a_damaged_cached_checkpoint_is_reported_and_retrained(monkeypatch, small_corpus, capsys):
    fast(monkeypatch)
    models.load_models(small_corpus)
    path = models.models_path(small_corpus)
    path.write_bytes(path.read_bytes()[:-10])
    models.load_models(small_corpus)
    assert "does not match its hash manifest" in capsys.readouterr().err
    assert load_checkpoint(path, small_corpus.digest)


@pytest.mark.slow
def test_a_cached_checkpoint_of_another_reading_of_the_corpus_is_reported_and_retrained(
    monkeypatch, small_corpus, capsys
):
    """Models trained when the corpus's words were read otherwise (its closing marks kept: 老鼠。) are
    not used with today's reading."""
    fast(monkeypatch)
    models.load_models(small_corpus)
    path = models.models_path(small_corpus)
    payload = load_checkpoint(path, small_corpus.digest)
    save_checkpoint({**payload, "words": [*payload["words"][:-1], payload["words"][-1] + "。"]}, path)
    again = models.load_models(small_corpus)
    assert "another reading of the corpus's words" in capsys.readouterr().err
    assert again.vocab.words == small_corpus.words == load_checkpoint(path, small_corpus.digest)["words"]


def test_the_heads_of_another_corpus_are_measured_on_its_first_word_not_a_subject(monkeypatch, tmp_path):
    fast(monkeypatch)
    path = tmp_path / "teachers.txt"
    path.write_text(
        "".join(
            f"the {who} often {does} {what}\n"
            for who in ("teacher", "farmer", "baker")
            for does in ("reads", "sells", "finds")
            for what in ("books", "eggs", "maps")
        ),
        encoding="utf-8",
    )
    heads = models.load_models(load_corpus(path, "en")).head_behaviour
    assert heads and all(set(head["shares"]) == {"first", "previous", "itself"} for head in heads)

"""The trained models of one corpus: trained once, stored, and loaded (checked) on every use.

The default corpora's models ship in ``assets/weights``; a user's corpus is trained once and cached
under ``$ATTENTION_EXPLAINER_CACHE`` (default ``~/.cache/attention-explainer``) by its content hash.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from pathlib import Path

import torch

from model import measure, train
from model.attention import AttentionConfig, AttentionModel
from model.checkpoint import CheckpointError, load_checkpoint, save_checkpoint
from model.console import say
from model.corpus import ASSETS, Corpus, default_corpus_path, load_corpus, story_pairs
from model.files import cache_root
from model.rnn import ElmanRNN, RNNConfig
from model.tokenizer import Vocab
from model.translator import END, PAD, START, Translator, TranslatorConfig

WEIGHTS = ASSETS / "weights"
# Three heads: on the 20-subject story two heads each mixed the subject with the word itself or the
# one before, their roles changing from sentence to sentence; with three, one head takes the subject
# and one the word itself.
MULTI_HEAD_HEADS = 3


def models_path(corpus: Corpus) -> Path:
    if corpus.is_default:
        return WEIGHTS / f"models.{corpus.lang}.pt"
    return cache_root() / corpus.digest / f"models.{corpus.lang}.pt"


@dataclass
class Models:
    """Everything trained on one corpus, ready to trace."""

    corpus: Corpus
    vocab: Vocab
    attention: AttentionModel
    multi_head: AttentionModel
    rnn: ElmanRNN
    history: list[dict]  # {step, loss} of the attention model's training
    snapshots: list[dict]  # the attention model's weights at each history entry
    accuracy_by_distance: list[dict]
    head_behaviour: list[dict]
    digest: str  # sha256 of the checkpoint file

    def attention_at(self, snapshot: int) -> AttentionModel:
        model = AttentionModel(self.attention.config)
        model.load_state_dict(self.snapshots[snapshot])
        return model.eval()


def training_time(words: int) -> str:
    """What training takes on 2 cores. A step's time grows with the vocabulary (the output layer's size):
    measured 17 s for 17 words, 16 minutes for 8,006 (./render.sh trace with a generated corpus)."""
    minutes = round((12 + 0.12 * words) / 60)
    if minutes <= 1:
        return "this takes about a minute"
    return f"with this many words it takes about {minutes} minutes on 2 cores"


def train_models(corpus: Corpus, translator: bool = False) -> tuple[dict, dict | None]:
    """Train the corpus's models (and the translator if asked), in parallel; their payloads."""
    started = time.monotonic()
    say(
        f"training on {corpus.path} ({len(corpus.sentences)} sentences, {len(corpus.words):,} words); "
        f"{training_time(len(corpus.words))}"
    )
    vocab = Vocab(corpus.words, corpus.lang)
    inputs, targets = train.next_word_data(corpus.sentences, vocab)
    # Longest first, so that the cores finish together: translator, RNN, multi-head (a layer more), attention.
    tasks = {"translator": (train_translator_payload, *twin_corpora())} if translator else {}
    tasks |= {
        "rnn": (train.train_rnn, vocab, inputs, targets, corpus),
        "multi_head": (train.train_multi_head, vocab, inputs, targets, MULTI_HEAD_HEADS),
        "attention": (train.train_attention, vocab, inputs, targets),
    }
    trained = train.run_parallel(tasks)
    attention, history, snapshots = trained["attention"]
    multi_head, rnn = trained["multi_head"], trained["rnn"]
    say(f"trained in {time.monotonic() - started:.0f}s; measuring")
    return language_payload(corpus, vocab, attention, history, snapshots, multi_head, rnn), trained.get("translator")


def language_payload(corpus, vocab, attention, history, snapshots, multi_head, rnn) -> dict:
    return {
        "corpus_digest": corpus.digest,
        "lang": corpus.lang,
        "words": vocab.words,
        "attention": {"config": attention.config.to_dict(), "state": attention.state_dict()},
        "multi_head": {"config": multi_head.config.to_dict(), "state": multi_head.state_dict()},
        "rnn": {"config": rnn.config.to_dict(), "state": rnn.state_dict()},
        "history": history,
        "snapshots": snapshots,
        "accuracy_by_distance": measure.accuracy_by_distance(attention, rnn, vocab, corpus),
        "head_behaviour": measure.head_behaviour(multi_head, vocab, corpus),
    }


def rebuild(entry: dict, model_class, config_class):
    model = model_class(config_class(**entry["config"]))
    model.load_state_dict(entry["state"])
    return model.eval()


def from_payload(payload: dict, corpus: Corpus, digest: str) -> Models:
    return Models(
        corpus=corpus,
        vocab=Vocab(payload["words"], corpus.lang, None if corpus.is_default else corpus.path),
        attention=rebuild(payload["attention"], AttentionModel, AttentionConfig),
        multi_head=rebuild(payload["multi_head"], AttentionModel, AttentionConfig),
        rnn=rebuild(payload["rnn"], ElmanRNN, RNNConfig),
        history=payload["history"],
        snapshots=payload["snapshots"],
        accuracy_by_distance=payload["accuracy_by_distance"],
        head_behaviour=payload["head_behaviour"],
        digest=digest,
    )


def file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def load_models(corpus: Corpus) -> Models:
    """The corpus's trained models; trains (and stores) them when missing, damaged or stale."""
    path = models_path(corpus)
    try:
        payload = load_checkpoint(path, corpus.digest)
        if payload["words"] != corpus.words:
            raise CheckpointError(f"{path} was trained on another reading of the corpus's words")
    except CheckpointError as problem:
        if path.exists():
            say(f"warning: {problem}; retraining")
        payload, _ = train_models(corpus)
        save_checkpoint(payload, path)
        say(f"wrote {path}")
    return from_payload(payload, corpus, file_digest(path))


def retrain(corpus: Corpus, translator: bool) -> None:
    """Train afresh and store, replacing what was stored (``./render.sh train``)."""
    payload, translator_payload = train_models(corpus, translator)
    save_checkpoint(payload, models_path(corpus))
    say(f"wrote {models_path(corpus)}")
    if translator_payload:
        save_checkpoint(translator_payload, TRANSLATOR_PATH)
        say(f"wrote {TRANSLATOR_PATH}")


def default_corpus(lang: str) -> Corpus:
    return load_corpus(default_corpus_path(lang), lang)


# The translator -----------------------------------------------------------------------------

TRANSLATOR_PATH = WEIGHTS / "translator.pt"
HELD_OUT_TRANSLATIONS = 500


@dataclass
class TranslatorModels:
    model: Translator
    source: Vocab
    target: Vocab
    exact_match: float  # share of held-out sentences translated exactly


def twin_corpora() -> tuple[Corpus, Corpus]:
    return default_corpus("zh"), default_corpus("en")


def translator_digest(zh: Corpus, en: Corpus) -> str:
    return hashlib.sha256((zh.digest + en.digest).encode()).hexdigest()


@torch.no_grad()
def exact_match(model: Translator, source: Vocab, target: Vocab, pairs) -> float:
    """Share of (zh, en) pairs translated exactly, all decoded at once (padding is never attended)."""
    ids = train.padded([source.encode(list(zh)) for zh, _ in pairs], max(len(zh) for zh, _ in pairs), 0)
    produced = model.translate(ids, target.ids[START], target.ids[END])["target"]
    correct = sum(until_end(target.decode(row)) == list(en) for row, (_, en) in zip(produced.tolist(), pairs))
    return correct / len(pairs)


def until_end(words: list[str]) -> list[str]:
    """The words a translation produced before its END (all of them if it never ended)."""
    return words[: words.index(END)] if END in words else words


def translate_words(model: Translator, source: Vocab, target: Vocab, words: list[str]) -> dict:
    """Translate one sentence; the produced words (without END) and the attention weights."""
    result = model.translate(torch.tensor([source.encode(words)]), target.ids[START], target.ids[END])
    produced = until_end(target.decode(result["target"][0].tolist()))
    length = len(produced)
    return {
        "target": produced,
        "encoder_weights": result["encoder_weights"][0],
        "decoder_weights": result["decoder_weights"][0, :length, :length],
        "cross_weights": result["cross_weights"][0, :length],
    }


def held_out_translations(zh: Corpus):
    seen = set(zh.sentences)
    pairs = story_pairs(HELD_OUT_TRANSLATIONS * 4, measure.HELD_OUT_SEED)
    unseen = [p for p in pairs if tuple(p[0]) not in seen]
    return unseen[:HELD_OUT_TRANSLATIONS]


def translator_training(zh: Corpus, en: Corpus) -> tuple[list, Vocab, Vocab]:
    """The translator's training pairs (zh, en) and its source and target vocabularies."""
    return list(zip(zh.sentences, en.sentences)), Vocab([PAD, *zh.words], "zh"), Vocab([START, END, *en.words], "en")


def train_translator_payload(zh: Corpus, en: Corpus) -> dict:
    say("training the translator (Chinese → English)")
    pairs, source, target = translator_training(zh, en)
    model = train.train_translator(pairs, source, target)
    return {
        "corpus_digest": translator_digest(zh, en),
        "source_words": source.words,
        "target_words": target.words,
        "config": model.config.to_dict(),
        "state": model.state_dict(),
        "exact_match": exact_match(model, source, target, held_out_translations(zh)),
    }


def load_translator() -> TranslatorModels:
    zh, en = twin_corpora()
    digest = translator_digest(zh, en)
    try:
        payload = load_checkpoint(TRANSLATOR_PATH, digest)
    except CheckpointError as problem:
        if TRANSLATOR_PATH.exists():
            say(f"warning: {problem}; retraining")
        payload = train_translator_payload(zh, en)
        save_checkpoint(payload, TRANSLATOR_PATH)
        say(f"wrote {TRANSLATOR_PATH}")
    model = Translator(TranslatorConfig(**payload["config"]))
    model.load_state_dict(payload["state"])
    return TranslatorModels(
        model.eval(), Vocab(payload["source_words"], "zh"), Vocab(payload["target_words"], "en"), payload["exact_match"]
    )

"""The Trace: everything the explainer draws for one (sentence, corpus), as plain JSON data.

Every field is documented in docs/trace.md. A Trace is validated when built and when loaded, and
carries a hash of its own content so that a stale or hand-edited trace.json is caught.
"""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path

import torch

from model import measure
from model.checkpoint import write_atomically
from model.corpus import STORIES, Corpus, default_corpus_path, load_corpus
from model.models import Models, load_models, load_translator, translate_words

TRACE_FORMAT = 1
TOP_K = 5
ROW_SUM_TOLERANCE = 1e-4


class TraceError(ValueError):
    """A Trace that is malformed, stale or edited; the message says what to do."""


def rounded(tensor: torch.Tensor, digits: int = 6):
    """A tensor as nested lists of floats, rounded so the JSON stays small and stable."""
    return torch.round(tensor.double(), decimals=digits).tolist()


def top_predictions(logits: torch.Tensor, words: list[str]) -> list[list]:
    """Per position, the TOP_K most probable next words as [word, probability]."""
    probabilities = torch.softmax(logits, dim=-1)  # (T, vocab)
    values, ids = probabilities.topk(TOP_K, dim=-1)
    return [[[words[i], round(p, 6)] for p, i in zip(row_v.tolist(), row_i.tolist())]
            for row_v, row_i in zip(values, ids)]


@torch.no_grad()
def attention_section(models: Models, ids: list[int]) -> dict:
    inside = models.attention.inspect(torch.tensor([ids]))
    q, k = inside["queries"][0, 0], inside["keys"][0, 0]  # (T, d_k)
    raw_scores = q @ k.T / math.sqrt(models.attention.config.d_k)  # (T, T), before the causal mask
    return {
        "token_ids": ids,
        "inputs": rounded(inside["inputs"][0]),
        "queries": rounded(q),
        "keys": rounded(k),
        "values": rounded(inside["values"][0, 0]),
        "scores": rounded(raw_scores.tril()),
        "weights": rounded(inside["weights"][0, 0]),
        "mixed": rounded(inside["mixed"][0, 0]),
        "hidden": rounded(inside["hidden"][0]),
        "predictions": top_predictions(inside["logits"][0], models.vocab.words),
        "config": models.attention.config.to_dict(),
    }


@torch.no_grad()
def rnn_section(models: Models, ids: list[int]) -> dict:
    idx = torch.tensor([ids])
    inside = models.rnn.inspect(idx)
    with torch.enable_grad():
        influence = models.rnn.influence(idx)
    return {
        "hidden": rounded(inside["hidden"][0]),
        "influence": rounded(influence),
        "predictions": top_predictions(inside["logits"][0], models.vocab.words),
        "config": models.rnn.config.to_dict(),
    }


@torch.no_grad()
def training_section(models: Models, ids: list[int], weights: list[list[float]]) -> dict:
    """The recorded training, replayed on this sentence: the weight and score of the key pair.

    The query is the word before the last (its prediction is the last word); the key is the word
    it weighs most once trained.
    """
    query = len(ids) - 2
    key = max(range(query + 1), key=lambda j: weights[query][j])
    history = []
    for index, entry in enumerate(models.history):
        inside = models.attention_at(index).inspect(torch.tensor([ids]))
        q, k = inside["queries"][0, 0, query], inside["keys"][0, 0, key]
        history.append({"step": entry["step"], "loss": round(entry["loss"], 6),
                        "key_weight": round(inside["weights"][0, 0, query, key].item(), 6),
                        "key_score": round((q @ k).item() / math.sqrt(len(q)), 6)})
    return {"query_index": query, "key_index": key, "history": history}


@torch.no_grad()
def multi_head_section(models: Models, ids: list[int]) -> dict:
    inside = models.multi_head.inspect(torch.tensor([ids]))
    return {"weights": rounded(inside["weights"][0]), "heads": models.head_behaviour}


def encoder_decoder_section(tokens: list[str], lang: str) -> dict:
    """The translator on the sentence when it is Chinese it knows, else on the default sentence."""
    translator = load_translator()
    source = tokens
    if lang != "zh" or any(word not in translator.source for word in tokens):
        default = STORIES["zh"].default_sentence
        source = translator.source.split(default, translator.model.config.context)
    result = translate_words(translator.model, translator.source, translator.target, source)
    return {
        "source_tokens": source,
        "target_tokens": result["target"],
        "encoder_weights": rounded(result["encoder_weights"]),
        "decoder_weights": rounded(result["decoder_weights"]),
        "cross_weights": rounded(result["cross_weights"]),
        "exact_match": translator.exact_match,
    }


def build_trace(sentence: str, lang: str = "zh", corpus_path: str | Path | None = None) -> dict:
    corpus: Corpus = load_corpus(corpus_path or default_corpus_path(lang), lang)
    models = load_models(corpus)
    tokens = models.vocab.split(sentence, models.attention.config.context)
    ids = models.vocab.encode(tokens)
    attention = attention_section(models, ids)
    trace = {
        "format": TRACE_FORMAT,
        "sentence": sentence,
        "tokens": tokens,
        "lang": lang,
        "corpus": {"path": str(corpus.path), "digest": corpus.digest, "sentences": len(corpus.sentences)},
        "models_digest": models.digest,
        "attention": attention,
        "rnn": rnn_section(models, ids),
        "accuracy_by_distance": models.accuracy_by_distance,
        "training": training_section(models, ids, attention["weights"]),
        "kv_cache": measure.kv_cache(models.attention, ids),
        "scale": measure.scale(models.attention),
        "sqrt_dk": measure.sqrt_dk(),
        "multi_head": multi_head_section(models, ids),
        "encoder_decoder": encoder_decoder_section(tokens, lang),
    }
    validate(trace)
    return {**trace, "hash": content_hash(trace)}


# Validation ---------------------------------------------------------------------------------


def content_hash(trace: dict) -> str:
    body = {key: value for key, value in trace.items() if key != "hash"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def check(condition: bool, message: str) -> None:
    if not condition:
        raise TraceError(f"invalid trace: {message}")


def check_matrix(matrix, rows: int, cols: int, name: str) -> None:
    check(isinstance(matrix, list) and len(matrix) == rows
          and all(isinstance(r, list) and len(r) == cols for r in matrix),
          f"{name} must be {rows}×{cols}")


def check_weights(matrix, size: int, name: str, causal: bool = True) -> None:
    """Square attention weights: rows sum to 1, nothing on later words when causal."""
    check_matrix(matrix, size, size, name)
    for i, row in enumerate(matrix):
        check(abs(sum(row) - 1) < ROW_SUM_TOLERANCE, f"{name} row {i} sums to {sum(row):.6f}, not 1")
        check(all(w >= 0 for w in row), f"{name} row {i} has a negative weight")
        if causal:
            check(all(w == 0 for w in row[i + 1:]), f"{name} row {i} looks at a later word")


def validate(trace: dict) -> None:
    """Raise TraceError unless the trace has every field with consistent shapes and weights."""
    required = ("sentence", "tokens", "attention", "rnn", "accuracy_by_distance", "training",
                "kv_cache", "scale", "sqrt_dk", "multi_head", "encoder_decoder")
    missing = [name for name in required if name not in trace]
    check(not missing, f"missing {', '.join(missing)}")
    T = len(trace["tokens"])
    check(T >= 2, "fewer than two tokens")
    attention = trace["attention"]
    d_k = attention["config"]["d_k"]
    for name in ("queries", "keys", "values"):
        check_matrix(attention[name], T, d_k, f"attention.{name}")
    check_matrix(attention["scores"], T, T, "attention.scores")
    check_weights(attention["weights"], T, "attention.weights")
    check(len(attention["predictions"]) == T, "attention.predictions needs one entry per word")
    rnn = trace["rnn"]
    check_matrix(rnn["hidden"], T, rnn["config"]["d_hidden"], "rnn.hidden")
    check_weights(rnn["influence"], T, "rnn.influence")
    heads = trace["multi_head"]["weights"]
    check(len(heads) == len(trace["multi_head"]["heads"]), "multi_head needs a label per head")
    for h, weights in enumerate(heads):
        check_weights(weights, T, f"multi_head.weights[{h}]")
    pair = trace["encoder_decoder"]
    S, U = len(pair["source_tokens"]), len(pair["target_tokens"])
    check_weights(pair["encoder_weights"], S, "encoder_decoder.encoder_weights", causal=False)
    check_weights(pair["decoder_weights"], U, "encoder_decoder.decoder_weights")
    check_matrix(pair["cross_weights"], U, S, "encoder_decoder.cross_weights")
    for i, row in enumerate(pair["cross_weights"]):
        check(abs(sum(row) - 1) < ROW_SUM_TOLERANCE, f"encoder_decoder.cross_weights row {i} does not sum to 1")
    check(all(row["step"] >= 0 for row in trace["training"]["history"]), "training steps must be ≥ 0")


def save_trace(trace: dict, path: Path) -> None:
    text = json.dumps(trace, ensure_ascii=False, indent=1) + "\n"
    write_atomically(path, text.encode("utf-8"))


def load_trace(path: Path) -> dict:
    """A trace.json checked against its own hash and validated."""
    try:
        trace = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise TraceError(f"cannot read trace {path}: {error}; rebuild it with ./render.sh trace") from None
    if not isinstance(trace, dict) or trace.get("hash") != content_hash(trace):
        raise TraceError(f"trace {path} was edited or damaged (hash mismatch); rebuild it with ./render.sh trace")
    validate(trace)
    return trace

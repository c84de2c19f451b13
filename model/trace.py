"""Building the Trace: everything the explainer draws for one (sentence, corpus), as plain data.

Every field is documented in docs/trace.md; model/trace_schema.py validates, saves and loads it.
"""

from __future__ import annotations

import math
from pathlib import Path

import torch
from torch.nn import functional as F

from model import measure
from model.corpus import STORIES, Corpus, default_corpus_path, is_punctuation, load_corpus, story_twin
from model.models import Models, load_models, load_translator, translate_words
from model.trace_schema import TRACE_FORMAT, content_hash, validate
from model.train import ATTENTION_SCHEDULE

TOP_K = 5


def rounded(tensor: torch.Tensor, digits: int = 6):
    """A tensor as nested lists of floats, rounded so the JSON stays small and stable."""
    return torch.round(tensor.double(), decimals=digits).tolist()


def top_predictions(logits: torch.Tensor, words: list[str]) -> list[list]:
    """Per position, the TOP_K most probable next words as [word, probability] (all of them, for a
    corpus of fewer words)."""
    probabilities = torch.softmax(logits, dim=-1)  # (T, vocab)
    values, ids = probabilities.topk(min(TOP_K, len(words)), dim=-1)
    return [
        [[words[i], round(p, 6)] for p, i in zip(row_v.tolist(), row_i.tolist())] for row_v, row_i in zip(values, ids)
    ]


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


def followed_word(tokens: list[str], corpus: Corpus) -> int:
    """The word whose share of the RNN's state chapter 3 follows: the first word, passing over leading
    words that every corpus sentence starts with (English "the") and punctuation marks (an opening “),
    which tell this sentence from no other. At least the last two steps stay to be followed."""
    shared = 0
    while shared < len(tokens) - 2 and (
        is_punctuation(tokens[shared]) or all(s[shared : shared + 1] == (tokens[shared],) for s in corpus.sentences)
    ):
        shared += 1
    return shared


@torch.no_grad()
def rnn_section(models: Models, ids: list[int], followed: int) -> dict:
    idx = torch.tensor([ids])
    inside = models.rnn.inspect(idx)
    with torch.enable_grad():
        influence = models.rnn.influence(idx)
    return {
        "inputs": rounded(inside["inputs"][0]),
        "hidden": rounded(inside["hidden"][0]),
        "influence": rounded(influence),
        "followed_index": followed,
        "predictions": top_predictions(inside["logits"][0], models.vocab.words),
        "config": models.rnn.config.to_dict(),
    }


@torch.no_grad()
def training_section(models: Models, ids: list[int], weights: list[list[float]]) -> dict:
    """The recorded training, replayed on this sentence: the key pair's weight and score, the
    query's scores against every word, and the copies' updates where the weight rose fastest.

    The query is the word before the last (its prediction is the last word); the key is the word
    it weighs most once trained.
    """
    query, target = len(ids) - 2, ids[-1]
    key = max(range(query + 1), key=lambda j: weights[query][j])
    d_k = models.attention.config.d_k
    history = []
    for index, entry in enumerate(models.history):
        inside = models.attention_at(index).inspect(torch.tensor([ids]))
        q, k = inside["queries"][0, 0, query], inside["keys"][0, 0, : query + 1]
        scores = k @ q / math.sqrt(d_k)  # (query + 1,)
        history.append(
            {
                "step": entry["step"],
                "loss": round(entry["loss"], 6),
                "key_weight": round(inside["weights"][0, 0, query, key].item(), 6),
                "key_score": round(scores[key].item(), 6),
                "query_scores": rounded(scores),
                "target_probability": round(torch.softmax(inside["logits"][0, query], -1)[target].item(), 6),
            }
        )
    first = models.attention_at(0).inspect(torch.tensor([ids]))["logits"][0]
    rises = [b["key_weight"] - a["key_weight"] for a, b in zip(history, history[1:])]
    steepest = max(range(len(rises)), key=rises.__getitem__) if rises else 0
    return {
        "query_index": query,
        "key_index": key,
        "history": history,
        "frozen_steps": ATTENTION_SCHEDULE.attention_delay,
        "start_predictions": top_predictions(first, models.vocab.words)[query],
        "copy_updates": copy_updates(models.attention_at(steepest), ids) | {"step": history[steepest]["step"]},
    }


def copy_updates(model, ids: list[int]) -> dict:
    """Each network copy's update to the shared Query and Key connections, and the shared one.

    Copy t compares its prediction with the next word; the negative gradient of that loss is its
    update (the direction each weight moves, before the learning rate). The shared update is the
    negative gradient of the sentence's mean loss: the average of the copies' updates.
    """
    idx = torch.tensor([ids])
    with torch.enable_grad():
        logits = model(idx)[0, :-1]  # (T - 1, vocab): one copy per word that has a next word
        losses = F.cross_entropy(logits, idx[0, 1:], reduction="none")  # (T - 1,)
        connections = (model.query.weight, model.key.weight)  # (d_k, d_model) each
        copies = [torch.autograd.grad(loss, connections, retain_graph=True) for loss in losses]
        shared = torch.autograd.grad(losses.mean(), connections)
    return {
        "query": [rounded(-grads[0], 8) for grads in copies],
        "key": [rounded(-grads[1], 8) for grads in copies],
        "shared_query": rounded(-shared[0], 8),
        "shared_key": rounded(-shared[1], 8),
    }


@torch.no_grad()
def multi_head_section(models: Models, ids: list[int]) -> dict:
    """Each head's weights and output (its weighted values), and the heads' outputs concatenated
    and projected back into one group, as the following layers receive it."""
    model = models.multi_head
    inside = model.inspect(torch.tensor([ids]))
    mixed = inside["mixed"][0]  # (H, T, d_k)
    concatenated = mixed.transpose(0, 1).reshape(len(ids), -1)  # (T, H·d_k)
    return {
        "weights": rounded(inside["weights"][0]),
        "heads": models.head_behaviour,
        "outputs": rounded(mixed),
        "combined": rounded(model.combine(concatenated)),
        "config": model.config.to_dict(),
    }


def encoder_decoder_section(tokens: list[str], lang: str) -> dict:
    """The translator on the sentence (Chinese), on its Chinese twin (an English story sentence) or,
    when the translator does not know every word, on the default sentence; `source_from` says which.
    `reference_tokens` is the right translation, the source's English twin (None if it has none)."""
    translator = load_translator()
    source, source_from = (tokens, "sentence") if lang == "zh" else (story_twin(tokens, "en"), "twin")
    if source is None or any(word not in translator.source for word in source):
        default = STORIES["zh"].default_sentence
        source, source_from = translator.source.split(default, translator.model.config.context), "default"
    result = translate_words(translator.model, translator.source, translator.target, source)
    return {
        "source_tokens": source,
        "source_from": source_from,
        "target_tokens": result["target"],
        "reference_tokens": story_twin(source, "zh"),
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
        "rnn": rnn_section(models, ids, followed_word(tokens, corpus)),
        "accuracy_by_distance": models.accuracy_by_distance,
        "training": training_section(models, ids, attention["weights"]),
        "kv_cache": measure.kv_cache(models.attention, ids),
        "sequential": measure.sequential_steps(models.attention, models.rnn, ids),
        "scale": measure.scale(models.attention),
        "hardware": measure.hardware(),
        "sqrt_dk": measure.sqrt_dk(),
        "multi_head": multi_head_section(models, ids),
        "encoder_decoder": encoder_decoder_section(tokens, lang),
    }
    validate(trace)
    return {**trace, "hash": content_hash(trace)}

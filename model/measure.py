"""Measurements of the trained models that the explainer's claims rest on."""

from __future__ import annotations

import copy
import functools
import hashlib
import inspect
import json
import math
import os
from itertools import islice

import torch
from torch import nn
from torch.nn import functional as F

from model.corpus import LANGUAGES, MAX_FILLERS, STORIES, Corpus, endless_story_pairs
from model.files import cache_root, write_atomically
from model.tokenizer import Vocab

HELD_OUT_SEED = 90210
HELD_OUT_PER_DISTANCE = 500


def held_out_sentences(corpus: Corpus, filler_count: int, count: int = HELD_OUT_PER_DISTANCE):
    """``count`` story sentences with ``filler_count`` fillers, unseen in training where possible.

    Short gaps have few possible sentences (20 with no filler, 800 with one), most of which the
    corpus holds; there the sample is filled up from seen sentences. Returns (sentences, unseen count).
    """
    seen = set(corpus.sentences)
    index = LANGUAGES.index(corpus.lang)
    unseen, known = [], []
    for pair in islice(endless_story_pairs(HELD_OUT_SEED + filler_count, filler_count), count * 20):
        sentence = tuple(pair[index])
        (known if sentence in seen else unseen).append(sentence)
        if len(unseen) == count:
            break
    return unseen + known[: count - len(unseen)], len(unseen)


def object_accuracy(model: nn.Module, vocab: Vocab, corpus: Corpus, filler_count: int) -> tuple[float, int]:
    """Share of held-out sentences whose object word is the model's top prediction after the verb."""
    (accuracy,), unseen = object_accuracies([model], vocab, corpus, filler_count)
    return accuracy, unseen


@torch.no_grad()
def object_accuracies(
    models: list[nn.Module], vocab: Vocab, corpus: Corpus, filler_count: int
) -> tuple[list[float], int]:
    """``object_accuracy`` of each model, on one drawing of the held-out sentences."""
    sentences, unseen = held_out_sentences(corpus, filler_count)
    ids = torch.tensor([vocab.encode(list(s)) for s in sentences])  # (N, T): one length per count
    verb = STORIES[corpus.lang].verb_position(filler_count)
    predictions = [model(ids[:, : verb + 1])[:, verb].argmax(dim=-1) for model in models]  # (N,) each
    return [(predicted == ids[:, verb + 1]).float().mean().item() for predicted in predictions], unseen


def is_story_corpus(corpus: Corpus, vocab: Vocab) -> bool:
    story = STORIES[corpus.lang]
    words = {w for s in story.subjects for w in s} | set(story.objects) | set(story.verb) | set(story.fillers)
    return all(w in vocab for w in words)


def accuracy_by_distance(transformer, rnn, vocab: Vocab, corpus: Corpus) -> list[dict]:
    """Object-word accuracy of both models per number of fillers between subject and verb.

    Only a corpus that tells the story (all its words known) can be measured; others get [].
    """
    if not is_story_corpus(corpus, vocab):
        return []
    rows = []
    for distance in range(MAX_FILLERS + 1):
        (transformer_accuracy, rnn_accuracy), unseen = object_accuracies([transformer, rnn], vocab, corpus, distance)
        rows.append(
            {
                "distance": distance,
                "transformer": transformer_accuracy,
                "rnn": rnn_accuracy,
                "sentences": HELD_OUT_PER_DISTANCE,
                "unseen": unseen,
            }
        )
    return rows


SQRT_DK_SIZES = (4, 16, 64, 256, 1024)
SQRT_DK_SEED = 1234
SQRT_DK_SAMPLES = 4000  # query/key pairs per d_k for the variance
SQRT_DK_ROWS = 1000  # softmax rows per d_k for the weights and gradients
SQRT_DK_KEYS = 8  # keys per softmax row


def softmax_jacobian_norm(logits: torch.Tensor) -> torch.Tensor:
    """Mean Frobenius norm of ∂softmax/∂logits over the rows of logits (N, K), by autograd."""
    logits = logits.clone().requires_grad_(True)
    weights = F.softmax(logits, dim=-1)  # (N, K)
    rows = []
    for k in range(weights.shape[1]):
        (grad,) = torch.autograd.grad(weights[:, k].sum(), logits, retain_graph=True)  # (N, K)
        rows.append(grad)
    jacobian = torch.stack(rows, dim=1)  # (N, K, K)
    return jacobian.pow(2).sum(dim=(1, 2)).sqrt().mean()


def sqrt_dk() -> list[dict]:
    """The √d_k measurements (a fresh copy). They do not depend on the sentence: they are made once
    per process, and kept in the user's cache between processes (half a second of every Trace)."""
    return copy.deepcopy(stored_sqrt_dk_rows())


@functools.lru_cache(maxsize=1)
def stored_sqrt_dk_rows() -> list[dict]:
    """sqrt_dk_rows() from the cache file named by its inputs, measured and stored if missing or damaged."""
    inputs = json.dumps(
        [
            SQRT_DK_SIZES,
            SQRT_DK_SEED,
            SQRT_DK_SAMPLES,
            SQRT_DK_ROWS,
            SQRT_DK_KEYS,
            torch.__version__,
            inspect.getsource(sqrt_dk_rows),
        ]
    )
    path = cache_root() / f"sqrt-dk-{hashlib.sha256(inputs.encode()).hexdigest()[:16]}.json"
    try:
        rows = json.loads(path.read_text(encoding="utf-8"))
        if [row["d_k"] for row in rows] == list(SQRT_DK_SIZES):
            return rows
    except (OSError, ValueError, TypeError, KeyError):
        pass
    rows = sqrt_dk_rows()
    try:
        write_atomically(path, json.dumps(rows).encode())
    except OSError:
        pass  # a cache that cannot be written only costs time
    return rows


def sqrt_dk_rows() -> list[dict]:
    """Why divide by √d_k: seeded standard-normal queries and keys of growing size d_k.

    Per d_k: the variance of q·k, and of q·k/√d_k; the median (over rows of SQRT_DK_KEYS keys)
    of the largest softmax weight without and with the division; the mean size (Frobenius norm) of
    the softmax's gradient with respect to its input, without and with the division; and a typical
    row (its largest unscaled weight nearest that median) as an example: its raw scores q·k and
    their softmax weights without and with the division.
    """
    generator = torch.Generator().manual_seed(SQRT_DK_SEED)
    rows = []
    for d_k in SQRT_DK_SIZES:
        q = torch.randn(SQRT_DK_SAMPLES, d_k, generator=generator, dtype=torch.float64)
        k = torch.randn(SQRT_DK_SAMPLES, d_k, generator=generator, dtype=torch.float64)
        products = (q * k).sum(dim=-1)
        queries = torch.randn(SQRT_DK_ROWS, 1, d_k, generator=generator, dtype=torch.float64)
        keys = torch.randn(SQRT_DK_ROWS, SQRT_DK_KEYS, d_k, generator=generator, dtype=torch.float64)
        scores = (queries * keys).sum(dim=-1)  # (rows, keys)
        scaled = scores / math.sqrt(d_k)
        largest = F.softmax(scores, dim=-1).max(dim=-1).values  # (rows,)
        typical = (largest - largest.median()).abs().argmin()
        rows.append(
            {
                "d_k": d_k,
                "score_variance": products.var().item(),
                "score_variance_scaled": (products / math.sqrt(d_k)).var().item(),
                "max_weight_unscaled": largest.median().item(),
                "max_weight_scaled": F.softmax(scaled, dim=-1).max(dim=-1).values.median().item(),
                "grad_norm_unscaled": softmax_jacobian_norm(scores).item(),
                "grad_norm_scaled": softmax_jacobian_norm(scaled).item(),
                "example_scores": scores[typical].tolist(),
                "example_weights_unscaled": F.softmax(scores[typical], dim=-1).tolist(),
                "example_weights_scaled": F.softmax(scaled[typical], dim=-1).tolist(),
            }
        )
    return rows


SCALE_LENGTHS = tuple(2**n for n in range(15))  # 1 … 16384 words


def fully_connected_for(length: int, d_model: int, vocab_size: int) -> nn.Module:
    """A network sized to its input: every input node feeds a hidden layer as wide as the input."""
    width = length * d_model
    return nn.Sequential(nn.Linear(width, width), nn.ReLU(), nn.Linear(width, vocab_size))


def parameter_count(module: nn.Module) -> int:
    return sum(p.numel() for p in module.parameters())


def scale(attention: nn.Module) -> list[dict]:
    """Parameter counts of real torch modules (built on the meta device: counted, not allocated)."""
    c = attention.config
    attention_count = parameter_count(attention)
    rows = []
    with torch.device("meta"):
        for length in SCALE_LENGTHS:
            network = fully_connected_for(length, c.d_model, c.vocab_size)
            rows.append({"length": length, "fully_connected": parameter_count(network), "attention": attention_count})
    return rows


def hardware() -> dict:
    """What this machine can hold: its memory, and the bytes of one float32 parameter."""
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    bytes_per_parameter = torch.finfo(torch.float32).bits // 8
    return {
        "memory_bytes": memory,
        "bytes_per_parameter": bytes_per_parameter,
        "parameters_that_fit": memory // bytes_per_parameter,
    }


def counted(model, calls):
    """Each call's count of words sent through the Query/Key/value layers, and the results."""
    counts, results = [], []
    for call in calls:
        model.projections = 0
        results.append(call())
        counts.append(model.projections)
    return counts, results


@torch.no_grad()
def kv_cache(model, ids: list[int]) -> dict:
    """Generate over the sentence word by word, with and without the KV cache, and compare.

    Run in double precision, so that the difference shows the method, not float32 rounding.
    """
    model = copy.deepcopy(model).double()
    idx = torch.tensor([ids])  # (1, T)
    T, cache = idx.shape[1], {}
    without, recomputed = counted(model, [lambda t=t: model(idx[:, : t + 1])[:, -1] for t in range(T)])
    with_cache, cached = counted(model, [lambda t=t: model.step(idx[:, t : t + 1], cache)[:, -1] for t in range(T)])
    stored = sum(tensor.numel() for tensor in cache.values())
    return {
        "projections_without_cache": sum(without),
        "projections_with_cache": sum(with_cache),
        "steps_without_cache": without,
        "steps_with_cache": with_cache,
        "max_abs_diff": (torch.cat(recomputed) - torch.cat(cached)).abs().max().item(),
        "cached_numbers": stored,
    }


@torch.no_grad()
def sequential_steps(attention, rnn, ids: list[int]) -> dict:
    """Steps that must run one after another to read the sentence, and the longest path from the
    first word to the last word's output, in each model.

    The RNN's loop runs once per word (counted); the attention model sends every word through its
    Query/Key/value layers in one call (counted). From the first word to the last, the RNN hands
    the state on once per later word; attention links them by one weight.
    """
    idx = torch.tensor([ids])
    rnn.steps, attention.projection_calls = 0, 0
    rnn(idx), attention(idx)
    return {
        "rnn_steps": rnn.steps,
        "attention_steps": attention.projection_calls,
        "rnn_path": rnn.steps - 1,
        "attention_path": attention.projection_calls,
    }


@torch.no_grad()
def head_behaviour(model, vocab: Vocab, corpus: Corpus) -> list[dict]:
    """What each head of a multi-head model looks at, measured over corpus sentences.

    Three shares of a head's weight, averaged over up to 500 sentences of four or more words:
    ``subject`` — from the word before the last (whose prediction is the last word) onto the
    story's subject noun (in another corpus ``first``: onto the first word); ``previous`` — from
    every word from the third on onto the word before it; ``itself`` — from those words onto
    themselves. A head is labelled by its largest share.
    """
    story = is_story_corpus(corpus, vocab)
    subject = len(STORIES[corpus.lang].subjects[0]) - 1 if story else 0
    sentences = [s for s in corpus.sentences if len(s) >= 4][:500]
    shares = torch.zeros(model.config.heads, 3)
    for sentence in sentences:
        weights = model.inspect(torch.tensor([vocab.encode(list(sentence))]))["weights"][0]  # (H, T, T)
        T = weights.shape[-1]
        rows = torch.arange(2, T)
        shares[:, 0] += weights[:, T - 2, subject]
        shares[:, 1] += weights[:, rows, rows - 1].mean(dim=1)
        shares[:, 2] += weights[:, rows, rows].mean(dim=1)
    shares /= len(sentences)
    names = ("subject" if story else "first", "previous", "itself")
    return [
        {"head": h, "looks_at": names[int(shares[h].argmax())], "shares": dict(zip(names, shares[h].tolist()))}
        for h in range(model.config.heads)
    ]

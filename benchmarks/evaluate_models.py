"""Measure what the models must show, and how long training and tracing take.

    .venv/bin/python benchmarks/evaluate_models.py            # evaluate the shipped models
    .venv/bin/python benchmarks/evaluate_models.py --retrain  # also time a full retraining, check it
                                                              # reproduces the shipped weights, and time
                                                              # training without the translator

Prints one line per figure; the README's "Measured" section quotes its output.
"""

from __future__ import annotations

import argparse
import platform
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from model.checkpoint import load_checkpoint  # noqa: E402
from model.corpus import MAX_FILLERS, STORIES, story_pairs  # noqa: E402
from model.measure import HELD_OUT_SEED, held_out_sentences  # noqa: E402
from model.models import (  # noqa: E402
    TRANSLATOR_PATH,
    default_corpus,
    exact_match,
    held_out_translations,
    load_models,
    load_translator,
    models_path,
    train_models,
    translate_words,
)

LONGEST_DRAWN = 20_000  # sentences with the most fillers, drawn (there are billions)


def line(label: str, value) -> None:
    print(f"{label:<58} {value}")


def story(models) -> None:
    trace_started = time.monotonic()
    from model.trace import build_trace

    trace = build_trace("狗每天早上喜欢抓飞盘", "zh")
    line("trace for a new sentence (s, models already trained)", f"{time.monotonic() - trace_started:.2f}")
    default = build_trace(STORIES["zh"].default_sentence, "zh")
    tokens = default["tokens"]
    row = default["attention"]["weights"][tokens.index("抓")]
    line("weight 抓 → 猫 (largest of the row?)", f"{row[0]:.4f} ({max(row) == row[0]})")
    line("prediction after 抓", default["attention"]["predictions"][2][0])
    for entry in models.accuracy_by_distance:
        line(
            f"object accuracy at distance {entry['distance']:2d} (transformer / rnn)",
            f"{entry['transformer']:.3f} / {entry['rnn']:.3f}  ({entry['unseen']} of 500 unseen)",
        )
    first_word = [r[0] for r in trace["rnn"]["influence"]]
    line("rnn: share of the first word in h_t, t = 0…T-1", " ".join(f"{x:.2f}" for x in first_word))
    kv = default["kv_cache"]
    line(
        "kv cache: projections with / without, max |diff|",
        f"{kv['projections_with_cache']} / {kv['projections_without_cache']}, {kv['max_abs_diff']:.2e}",
    )
    for row in default["sqrt_dk"]:
        line(
            f"√d_k at d_k={row['d_k']}: variance, max w unscaled/scaled",
            f"{row['score_variance']:.1f}, {row['max_weight_unscaled']:.4f} / {row['max_weight_scaled']:.3f}",
        )
    for head in default["multi_head"]["heads"]:
        shares = ", ".join(f"{k} {v:.2f}" for k, v in head["shares"].items())
        line(f"multi-head: head {head['head']} looks at {head['looks_at']}", shares)


def english_rnn(models) -> None:
    line("english: rnn hidden nodes", models.rnn.config.d_hidden)
    rows = models.accuracy_by_distance
    line(
        "english: object accuracy at 0 / 5 / 10 (transformer)",
        " / ".join(f"{rows[d]['transformer']:.3f}" for d in (0, 5, 10)),
    )
    line("english: object accuracy at 0 / 5 / 10 (rnn)", " / ".join(f"{rows[d]['rnn']:.3f}" for d in (0, 5, 10)))


@torch.no_grad()
def verb_peaks_on_subject(models) -> None:
    """Per subject: the share of held-out sentences (500 per distance 0…10, all subjects) whose verb
    row gives the subject noun its largest weight, as chapter 5 tells the story."""
    corpus = models.corpus
    story = STORIES[corpus.lang]
    noun = len(story.subjects[0]) - 1
    hits, totals = Counter(), Counter()
    for distance in range(MAX_FILLERS + 1):
        sentences, _ = held_out_sentences(corpus, distance)
        verb = story.verb_position(distance)
        ids = torch.tensor([models.vocab.encode(list(s[: verb + 1])) for s in sentences])
        peaks = models.attention.inspect(ids)["weights"][:, 0, verb].argmax(dim=-1)  # (N,)
        for sentence, peak in zip(sentences, peaks.tolist()):
            totals[sentence[noun]] += 1
            hits[sentence[noun]] += peak == noun
    shares = ", ".join(f"{s[noun]} {hits[s[noun]] / totals[s[noun]]:.2f}" for s in story.subjects)
    line(f"{corpus.lang}: verb's largest weight on the subject, per subject", shares)


def translation() -> None:
    translator = load_translator()
    pairs = held_out_translations(default_corpus("zh"))
    score = exact_match(translator.model, translator.source, translator.target, pairs)
    line(f"translator: exact on {len(pairs)} held-out sentences", f"{score:.3f}")
    longest = story_pairs(LONGEST_DRAWN, HELD_OUT_SEED + MAX_FILLERS, MAX_FILLERS)
    score = exact_match(translator.model, translator.source, translator.target, longest)
    wrong = round((1 - score) * len(longest))
    line(f"translator: wrong of {len(longest):,} drawn with {MAX_FILLERS} fillers", f"{wrong} ({score:.4f} exact)")
    result = translate_words(translator.model, translator.source, translator.target, ["猫", "喜欢", "抓", "老鼠"])
    cat = result["cross_weights"][result["target"].index("cat")]
    line("translator: cross-attention from 'cat' onto 猫", f"{cat[0].item():.3f} (peak: {cat.argmax().item() == 0})")


def retrain_and_compare() -> None:
    corpus = default_corpus("zh")
    started = time.monotonic()
    payload, translator_payload = train_models(corpus, translator=True)
    line("training every model on the default corpus (s)", f"{time.monotonic() - started:.1f}")
    shipped = load_checkpoint(models_path(corpus), corpus.digest)
    same = all(
        torch.equal(payload[name]["state"][key], shipped[name]["state"][key])
        for name in ("attention", "multi_head", "rnn")
        for key in shipped[name]["state"]
    )
    line("retrained weights bitwise equal to the shipped ones", same)
    shipped = load_checkpoint(TRANSLATOR_PATH, translator_payload["corpus_digest"])["state"]
    same = all(torch.equal(translator_payload["state"][key], shipped[key]) for key in shipped)
    line("retrained translator bitwise equal to the shipped one", same)
    started = time.monotonic()
    train_models(corpus)
    line("training without the translator, as a user's corpus does (s)", f"{time.monotonic() - started:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--retrain", action="store_true", help="also time a full retraining")
    args = parser.parse_args()
    cpu = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip()
    line("machine", f"{platform.machine()}, {cpu} cores, torch {torch.__version__}")
    chinese, english = load_models(default_corpus("zh")), load_models(default_corpus("en"))
    story(chinese)
    verb_peaks_on_subject(chinese)
    english_rnn(english)
    verb_peaks_on_subject(english)
    translation()
    if args.retrain:
        retrain_and_compare()


if __name__ == "__main__":
    main()

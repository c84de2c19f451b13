"""The Trace's schema: validation, content hash, saving and loading. Plain Python, no torch,
so that the scenes can load and check a Trace without the models.

A Trace is validated when built and when loaded, and carries a hash of its own content so that a
stale or hand-edited trace.json is caught.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from model.corpus import LANGUAGES
from model.files import write_atomically

TRACE_FORMAT = 6  # bump when fields change: older trace.json files are then rebuilt or refused
ROW_SUM_TOLERANCE = 1e-4
SOURCES_FROM = ("sentence", "twin", "default")  # what the translator of encoder_decoder ran on


class TraceError(ValueError):
    """A Trace that is malformed, stale or edited; the message says what to do."""


def content_hash(trace: dict) -> str:
    body = {key: value for key, value in trace.items() if key != "hash"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def check(condition: bool, message: str) -> None:
    if not condition:
        raise TraceError(f"invalid trace: {message}")


def check_matrix(matrix, rows: int, cols: int, name: str) -> None:
    check(
        isinstance(matrix, list)
        and len(matrix) == rows
        and all(isinstance(r, list) and len(r) == cols for r in matrix),
        f"{name} must be {rows}×{cols}",
    )


def check_weights(matrix, size: int, name: str, causal: bool = True) -> None:
    """Square attention weights: rows sum to 1, nothing on later words when causal."""
    check_matrix(matrix, size, size, name)
    for i, row in enumerate(matrix):
        check(abs(sum(row) - 1) < ROW_SUM_TOLERANCE, f"{name} row {i} sums to {sum(row):.6f}, not 1")
        check(all(w >= 0 for w in row), f"{name} row {i} has a negative weight")
        if causal:
            check(all(w == 0 for w in row[i + 1 :]), f"{name} row {i} looks at a later word")


def validate(trace: dict) -> None:
    """Raise TraceError unless the trace has every field with consistent shapes and weights."""
    check(
        trace.get("format") == TRACE_FORMAT,
        f"format {trace.get('format')} is not {TRACE_FORMAT} (written by another version); rebuild it",
    )
    required = (
        "sentence",
        "lang",
        "tokens",
        "attention",
        "rnn",
        "accuracy_by_distance",
        "training",
        "kv_cache",
        "sequential",
        "scale",
        "hardware",
        "sqrt_dk",
        "multi_head",
        "encoder_decoder",
    )
    missing = [name for name in required if name not in trace]
    check(not missing, f"missing {', '.join(missing)}")
    check(trace["lang"] in LANGUAGES, f"lang {trace['lang']!r} is not one of {', '.join(LANGUAGES)}")
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
    check_matrix(rnn.get("inputs"), T, rnn["config"]["d_model"], "rnn.inputs")
    check_matrix(rnn["hidden"], T, rnn["config"]["d_hidden"], "rnn.hidden")
    check_weights(rnn["influence"], T, "rnn.influence")
    followed = rnn.get("followed_index")
    check(isinstance(followed, int) and 0 <= followed <= T - 2, "rnn.followed_index must be a word before the last")
    heads = trace["multi_head"]["weights"]
    check(len(heads) == len(trace["multi_head"]["heads"]), "multi_head needs a label per head")
    multi = trace["multi_head"]
    for h, weights in enumerate(heads):
        check_weights(weights, T, f"multi_head.weights[{h}]")
        check_matrix(multi["outputs"][h], T, multi["config"]["d_k"], f"multi_head.outputs[{h}]")
    check(len(multi["outputs"]) == len(heads), "multi_head needs an output per head")
    check_matrix(multi["combined"], T, multi["config"]["d_k"], "multi_head.combined")
    for row in trace["sqrt_dk"]:
        check(
            len(row["example_scores"]) == len(row["example_weights_unscaled"]) == len(row["example_weights_scaled"]),
            "sqrt_dk examples need a weight per score",
        )
    pair = trace["encoder_decoder"]
    check(
        pair.get("source_from") in SOURCES_FROM, f"encoder_decoder.source_from must be one of {', '.join(SOURCES_FROM)}"
    )
    S, U = len(pair["source_tokens"]), len(pair["target_tokens"])
    reference = pair.get("reference_tokens")
    check(
        reference is None or isinstance(reference, list) and all(isinstance(w, str) for w in reference),
        "encoder_decoder.reference_tokens must be a list of words or null",
    )
    check_weights(pair["encoder_weights"], S, "encoder_decoder.encoder_weights", causal=False)
    check_weights(pair["decoder_weights"], U, "encoder_decoder.decoder_weights")
    check_matrix(pair["cross_weights"], U, S, "encoder_decoder.cross_weights")
    for i, row in enumerate(pair["cross_weights"]):
        check(abs(sum(row) - 1) < ROW_SUM_TOLERANCE, f"encoder_decoder.cross_weights row {i} does not sum to 1")
    check_training(trace["training"], T, d_k, len(attention["inputs"][0]))
    kv = trace["kv_cache"]
    check(len(kv["steps_without_cache"]) == len(kv["steps_with_cache"]) == T, "kv_cache needs a count per word")
    check(
        sum(kv["steps_without_cache"]) == kv["projections_without_cache"]
        and sum(kv["steps_with_cache"]) == kv["projections_with_cache"],
        "kv_cache step counts must add up",
    )


def check_training(training: dict, T: int, d_k: int, d_model: int) -> None:
    query = training["query_index"]
    check(0 <= training["key_index"] <= query == T - 2, "training.query_index must be the word before the last")
    for row in training["history"]:
        check(row["step"] >= 0, "training steps must be ≥ 0")
        check(len(row["query_scores"]) == query + 1, "training.history query_scores needs a score per word")
    updates = training["copy_updates"]
    for name in ("query", "key"):
        check(len(updates[name]) == T - 1, f"training.copy_updates.{name} needs one update per copy")
        for update in updates[name] + [updates[f"shared_{name}"]]:
            check_matrix(update, d_k, d_model, f"training.copy_updates.{name}")


def save_trace(trace: dict, path: Path) -> None:
    text = json.dumps(trace, ensure_ascii=False, indent=1) + "\n"
    write_atomically(Path(path), text.encode("utf-8"))


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

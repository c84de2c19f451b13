"""The Trace: fields, validation, hash, and the `trace` command."""

import json
from pathlib import Path

import pytest
from conftest import run_module

from model.corpus import Corpus, default_corpus_path, load_corpus
from model.models import MULTI_HEAD_HEADS
from model.trace import TOP_K, build_trace, followed_word, top_predictions
from model.trace_schema import TraceError, content_hash, load_trace, save_trace, validate

FIXED_NAMES = (
    "sentence",
    "tokens",
    "attention",
    "rnn",
    "accuracy_by_distance",
    "training",
    "kv_cache",
    "scale",
    "sqrt_dk",
    "multi_head",
    "encoder_decoder",
)


def test_the_trace_has_the_fixed_top_level_names_and_is_json(default_trace):
    assert set(FIXED_NAMES) <= set(default_trace)
    assert json.loads(json.dumps(default_trace)) == default_trace
    for name in ("weights", "scores", "queries", "keys", "values", "predictions"):
        assert name in default_trace["attention"]


def test_the_training_history_follows_the_pair_from_zhua_to_mao(default_trace):
    training = default_trace["training"]
    assert default_trace["tokens"][training["query_index"]] == "抓"
    assert default_trace["tokens"][training["key_index"]] == "猫"
    history = training["history"]
    assert history[-1]["key_weight"] > history[0]["key_weight"] + 0.5
    assert history[-1]["key_score"] > history[0]["key_score"]
    assert history[-1]["loss"] < history[0]["loss"]
    assert history[-1]["key_weight"] == default_trace["attention"]["weights"][2][0]
    assert history[-1]["query_scores"][0] == history[-1]["key_score"] == max(history[-1]["query_scores"])
    assert history[-1]["target_probability"] == default_trace["attention"]["predictions"][2][0][1]
    assert history[-1]["target_probability"] > 0.9 > 0.1 > history[0]["target_probability"]


def test_query_and_key_stay_still_for_the_frozen_steps_then_learn(default_trace):
    training = default_trace["training"]
    frozen = [row for row in training["history"] if row["step"] <= training["frozen_steps"]]
    even = 1 / (training["query_index"] + 1)  # Query and Key start small: weights start even
    assert len(frozen) > 1 and all(abs(row["key_weight"] - even) < 0.01 for row in frozen)
    assert training["history"][-1]["key_weight"] > 0.9


@pytest.mark.parametrize(
    "lang, words, followed",
    [
        ("zh", "猫 喜欢 抓 老鼠", "猫"),
        ("en", "the cat likes to catch mice", "cat"),
        # told from the corpus, not from what the attention model weighs most: the fox
        ("en", "the fox often secretly really likes to catch chickens", "fox"),
    ],
)
def test_chapter_3_follows_the_first_word_that_tells_the_story_sentences_apart(lang, words, followed):
    corpus = load_corpus(default_corpus_path(lang), lang)
    tokens = words.split()
    assert tokens[followed_word(tokens, corpus)] == followed


def test_chapter_3_passes_over_every_word_all_corpus_sentences_start_with_but_the_last_two():
    corpus = Corpus(
        sentences=(("i", "like", "to", "eat", "apples"), ("i", "like", "pears")),
        lang="en",
        digest="",
        path=Path("fruit.txt"),
    )
    assert followed_word("i like to eat apples".split(), corpus) == 2
    assert followed_word("you like pears".split(), corpus) == 0
    assert followed_word("i like".split(), corpus) == 0
    assert followed_word("“ you ” like pears".split(), corpus) == 1  # a quote mark tells nothing apart


def test_chapter_3_s_steps_carry_the_rnn_s_own_inputs_and_predictions(default_trace, zh_models):
    import torch

    rnn = default_trace["rnn"]
    ids = torch.tensor([default_trace["attention"]["token_ids"]])
    embeddings = zh_models.rnn.token_embedding(ids)[0]  # (T, d_model)
    assert torch.allclose(torch.tensor(rnn["inputs"]), embeddings.detach(), atol=1e-6)
    with torch.no_grad():
        logits = zh_models.rnn.output(torch.tensor(rnn["hidden"]))  # (T, vocab): the output on top of each step
    words = zh_models.vocab.words
    assert [row[0][0] for row in rnn["predictions"]] == [words[i] for i in logits.argmax(-1).tolist()]
    assert rnn["predictions"][2][0][0] == "老鼠"  # after 抓, the RNN's own guess


def test_the_copies_updates_average_to_the_sentences_update(default_trace):
    import numpy as np

    updates = default_trace["training"]["copy_updates"]
    for name in ("query", "key"):
        copies = np.array(updates[name])
        assert copies.shape[0] == len(default_trace["tokens"]) - 1
        assert np.allclose(copies.mean(axis=0), updates[f"shared_{name}"], atol=1e-7)
        assert not copies[0].any()  # the first copy sees only itself: its weight is 1 whatever Q and K are
        assert np.abs(copies[-1]).max() > 10 * np.abs(copies[1]).max()


def test_the_heads_outputs_concatenated_and_projected_are_what_the_following_layers_get(default_trace, zh_models):
    import torch

    multi = default_trace["multi_head"]
    ids = torch.tensor([default_trace["attention"]["token_ids"]])
    with torch.no_grad():
        inside = zh_models.multi_head.inspect(ids)
        outputs = torch.tensor(multi["outputs"])  # (H, T, d_k)
        concatenated = outputs.transpose(0, 1).reshape(outputs.shape[1], -1)
        combined = zh_models.multi_head.combine(concatenated)
        logits = zh_models.multi_head.output(torch.relu(zh_models.multi_head.hidden(combined)))
    assert torch.allclose(combined, torch.tensor(multi["combined"]), atol=1e-5)
    assert torch.allclose(logits, inside["logits"][0], atol=1e-4)
    assert len(multi["outputs"]) == multi["config"]["heads"] == MULTI_HEAD_HEADS


def test_the_kv_cache_counts_each_generated_word(default_trace):
    kv, T = default_trace["kv_cache"], len(default_trace["tokens"])
    assert kv["steps_without_cache"] == list(range(1, T + 1)) and kv["steps_with_cache"] == [1] * T
    assert default_trace["sequential"] == {"rnn_steps": T, "attention_steps": 1, "rnn_path": T - 1, "attention_path": 1}


def test_scale_counts_grow_faster_than_the_input_while_attention_stays_fixed(default_trace):
    rows = default_trace["scale"]
    for small, large in zip(rows, rows[1:]):
        growth = large["length"] / small["length"]
        assert large["fully_connected"] > growth * small["fully_connected"]
        assert large["attention"] == small["attention"]


def test_the_default_translation_is_the_english_twin(default_trace):
    pair = default_trace["encoder_decoder"]
    assert (pair["source_from"], pair["source_tokens"]) == ("sentence", ["猫", "喜欢", "抓", "老鼠"])
    assert pair["target_tokens"] == "the cat likes to catch mice".split()


@pytest.mark.parametrize(
    "sentence, source_from, source, reference",
    [
        (
            "the fox often likes to catch chickens",
            "twin",
            "狐狸 常常 喜欢 抓 鸡",
            "the fox often likes to catch chickens",
        ),
        ("the dog today likes", "twin", "狗 今天 喜欢", "the dog today likes"),
        (
            "the dog likes to",
            "default",
            "猫 喜欢 抓 老鼠",
            "the cat likes to catch mice",
        ),  # "to" alone is no story phrase
    ],
)
def test_an_english_sentence_is_translated_from_its_chinese_twin_when_it_has_one(
    sentence, source_from, source, reference
):
    pair = build_trace(sentence, "en")["encoder_decoder"]
    assert (pair["source_from"], pair["source_tokens"]) == (source_from, source.split())
    assert pair["reference_tokens"] == reference.split()


def test_an_english_story_sentence_comes_back_from_its_twin_word_for_word():
    sentence = "the fox often likes to catch chickens"
    assert build_trace(sentence, "en")["encoder_decoder"]["target_tokens"] == sentence.split()


def test_an_english_trace_uses_the_english_models():
    trace = build_trace("The dog likes to catch frisbees", "en")
    assert trace["tokens"] == "the dog likes to catch frisbees".split()
    assert trace["attention"]["predictions"][-2][0][0] == "frisbees"


def test_a_saved_trace_loads_back_and_an_edited_one_is_caught(default_trace, tmp_path):
    path = tmp_path / "trace.json"
    save_trace(default_trace, path)
    assert load_trace(path) == default_trace
    edited = json.loads(path.read_text(encoding="utf-8"))
    edited["attention"]["weights"][2][0] = 0.5
    path.write_text(json.dumps(edited, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(TraceError, match="edited or damaged"):
        load_trace(path)


@pytest.mark.parametrize(
    "breakage, message",
    [
        (lambda t: t["attention"]["weights"][1].__setitem__(0, 0.7), "sums to"),
        (
            lambda t: (
                t["attention"]["weights"][0].__setitem__(1, 0.0)
                or t["attention"]["weights"][1].__setitem__(2, 0.1)
                or t["attention"]["weights"][1].__setitem__(1, t["attention"]["weights"][1][1] - 0.1)
            ),
            "later word",
        ),
        (lambda t: t["rnn"]["influence"].pop(), "rnn.influence"),
        (lambda t: t["rnn"].pop("inputs"), "rnn.inputs"),
        (lambda t: t["rnn"].__setitem__("followed_index", len(t["tokens"]) - 1), "followed_index"),
        (lambda t: t.pop("kv_cache"), "missing kv_cache"),
        (lambda t: t.__setitem__("lang", "fr"), "lang 'fr' is not one of zh, en"),
        (lambda t: t["kv_cache"]["steps_with_cache"].append(1), "count per word"),
        (lambda t: t["training"]["copy_updates"]["query"].pop(), "one update per copy"),
        (lambda t: t["training"]["history"][0]["query_scores"].pop(), "a score per word"),
        (lambda t: t["encoder_decoder"].__setitem__("source_from", "guess"), "source_from must be one of"),
        (lambda t: t["encoder_decoder"].__setitem__("reference_tokens", "the cat"), "reference_tokens must be"),
    ],
)
def test_validation_names_what_is_wrong(default_trace, breakage, message):
    broken = json.loads(json.dumps(default_trace))
    breakage(broken)
    with pytest.raises(TraceError, match=message):
        validate(broken)


def test_the_content_hash_covers_every_field(default_trace):
    changed = json.loads(json.dumps(default_trace))
    changed["sqrt_dk"][0]["score_variance"] += 1e-6
    assert content_hash(changed) != default_trace["hash"]


def render(*args, cwd):
    return run_module("model.cli", *args, cwd=cwd)


def test_the_trace_command_writes_where_it_says(tmp_path):
    result = render("trace", "--sentence", "狗喜欢抓飞盘", "--out", str(tmp_path / "t" / "trace.json"), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert f"wrote {tmp_path / 't' / 'trace.json'}" in result.stdout
    assert load_trace(tmp_path / "t" / "trace.json")["tokens"] == ["狗", "喜欢", "抓", "飞盘"]


def test_the_default_output_is_named_after_the_sentence(tmp_path):
    result = render("trace", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "out" / "猫喜欢抓老鼠" / "trace.json").is_file()


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["trace", "--sentence", "大象喜欢抓老鼠"], "unknown word"),
        (["trace", "--sentence", ""], "empty"),
        (["trace", "--lang", "fr"], "unknown language"),
        (["trace", "--corpus", "missing.txt"], "cannot read corpus"),
        (["trace", "--out", "."], "is a folder"),
        (["trace", "--bogus"], "unrecognized arguments"),
        (["fly"], "invalid choice"),
    ],
)
def test_user_mistakes_get_one_line_exit_2_and_nothing_written(tmp_path, args, fragment):
    result = render(*args, cwd=tmp_path)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and fragment in lines[0], result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "out").exists()


def test_a_corpus_of_fewer_words_than_the_top_predictions_predicts_all_its_words():
    import torch

    words = ["a", "b"]  # a corpus of "a b" lines
    assert len(words) < TOP_K
    predictions = top_predictions(torch.tensor([[0.0, 2.0], [1.0, -1.0]]), words)
    assert [[word for word, _ in row] for row in predictions] == [["b", "a"], ["a", "b"]]
    assert all(sum(p for _, p in row) == pytest.approx(1, abs=1e-5) for row in predictions)

"""Scenes without rendering: components, dry-run chapters, on-screen numbers equal the Trace's."""

import copy
import math
import string
from dataclasses import fields

import numpy as np
import pytest
from manim import (
    DL,
    RIGHT,
    UR,
    Arrow,
    CurvedArrow,
    Group,
    Indicate,
    ManimColor,
    MarkupText,
    Rectangle,
    ReplacementTransform,
    SingleStringMathTex,
    Text,
    Transform,
    TransformFromCopy,
    VGroup,
    VMobject,
    config,
    tempconfig,
)

from scenes.ch01_network_basics import NetworkBasics
from scenes.ch02_scale_problem import ScaleProblem
from scenes.ch03_rnn_dilution import RNNDilution, rnn_falls
from scenes.ch04_attention_nodes import AttentionNodes
from scenes.ch05_multi_copy import MultiCopyInference
from scenes.ch06_training import Training
from scenes.ch07_kv_cache import KVCache
from scenes.ch08_transformer import TransformerContributions, formula_part, typeset_formula
from scenes.ch09_sqrt_dk import SqrtDk
from scenes.ch10_multi_head import MultiHead
from scenes.ch11_encoder_decoder import EncoderDecoder
from scenes.mobjects import Connections, NetworkCopy, NodeLayer, TokenRow, row_peaks
from scenes.strings import STRINGS
from scenes.strings import written as written_sentence
from scenes.theme import LABEL, SMALLEST_PIXELS, FontError, Theme, font_for, pixels_high, theme, value_colour

EVERY_CHAPTER = [
    NetworkBasics,
    ScaleProblem,
    RNNDilution,
    AttentionNodes,
    MultiCopyInference,
    Training,
    KVCache,
    TransformerContributions,
    SqrtDk,
    MultiHead,
    EncoderDecoder,
]


def test_a_node_layer_exposes_its_nodes_and_values():
    layer = NodeLayer([0.5, -1.0, 2.0], "query", show_values=True)
    assert len(layer) == 3 and layer.values == [0.5, -1.0, 2.0]
    assert layer.node(1).fill_color == value_colour(-1.0)
    assert layer.value_label(2).text == "2.00"


def test_connections_follow_the_weights():
    a, b = NodeLayer([1, 2], "input"), NodeLayer([1, 2, 3], "key", direction=RIGHT)
    edges = Connections(a, b, weights=[[1.0, 0.1, 0.5], [0.2, 0.3, 0.0]])
    assert len(edges.edges) == 6
    assert edges.edge(0, 0).stroke_width > edges.edge(0, 1).stroke_width


def test_many_edges_flow_fainter_than_few_so_that_they_stay_lines():
    def opacity(sources: int, targets: int) -> float:
        edges = Connections(NodeLayer([0.1] * sources, "input"), NodeLayer([0.1] * targets, "value", direction=RIGHT))
        return {flash.mobject.get_stroke_opacity() for flash in edges.flow().animations}.pop()

    assert opacity(2, 3) == 1.0
    assert 0.25 <= opacity(8, 16) < 0.5  # ch01's input → hidden: 128 edges


def test_a_token_row_finds_words_by_text_and_position():
    row = TokenRow(["猫", "喜欢", "抓", "老鼠"])
    assert row.token("抓") is row.token_at(2)


def test_a_network_copy_has_the_three_groups_and_its_edges():
    copy = NetworkCopy("猫", [0.1] * 8, [0.2] * 6, [0.3] * 6, [0.4] * 6)
    assert len(copy.input_nodes) == 8 and len(copy.key_nodes) == 6
    assert copy.edges_to("key").target is copy.key_nodes


def test_an_rnn_step_stacks_word_input_state_and_prediction_and_takes_the_state_from_the_step_before():
    from scenes.mobjects import number
    from scenes.mobjects.rnn import RNNStep, ShareBar

    first = RNNStep("猫", [0.1] * 8, [0.2] * 32, "喜欢", number(0.25), width=1.8)
    second = RNNStep("喜欢", [0.3] * 8, [-0.4] * 32, "抓", number(0.99), width=1.8).shift(3 * RIGHT)
    assert len(second.input_nodes) == 8 and len(second.hidden_nodes) == 32 and second.prediction[0].text == "抓"
    heights = [m.get_center()[1] for m in (second.word, second.input_nodes, second.hidden_nodes, second.prediction)]
    assert heights == sorted(heights) and second.hidden_nodes.width <= 1.8 + 1e-6
    handed_on = [a for a in second.update_state(first).animations if isinstance(a, TransformFromCopy)]
    assert [{id(a.mobject), id(a.target_mobject)} for a in handed_on] == [
        {id(first.hidden_nodes), id(second.hidden_nodes)}
    ]
    bar = ShareBar([0.5, 0.3, 0.2], followed=0, height=2.0)
    assert [round(bar.piece(i).height, 6) for i in range(3)] == [1.0, 0.6, 0.4]
    assert bar.piece(0).get_bottom()[1] < bar.piece(1).get_bottom()[1] < bar.piece(2).get_bottom()[1]


def test_one_value_always_gets_one_colour_and_the_sign_picks_the_hue():
    assert value_colour(0.7) == value_colour(0.7)
    assert value_colour(0.7) != value_colour(-0.7)
    assert value_colour(0.0) != value_colour(3.0)


def test_the_font_check_names_the_package_for_missing_glyphs():
    assert font_for("猫喜欢抓老鼠 the cat") == "Noto Sans CJK SC"
    with pytest.raises(FontError, match="fonts-noto-cjk"):
        font_for("\U0001f600")


def test_the_font_check_asks_fontconfig_only_about_characters_it_has_not_seen(monkeypatch):
    import scenes.theme as theme

    asked = []
    real = theme.fonts_covering.__wrapped__
    monkeypatch.setattr(theme, "fonts_covering", lambda characters: asked.append(characters) or real(characters))
    monkeypatch.setattr(theme, "_drawable", {})
    font_for("鼠猫 cat")
    font_for("猫鼠 tac")
    font_for("猫 tack")
    assert asked == [frozenset("鼠猫cat"), frozenset("k")]
    with pytest.raises(FontError, match="cannot draw '\U0001f600'"):
        font_for("猫 \U0001f600")


def test_every_language_has_every_string_with_the_same_blanks():
    keys = {lang: set(strings) for lang, strings in STRINGS.items()}
    assert keys["en"] == keys["zh"]

    def blanks(line: str) -> set[str]:
        return {name for _, name, _, _ in string.Formatter().parse(line) if name}

    assert [key for key in keys["en"] if blanks(STRINGS["en"][key]) != blanks(STRINGS["zh"][key])] == []


def run(scene_class, draw_frames=False, **attributes):
    """Build a chapter's scene to its end without writing a video: each animation jumps to its last state,
    or, with ``draw_frames``, every frame is drawn as in a render (about twice as slow)."""
    with tempconfig({"dry_run": True, "disable_caching": True, "quality": "low_quality"}):
        scene = type("Probe", (scene_class,), attributes)(skip_animations=not draw_frames)
        scene.render()
    return scene


def test_chapter_1_shows_the_real_token_id_inputs_and_probabilities(scene_trace, default_trace):
    shown = run(NetworkBasics).numbers_on_screen
    attention, word = default_trace["attention"], 2  # 抓, the word before the last
    assert shown["token id"] == attention["token_ids"][word]
    assert [shown[f"input {i}"] for i in range(8)] == attention["inputs"][word]
    assert [shown[f"hidden {i}"] for i in range(len(attention["hidden"][word]))] == attention["hidden"][word]
    assert [shown[f"p {r}"] for r in range(5)] == [p for _, p in attention["predictions"][word]]
    assert attention["predictions"][word][0][0] == "老鼠"


def test_chapter_2_shows_the_real_parameter_counts_and_the_machine_limit(scene_trace, default_trace):
    from scenes.ch02_scale_problem import CHART

    scene = run(ScaleProblem)
    shown = scene.numbers_on_screen
    longest = default_trace["scale"][-1]["length"]
    assert longest >= 10_000 and any(f"{longest:,}" in line for line in scene.spoken)  # 16,384 …
    assert not any(str(longest) in line for line in scene.spoken)  # … never 16384
    counts = {row["length"]: row["fully_connected"] for row in default_trace["scale"]}
    for length in (1, 2, 4, 8):
        assert shown[f"fully connected {length}"] == counts[length]
    assert shown["attention"] == default_trace["scale"][0]["attention"]
    assert shown["parameters that fit"] == default_trace["hardware"]["parameters_that_fit"]
    assert max(counts.values()) > shown["parameters that fit"] > shown["attention"]
    first_too_big = min(length for length, count in counts.items() if count > shown["parameters that fit"])
    assert shown[f"fully connected {first_too_big}"] == counts[first_too_big]
    written = {m.text for m in scene.mobjects for m in m.get_family() if isinstance(m, Text)}
    assert {f"{shown['parameters that fit']:,}", f"{counts[first_too_big]:,}"} <= written  # on screen, not only said
    memory = [
        m for m in scene.mobjects for m in m.get_family() if isinstance(m, Text) and m.text == STRINGS["zh"]["memory"]
    ]
    assert len(memory) == 1 and memory[0].get_left()[0] > CHART["left"] + 0.05  # clear of the y axis


@pytest.mark.parametrize("gib", [4, 8, 24])
def test_chapter_2_s_numbers_where_the_curve_crosses_the_memory_keep_apart_on_any_machine(
    default_trace, tmp_path, monkeypatch, gib
):
    trace = copy.deepcopy(default_trace)
    fit = gib * 2**30 // trace["hardware"]["bytes_per_parameter"]
    trace["hardware"] = {**trace["hardware"], "memory_bytes": gib * 2**30, "parameters_that_fit": fit}
    for_the_scenes(trace, tmp_path, monkeypatch)
    first = next(row for row in trace["scale"] if row["fully_connected"] > fit)
    texts = {m.original_text: m for m in run(ScaleProblem).mobjects for m in m.get_family() if isinstance(m, Text)}
    memory = [texts[STRINGS["zh"]["memory"]], texts[f"{fit:,}"]]
    need = [texts[f"{first['length']:,} {STRINGS['zh']['words']}"], texts[f"{first['fully_connected']:,}"]]
    assert not any(overlap(*corners(a), *corners(b)) for a in memory for b in need)


def test_chapter_3_shows_the_real_shares_and_accuracies(scene_trace, default_trace):
    shown = run(RNNDilution).numbers_on_screen
    influence, rows = default_trace["rnn"]["influence"], default_trace["accuracy_by_distance"]
    assert default_trace["rnn"]["followed_index"] == 0  # 猫
    assert [shown[f"share {t}"] for t in range(4)] == [row[0] for row in influence]
    assert shown["hidden nodes"] == default_trace["rnn"]["config"]["d_hidden"]
    assert shown["rnn at 0"] == rows[0]["rnn"] and shown["rnn at 10"] == rows[10]["rnn"]
    assert shown["transformer at 10"] == rows[10]["transformer"]
    assert shown["share 3"] < shown["share 1"]


@pytest.mark.slow
def test_chapter_4_shows_the_real_q_k_score_weight_and_prediction(scene_trace, default_trace):
    scene = run(AttentionNodes)
    attention = default_trace["attention"]
    shown = scene.numbers_on_screen
    products = [shown[f"product {j}"] for j in range(attention["config"]["d_k"])]
    assert products == [q * k for q, k in zip(attention["queries"][0], attention["keys"][0])]
    assert shown["score"] == attention["scores"][0][0]
    assert math.isclose(sum(products) / math.sqrt(attention["config"]["d_k"]), shown["score"], abs_tol=1e-5)
    assert shown["weight"] == attention["weights"][0][0] == 1.0
    assert [shown[f"p {r}"] for r in range(3)] == [p for _, p in attention["predictions"][0][:3]]
    # the numbers taken out of the groups into columns, the running sum, and the weighted column
    d_k = attention["config"]["d_k"]
    assert shown["d_k"] == d_k
    assert [shown[f"input {i}"] for i in range(attention["config"]["d_model"])] == attention["inputs"][0]
    for role, field in (("query", "queries"), ("key", "keys"), ("value", "values")):
        assert [shown[f"{role} {i}"] for i in range(d_k)] == attention[field][0]
        assert [shown[f"{role} column {i}"] for i in range(d_k)] == attention[field][0]
    assert [shown[f"running sum {j}"] for j in range(d_k)] == pytest.approx(np.cumsum(products).tolist(), abs=1e-12)
    assert math.isclose(shown[f"running sum {d_k - 1}"] / math.sqrt(d_k), shown["score"], abs_tol=1e-5)
    weighted = [shown[f"weighted {i}"] for i in range(d_k)]
    assert weighted == attention["mixed"][0]
    assert weighted == pytest.approx([shown["weight"] * v for v in attention["values"][0]], abs=1e-6)


def test_chapter_5_shows_the_real_scores_weights_and_prediction(scene_trace, default_trace):
    scene = run(MultiCopyInference)
    attention, query = default_trace["attention"], 2
    shown = scene.numbers_on_screen
    assert [shown[f"weight {j}"] for j in range(3)] == attention["weights"][query][:3]
    assert [shown[f"score {j}"] for j in range(3)] == attention["scores"][query][:3]
    assert shown["p prediction"] == attention["predictions"][query][0][1]
    assert max(range(3), key=lambda j: shown[f"weight {j}"]) == 0  # 猫, the first word


@pytest.mark.slow
def test_chapter_6_shows_the_recorded_training_and_the_copies_updates(scene_trace, default_trace):
    shown = run(Training).numbers_on_screen
    training = default_trace["training"]
    history, updates = training["history"], training["copy_updates"]
    assert [shown[f"start p {r}"] for r in range(5)] == [p for _, p in training["start_predictions"]]
    assert shown["target p 0"] == history[0]["target_probability"] < 0.1
    assert (shown["loss start"], shown["loss end"]) == (history[0]["loss"], history[-1]["loss"])
    assert shown["weight end"] == history[-1]["key_weight"] == default_trace["attention"]["weights"][2][0]
    assert shown["p end"] == history[-1]["target_probability"]
    assert (shown["weight start"], shown["p start"]) == (history[0]["key_weight"], history[0]["target_probability"])
    assert [shown[f"score {j}"] for j in range(3)] == history[-1]["query_scores"]
    for c in range(3):
        assert shown[f"query update {c}"] == max(abs(v) for row in updates["query"][c] for v in row)
    assert shown["key update average"] == max(abs(v) for row in updates["shared_key"] for v in row)
    assert shown["query update 0"] == 0.0


def test_chapter_7_counts_the_recomputations_with_and_without_the_cache(scene_trace, default_trace):
    shown = run(KVCache).numbers_on_screen
    kv, T = default_trace["kv_cache"], len(default_trace["tokens"])
    assert [shown[f"without cache step {t}"] for t in range(T)] == kv["steps_without_cache"]
    assert [shown[f"with cache step {t}"] for t in range(T)] == kv["steps_with_cache"]
    assert shown["without cache total"] == sum(kv["steps_without_cache"]) == T * (T + 1) // 2
    assert shown["with cache total"] == T
    assert shown["max difference"] == kv["max_abs_diff"] < 1e-5
    assert shown["cached numbers"] == kv["cached_numbers"]


@pytest.mark.slow
def test_chapter_8_writes_the_sentences_real_matrices_into_the_formula(scene_trace, default_trace):
    shown = run(TransformerContributions).numbers_on_screen
    attention, T = default_trace["attention"], len(default_trace["tokens"])
    d_k = attention["config"]["d_k"]
    assert [[shown[f"Q {i} {j}"] for j in range(d_k)] for i in range(T)] == attention["queries"]
    assert [[shown[f"K^T {j} {i}"] for j in range(d_k)] for i in range(T)] == attention["keys"]
    assert [[shown[f"V {i} {j}"] for j in range(d_k)] for i in range(T)] == attention["values"]
    assert [[shown[f"out {i} {j}"] for j in range(d_k)] for i in range(T)] == attention["mixed"]
    for i in range(T):
        assert [shown[f"weight {i} {j}"] for j in range(i + 1)] == attention["weights"][i][: i + 1]
        assert f"weight {i} {i + 1}" not in shown  # later words are masked, not drawn
        for j in range(i + 1):
            q_dot_k = sum(a * b for a, b in zip(attention["queries"][i], attention["keys"][j]))
            assert math.isclose(shown[f"score {i} {j}"], q_dot_k / math.sqrt(d_k), abs_tol=1e-4)
            mixed = sum(attention["weights"][i][m] * attention["values"][m][j % d_k] for m in range(i + 1))
            assert math.isclose(shown[f"out {i} {j % d_k}"], mixed, abs_tol=1e-4)
    steps = default_trace["sequential"]
    assert (shown["rnn steps"], shown["attention steps"]) == (T, 1) == (steps["rnn_steps"], steps["attention_steps"])
    assert (shown["rnn path"], shown["attention path"]) == (T - 1, 1)
    assert shown["rnn at 10"] < shown["transformer at 10"]


@pytest.mark.slow
def test_chapter_9_shows_the_measured_variance_saturation_and_gradients(scene_trace, default_trace):
    shown = run(SqrtDk).numbers_on_screen
    rows = {row["d_k"]: row for row in default_trace["sqrt_dk"]}
    assert shown["variance last"] == rows[1024]["score_variance"]
    assert shown["scaled variance last"] == rows[1024]["score_variance_scaled"]
    for d_k, row in rows.items():
        if d_k != 1024:  # the last point's variance is written larger, as "variance last"
            assert shown[f"variance {d_k}"] == row["score_variance"]
        assert shown[f"max unscaled {d_k}"] == max(row["example_weights_unscaled"]) == row["max_weight_unscaled"]
        assert shown[f"max scaled {d_k}"] == max(row["example_weights_scaled"])
        for field in ("max_weight_unscaled", "max_weight_scaled", "grad_norm_unscaled", "grad_norm_scaled"):
            assert shown[f"{field} {d_k}"] == row[field]
    assert shown["max unscaled 1024"] > 0.99 > 0.6 > shown["max scaled 1024"]
    assert shown["grad_norm_unscaled 1024"] < shown["grad_norm_unscaled 4"]


@pytest.mark.slow
def test_chapter_10_shows_each_heads_weights_behaviour_and_the_projection(scene_trace, default_trace):
    shown = run(MultiHead).numbers_on_screen
    multi, T = default_trace["multi_head"], len(default_trace["tokens"])
    for h, weights in enumerate(multi["weights"]):
        assert [[shown[f"head {h} {i} {j}"] for j in range(i + 1)] for i in range(T)] == [
            row[: i + 1] for i, row in enumerate(weights)
        ]
        head = multi["heads"][h]
        assert shown[f"share {h}"] == head["shares"][head["looks_at"]]
        assert shown[f"peak {h}"] == max(weights[T - 2][: T - 1])  # where the word before the last looks here
        assert [shown[f"output {h} {i}"] for i in range(multi["config"]["d_k"])] == multi["outputs"][h][T - 2]
    assert [shown[f"combined {i}"] for i in range(multi["config"]["d_k"])] == multi["combined"][T - 2]
    assert shown["one head 2 0"] == default_trace["attention"]["weights"][2][0]
    assert len({head["looks_at"] for head in multi["heads"]}) >= 2


@pytest.mark.slow
def test_chapter_11_shows_the_translators_real_weights(scene_trace, default_trace):
    shown = run(EncoderDecoder).numbers_on_screen
    pair = default_trace["encoder_decoder"]
    S, U = len(pair["source_tokens"]), len(pair["target_tokens"])
    assert [[shown[f"encoder {i} {j}"] for j in range(S)] for i in range(S)] == pair["encoder_weights"]
    assert [[shown[f"cross {i} {j}"] for j in range(S)] for i in range(U)] == pair["cross_weights"]
    for i in range(U):
        assert [shown[f"decoder {i} {j}"] for j in range(i + 1)] == pair["decoder_weights"][i][: i + 1]
        assert f"decoder {i} {i + 1}" not in shown
    assert shown["exact match"] == pair["exact_match"] >= 0.95
    cat = pair["target_tokens"].index("cat")
    assert max(range(S), key=lambda j: shown[f"cross {cat} {j}"]) == pair["source_tokens"].index("猫")


@pytest.mark.parametrize(
    "sentence",
    ["猫喜欢抓老鼠", "狗每天早上在院子里喜欢抓飞盘", "猫今天每天早上晚上也总是一直常常经常在院子里喜欢抓老鼠"],
)
@pytest.mark.slow
def test_chapter_11s_encoder_and_decoder_headings_stand_on_one_line(sentence, tmp_path, monkeypatch):
    traced(sentence, tmp_path, monkeypatch)
    scene = run(EncoderDecoder)
    assert abs(scene.encoder_heading.get_y() - scene.decoder_heading.get_y()) < 0.01


@pytest.mark.parametrize(
    "sentence, line, source",
    [
        ("the fox often likes to catch chickens", "ch11.encode_twin", "狐狸常常喜欢抓鸡"),
        ("the dog likes to", "ch11.encode_default", "猫喜欢抓老鼠"),
    ],
)
@pytest.mark.slow
def test_chapter_11_says_which_chinese_sentence_it_translates(sentence, line, source, tmp_path, monkeypatch):
    traced(sentence, tmp_path, monkeypatch, "en")
    spoken = run(EncoderDecoder).spoken
    assert [said for said in spoken if source in said] == [STRINGS["en"][line].format(source=source)]


@pytest.mark.parametrize(
    "reference, line",
    [
        (None, "ch11.exact"),
        ("the cat likes to catch mice", "ch11.exact"),
        ("the fox likes to catch chickens", "ch11.exact_missed"),
    ],
)
@pytest.mark.slow
def test_chapter_11_says_and_writes_when_it_got_the_sentence_wrong(
    default_trace, reference, line, written, tmp_path, monkeypatch
):
    trace = copy.deepcopy(default_trace)
    trace["encoder_decoder"]["reference_tokens"] = reference and reference.split()
    for_the_scenes(trace, tmp_path, monkeypatch)
    said = STRINGS["zh"][line].format(share=f"{trace['encoder_decoder']['exact_match']:.0%}")
    assert run(EncoderDecoder).spoken[-2] == said  # the last line before the recap
    assert (STRINGS["zh"]["missed_label"] in written) == (line == "ch11.exact_missed")


def test_the_formula_typesets_its_notation_and_finds_its_parts_by_name():
    typeset = typeset_formula()
    assert isinstance(typeset, SingleStringMathTex)  # MathTex, not a label
    part = {name: formula_part(typeset, name) for name in ("attention", "softmax", "Q", "K^T", "bar", "root", "V")}
    assert [part[name].tex_string for name in part] == [
        r"\mathrm{Attention}(Q,K,V)",
        r"\mathrm{softmax}",
        "Q",
        r"K^\top",
        "}{",
        r"\sqrt{d_k}",
        "V",
    ]
    assert len(part["softmax"]) == len("softmax") and part["V"] is typeset[-1]
    k, t = part["K^T"]
    assert t.height < k.height and t.get_bottom()[1] > k.get_bottom()[1] + 0.05  # a superscript ⊤
    bar = part["bar"][0]
    assert bar.width > part["Q"].width + part["K^T"].width  # QKᵀ over √d_k, a fraction
    assert part["Q"].get_bottom()[1] > bar.get_top()[1] > bar.get_bottom()[1] > part["root"].get_top()[1]
    _, vinculum, d, sub_k = part["root"]
    assert vinculum.get_left()[0] < d.get_left()[0] and vinculum.get_right()[0] > sub_k.get_right()[0]  # √ over d_k
    assert sub_k.get_bottom()[1] < d.get_bottom()[1] - 0.02  # a subscript k
    assert part["softmax"].get_right()[0] < part["Q"].get_left()[0] < part["V"].get_left()[0]


def glyphs(text, written: str, part: str, occurrence: int = 0):
    """The glyphs of ``part`` (its ``occurrence``-th appearance) in a label of ``written``, which
    keeps one glyph per character it draws."""
    from scenes.mobjects import drawn_characters

    start = -1
    for _ in range(occurrence + 1):
        start = written.index(part, start + 1)
    first = len(drawn_characters(written[:start]).replace(" ", ""))
    return text[first : first + len(drawn_characters(part).replace(" ", ""))]


@pytest.mark.parametrize(
    "text, root, covered, after",
    [
        ("softmax(QK^T / √d_k) V", "√", "d_k", ") V"),
        ("Σ / √6 =", "√", "6", "="),
        ("第九章  为什么要除以 √d_k", "√", "d_k", None),
    ],
)
def test_a_root_s_bar_reaches_over_what_it_takes_the_root_of_and_no_further(text, root, covered, after):
    from scenes.mobjects import label
    from scenes.theme import font_for

    written, plain = label(text, 30), Text("√", font=font_for("√"), font_size=30)
    sign, last = glyphs(written, text, root)[0], glyphs(written, text, covered)[-1]
    assert sign.get_right()[0] > last.get_right()[0]
    assert sign.height == pytest.approx(plain.height, abs=1e-6)  # lengthened, not thickened
    if after:
        assert sign.get_right()[0] < glyphs(written, text, after)[0].get_left()[0]


def test_column_labels_that_must_shrink_a_little_shrink_alike():
    from scenes.mobjects import column_labels, label

    words = ["<s>", "the", "cat", "likes", "to", "catch"]
    cell = label("catch", 20).width / 0.85 * 0.9  # "catch" alone is a little too wide for its column
    labels = column_labels(words, 20, cell)
    scales = {round(text.width / label(word, 20).width, 6) for word, text in zip(words, labels)}
    assert len(scales) == 1 and 0.7 < scales.pop() < 1  # one size for the row, smaller than asked
    assert all(text.width <= 0.85 * cell + 1e-9 for text in labels)


def upright_scales(words, labels) -> list[float]:
    """How much smaller than at size 22 each upright label is written."""
    from scenes.mobjects import label

    as_written = [label(word if word.isascii() else "\n".join(word), 22) for word in words]
    return [max(text.height, text.width) / max(full.height, full.width) for text, full in zip(labels, as_written)]


@pytest.mark.parametrize(
    "words, tallest", [(["the", "fox", "mornings", "frequently"], 1.2), (["狐狸", "也", "在院子里"], 1.0)]
)
def test_column_labels_stood_upright_shrink_alike(words, tallest):
    from scenes.mobjects import column_labels

    labels = column_labels(words, 22, 0.4, tallest)
    assert all(text.height > text.width for text in labels if len(text) > 1)  # upright
    scales = upright_scales(words, labels)
    assert max(scales) - min(scales) < 1e-6 and max(scales) < 1  # "frequently" no smaller than "the"
    assert max(text.height for text in labels) <= tallest + 1e-9


def test_one_very_long_upright_label_does_not_shrink_the_others_past_a_share_of_their_size():
    from scenes.mobjects import column_labels
    from scenes.mobjects.grids import SMALLEST_SHARED

    words = ["the", "fox", "extraordinarily"]
    labels = column_labels(words, 22, 0.4, tallest=0.9)
    scales = upright_scales(words, labels)
    assert scales[0] == pytest.approx(SMALLEST_SHARED) == scales[1] and scales[2] < SMALLEST_SHARED
    assert max(text.height for text in labels) <= 0.9 + 1e-9


def test_prediction_words_keep_clear_of_what_stands_left_of_them_and_share_one_size():
    from scenes.mobjects import label, prediction_rows

    def rows(words, limit):
        top = [(word, 0.1) for word in words]
        return [
            row[0] for row in prediction_rows(top, [label("0.1", 16) for _ in top], [0.2, 1.4, 0], words_right_of=limit)
        ]

    long = rows(["daily", "child", "butterflies"], -1.2)
    assert len({round(word.font_size, 6) for word in long}) == 1 and long[0].font_size < LABEL
    assert min(word.get_left()[0] for word in long) >= -1.2 - 1e-9
    assert all(round(word.font_size, 6) == LABEL for word in rows(["猫", "狗"], -1.2))


def test_a_y_tick_label_stands_clear_of_a_dot_on_the_axis():
    """Chapters 3, 8 and 9 start a curve on the y axis: its first dot (chapter 9's are the largest)
    must not touch the tick label beside it."""
    from manim import Dot

    from scenes.mobjects.nodes import chart_axes

    box = {"left": -2.0, "right": 2.0, "bottom": -1.0, "top": 1.0}
    for text in ("4", "1.0", "1024"):
        ticks = chart_axes(box, [], [(text, [-2.0, 0.5, 0])], "x", "y")[1]
        dot = Dot([-2.0, 0.5, 0], radius=0.08)
        assert ticks[0].get_right()[0] < dot.get_left()[0] - 0.05


def test_a_label_with_notation_still_draws_markup_characters_as_written():
    from scenes.mobjects import label

    assert len(label("a<b & d_k", 20)) == len("a<b&dk")


def for_the_scenes(trace: dict, tmp_path, monkeypatch) -> dict:
    """``trace`` saved where the scenes will read it, its hash renewed (a test may have edited it)."""
    from model.trace_schema import content_hash, save_trace

    trace["hash"] = content_hash(trace)
    save_trace(trace, tmp_path / "trace.json")
    monkeypatch.setenv("ATTENTION_TRACE", str(tmp_path / "trace.json"))
    return trace


def traced(sentence: str, tmp_path, monkeypatch, lang: str = "zh") -> dict:
    """The Trace of ``sentence``, saved where the scenes will read it."""
    from model.trace import build_trace

    return for_the_scenes(build_trace(sentence, lang), tmp_path, monkeypatch)


@pytest.fixture
def other_sentence(tmp_path, monkeypatch):
    return traced("狐狸每天早上偷偷喜欢抓鸡", tmp_path, monkeypatch)


@pytest.mark.slow
def test_every_chapter_draws_every_frame_for_another_corpus_sentence(other_sentence, monkeypatch):
    """The other tests jump each animation to its end; here every frame in between is drawn too."""
    from manim.renderer.cairo_renderer import CairoRenderer

    update_frame = CairoRenderer.update_frame
    frames = []

    def counted(*args, **kwargs):
        frames.append(1)
        return update_frame(*args, **kwargs)

    monkeypatch.setattr(CairoRenderer, "update_frame", counted)

    def drawn(scene_class):
        before = len(frames)
        scene = run(scene_class, draw_frames=True)
        assert len(frames) - before > 5 * scene.renderer.num_plays  # jumping draws about 2 per animation
        return scene

    attention, query = other_sentence["attention"], len(other_sentence["tokens"]) - 2
    assert drawn(NetworkBasics).numbers_on_screen["token id"] == attention["token_ids"][query]
    assert drawn(ScaleProblem).numbers_on_screen["attention"] == other_sentence["scale"][0]["attention"]
    last = len(other_sentence["tokens"]) - 1
    assert drawn(RNNDilution).numbers_on_screen[f"share {last}"] == other_sentence["rnn"]["influence"][last][0]
    assert drawn(AttentionNodes).numbers_on_screen["score"] == attention["scores"][0][0]
    assert drawn(MultiCopyInference).numbers_on_screen[f"weight {query}"] == attention["weights"][query][query]
    training = other_sentence["training"]
    assert drawn(Training).numbers_on_screen[f"score {training['key_index']}"] == training["history"][-1]["key_score"]
    assert (
        drawn(KVCache).numbers_on_screen["without cache total"]
        == other_sentence["kv_cache"]["projections_without_cache"]
    )
    assert drawn(TransformerContributions).numbers_on_screen[f"weight {query} 0"] == attention["weights"][query][0]
    assert drawn(SqrtDk).numbers_on_screen["variance last"] == other_sentence["sqrt_dk"][-1]["score_variance"]
    multi = other_sentence["multi_head"]
    assert drawn(MultiHead).numbers_on_screen[f"head 1 {query} 0"] == multi["weights"][1][query][0]
    pair = other_sentence["encoder_decoder"]
    peak = row_peaks(pair["cross_weights"])[0]  # a long sentence's grid writes only each row's largest weight
    assert drawn(EncoderDecoder).numbers_on_screen[f"cross 0 {peak}"] == pair["cross_weights"][0][peak]


MORPHS = (Transform, ReplacementTransform, TransformFromCopy)  # bend points into points; not FadeIn, Indicate, …


def morphed_text(animation) -> tuple[list[str], list[str]] | None:
    """The texts a Transform bends into other texts, glyph outline into glyph outline (midway the
    shapes are no character at all), or None."""
    if type(animation) not in MORPHS:
        return None

    def texts(mobject):
        return [m.text for m in mobject.get_family() if isinstance(m, (Text, MarkupText))]

    before, after = texts(animation.mobject), texts(animation.target_mobject)
    return (before, after) if before != after else None


def grown_from_nothing(animation) -> list[str]:
    """Parts of a Transform's target whose source part has no points: Manim grows them out of the
    point (0, 0), so they fly in from the middle of the screen."""
    if type(animation) not in MORPHS:
        return []

    def drawn(mobject) -> bool:
        return any(part.has_points() for part in mobject.get_family())

    def walk(source, target, path: str) -> list[str]:
        found = []
        for i, (before, after) in enumerate(zip(source.submobjects, target.submobjects)):
            if drawn(after) and not drawn(before):
                found.append(f"{path}/{i} {type(after).__name__}")
            else:
                found.extend(walk(before, after, f"{path}/{i}"))
        return found

    return walk(animation.mobject, animation.target_mobject, type(animation.target_mobject).__name__)


@pytest.mark.parametrize("chapter", EVERY_CHAPTER)
@pytest.mark.parametrize("look", ["dark", "light"])
@pytest.mark.slow
def test_a_full_run_narrates_as_many_lines_as_the_progress_total_says_and_draws_in_the_themes_colours(
    scene_trace, chapter, look, monkeypatch
):
    monkeypatch.setenv("ATTENTION_THEME", look)
    drawn, flashes, morphs, from_nothing = {}, [], [], []

    def play(self, *animations, **kwargs):
        flashes.extend(animation.color for animation in animations if isinstance(animation, Indicate))
        morphs.extend(filter(None, map(morphed_text, animations)))
        from_nothing.extend(filter(None, map(grown_from_nothing, animations)))
        chapter.play(self, *animations, **kwargs)
        drawn.update((id(part), part) for mobject in self.mobjects for part in mobject.get_family())
        outside.update(out_of_place(self))

    outside = set()
    assert len(run(chapter, play=play).spoken) == chapter.narration_lines
    assert not outside
    colours = {str(ManimColor(getattr(theme(), f.name))) for f in fields(Theme) if f.name != "font"}
    assert {str(colour) for colour in flashes} <= colours  # never Manim's own pure yellow
    assert not morphs  # a label that changes cross-fades
    assert not from_nothing
    # Manim's default white is no theme's colour (on the light theme it all but vanishes); a line's
    # fill covers no area, a closed shape's does
    white = ManimColor("#FFFFFF")
    unthemed = {
        type(m).__name__
        for m in drawn.values()
        if isinstance(m, VMobject)
        and m.has_points()
        and max(m.width, m.height) > 0
        and (
            (m.get_stroke_width() > 0.01 and m.get_stroke_opacity() > 0 and m.get_stroke_color() == white)
            or (m.is_closed() and m.get_fill_opacity() > 0 and m.get_fill_color() == white)
        )
    }
    assert not unthemed


def out_of_place(scene) -> set[str]:
    """Texts too small to read at 480p, outside the camera's frame or on other texts, in any frame; and
    while the camera shows the whole frame (not a close-up), what stands nearer the frame's left or right
    edge than the title stands from the left, or within 0.15 of the title, and words a frame or an arrow
    runs through."""
    boxes = drawn_boxes(scene)
    found = illegible(scene, boxes) | words_on_words(boxes)
    if scene.camera.frame.height < 7.99:
        return found
    return (
        found
        | beyond_the_margins(boxes)
        | crowding_the_title(scene, boxes)
        | frames_through_words(boxes)
        | arrows_through_words(boxes)
    )


def illegible(scene, boxes) -> set[str]:
    """Visible texts whose digits stand less than SMALLEST_PIXELS high at 480p in the camera's frame, or
    that reach outside it."""
    frame = scene.camera.frame
    frame_low, frame_high = corners(frame)
    found = set()
    for part, name, low, high in boxes:
        if not isinstance(part, TEXTS) or part.get_fill_opacity() <= 0.05:
            continue
        pixels = pixels_high(part.font_size, frame.height)
        if pixels < SMALLEST_PIXELS - 0.05:
            found.add(f"{name} only {pixels:.1f} px high")
        if not ((low >= frame_low - 1e-3).all() and (high <= frame_high + 1e-3).all()):
            found.add(f"{name} outside the frame")
    return found


def arrows_through_words(boxes) -> set[str]:
    """Visible arrows that pass through a visible text (more than 0.02 inside its box)."""
    texts = [(name, low + 0.02, high - 0.02) for name, low, high in visible_texts(boxes)]
    crossed = set()
    for arrow, _, _, _ in boxes:
        if isinstance(arrow, (Arrow, CurvedArrow)) and arrow.get_stroke_opacity() > 0.05:
            path = np.array([arrow.point_from_proportion(a) for a in np.linspace(0, 1, 60)])[:, :2]
            crossed |= {
                f"an arrow from {arrow.get_start()[:2].round(2)} through {name}"
                for name, low, high in texts
                if ((path > low) & (path < high)).all(axis=1).any()
            }
    return crossed


def words_on_words(boxes) -> set[str]:
    """Pairs of visible texts whose boxes overlap by more than 0.01."""
    texts = visible_texts(boxes)
    return {
        f"{a} | {b}"
        for i, (a, a_low, a_high) in enumerate(texts)
        for b, b_low, b_high in texts[i + 1 :]
        if overlap(a_low, a_high, b_low, b_high, by=0.01)
    }


TEXTS = (Text, MarkupText, SingleStringMathTex)  # measured whole, not glyph by glyph


def visible_texts(boxes) -> list[tuple[str, np.ndarray, np.ndarray]]:
    return [
        (name, low, high)
        for part, name, low, high in boxes
        if isinstance(part, TEXTS) and part.get_fill_opacity() > 0.05
    ]


def overlap(a_low, a_high, b_low, b_high, by: float = 0.0) -> bool:
    """Whether two boxes, each given by its lower-left and upper-right corners, overlap by more than
    ``by`` both ways."""
    return bool((a_low < b_high - by).all() and (a_high > b_low + by).all())


def corners(mobject) -> tuple[np.ndarray, np.ndarray]:
    return mobject.get_corner(DL)[:2], mobject.get_corner(UR)[:2]


def drawn_boxes(scene) -> list[tuple[VMobject, str, np.ndarray, np.ndarray]]:
    """Each visible thing on screen (texts whole, not their glyphs): its name and its lower-left and
    upper-right corners (x, y), each box measured once."""
    parts = [part for mobject in scene.mobjects for part in mobject.get_family()]
    glyphs = {id(glyph) for text in parts if isinstance(text, TEXTS) for glyph in text.get_family()[1:]}
    boxes = []
    for part in parts:
        if id(part) in glyphs or not (isinstance(part, TEXTS) or part.has_points()):
            continue
        points = part.get_all_points() if isinstance(part, TEXTS) else part.points
        if len(points) and (part.get_fill_opacity() > 0 or part.get_stroke_opacity() > 0):
            name = f"{type(part).__name__} {getattr(part, 'text', '')}".strip()
            boxes.append((part, name, points.min(axis=0)[:2], points.max(axis=0)[:2]))
    return boxes


def frames_through_words(boxes) -> set[str]:
    """Words that an outline (a frame around something) runs through: partly inside it, partly out."""
    frames = [
        (low, high)
        for part, _, low, high in boxes
        if isinstance(part, Rectangle) and part.get_stroke_opacity() > 0 and part.get_stroke_width() > 0
    ]
    crossed = set()
    for part, name, low, high in boxes:
        if not isinstance(part, TEXTS):
            continue
        for f_low, f_high in frames:
            inside = (low >= f_low - 1e-3).all() and (high <= f_high + 1e-3).all()
            if overlap(low, high, f_low, f_high) and not inside:
                crossed.add(f"{name} crossed by a frame at {f_low.round(2)}-{f_high.round(2)}")
    return crossed


def beyond_the_margins(boxes) -> set[str]:
    from scenes.base import LEFT_MARGIN, RIGHT_MARGIN

    return {name for _, name, low, high in boxes if not LEFT_MARGIN - 1e-3 <= low[0] <= high[0] <= RIGHT_MARGIN + 1e-3}


def crowding_the_title(scene, boxes, gap: float = 0.15) -> set[str]:
    title = getattr(scene, "title", None)
    if title not in scene.mobjects:
        return set()
    title_low, title_high = corners(title)
    return {
        name
        for part, name, low, high in boxes
        if part is not title and overlap(low, high, title_low - gap, title_high + gap)
    }


@pytest.mark.parametrize("chapter", EVERY_CHAPTER)
@pytest.mark.parametrize(
    "sentence, lang",
    [
        (
            "the fox today daily mornings nightly also always constantly often frequently outside likes to catch "
            "chickens",
            "en",
        ),
        ("猫今天每天早上晚上也总是一直常常经常在院子里喜欢抓老鼠", "zh"),
    ],
)
@pytest.mark.slow
def test_a_long_sentence_keeps_clear_of_the_frame_s_sides_and_the_title(tmp_path, monkeypatch, chapter, sentence, lang):
    traced(sentence, tmp_path, monkeypatch, lang)
    outside = set()

    def play(self, *animations, **kwargs):
        chapter.play(self, *animations, **kwargs)
        outside.update(out_of_place(self))

    run(chapter, play=play)
    assert not outside


def test_the_query_word_is_a_class_attribute(scene_trace, default_trace):
    scene = run(MultiCopyInference, query_index=1)
    assert scene.numbers_on_screen["weight 1"] == default_trace["attention"]["weights"][1][1]
    assert "weight 2" not in scene.numbers_on_screen


@pytest.fixture
def english_sentence(tmp_path, monkeypatch):
    return traced("the cat likes to catch mice", tmp_path, monkeypatch, "en")


@pytest.fixture
def written(monkeypatch) -> list[str]:
    """Every text a label is made of, in order (each label asks the theme for its font)."""
    import scenes.mobjects.nodes as nodes

    texts = []
    monkeypatch.setattr(nodes, "font_for", lambda text: texts.append(text) or font_for(text))
    return texts


# Chapter 11 shows the translator's Chinese source sentence: Chinese there is the data, not the language.
@pytest.mark.parametrize("chapter", EVERY_CHAPTER[:-1])
@pytest.mark.slow
def test_an_english_chapter_puts_no_chinese_on_screen(english_sentence, written, chapter):
    run(chapter)
    assert written and not [
        t for t in written if any("\u3000" <= ch <= "\u9fff" or "\uff00" <= ch <= "\uffef" for ch in t)
    ]


def test_chapter_2_in_english_counts_one_word_and_more_words(english_sentence, written):
    run(ScaleProblem)
    assert "1 word" in written and "1 words" not in written
    assert {"2 words", "4 words", "8 words"} <= set(written)


def test_chapter_3_in_english_follows_the_subject_not_the_first_word(english_sentence):
    scene = run(RNNDilution)
    tokens, influence = english_sentence["tokens"], english_sentence["rnn"]["influence"]
    assert tokens[english_sentence["rnn"]["followed_index"]] == "cat"
    later = range(1, len(tokens))
    assert [scene.numbers_on_screen[f"share {t}"] for t in later] == [influence[t][1] for t in later]
    assert "share 0" not in scene.numbers_on_screen
    assert any("“cat”" in line for line in scene.spoken)


def test_chapter_3_does_not_say_a_share_falls_when_the_rnn_keeps_it(english_sentence, tmp_path, monkeypatch):
    trace = copy.deepcopy(english_sentence)  # as an RNN trained on a user corpus might: "cat" grows
    last = trace["rnn"]["influence"][-1]
    kept = trace["rnn"]["influence"][1][1]
    last[:] = [kept if i == 1 else (1 - kept) / (len(last) - 1) for i in range(len(last))]
    for_the_scenes(trace, tmp_path, monkeypatch)
    line = next(line for line in run(RNNDilution).spoken if "each earlier word" in line)
    assert "falls" not in line and f"{kept:.2f}, then {kept:.2f}" in line


def last_step(scene) -> str:
    """The line of a chapter's last step: the one before its recap."""
    assert scene.spoken[-1] == scene.say(f"{scene.chapter_key}.recap")
    return scene.spoken[-2]


@pytest.mark.slow
def test_chapter_5_in_english_says_the_subject_came_in_words_before_the_verb(english_sentence):
    weight = english_sentence["attention"]["weights"][4][1]  # catch → cat
    said = STRINGS["en"]["ch05.focus_earlier"].format(key="cat", query="catch", back=3, weight=f"{weight:.2f}")
    assert last_step(run(MultiCopyInference)) == said


@pytest.mark.slow
def test_chapter_5_names_the_subject_too_where_the_largest_weight_goes_elsewhere(tmp_path, monkeypatch):
    # as an English model can ("catch" weighing "likes" above "fox"), with the subject in the middle of a
    # long sentence, where it must keep its copy out of the "⋯"
    sentence = (
        "the cat today daily mornings nightly also always constantly often frequently outside likes to catch mice"
    )
    trace = copy.deepcopy(traced(sentence, tmp_path, monkeypatch, "en"))
    row, subject, likes = trace["attention"]["weights"][14], 6, 12
    row[1], row[likes] = row[likes], row[1]  # "likes" now has the largest weight
    trace["rnn"]["followed_index"] = subject
    for_the_scenes(trace, tmp_path, monkeypatch)
    scene = run(MultiCopyInference)
    said = STRINGS["en"]["ch05.focus_subject"].format(
        key="likes",
        weight=f"{row[likes]:.2f}",
        subject="also",
        back=8,
        query="catch",
        subject_weight=f"{row[subject]:.2f}",
    )
    assert last_step(scene) == said
    assert subject in scene.positions and scene.numbers_on_screen[f"weight {subject}"] == row[subject]


@pytest.mark.slow
def test_chapter_5_says_the_first_word_came_in_first(scene_trace, default_trace):
    weight = default_trace["attention"]["weights"][2][0]  # 抓 → 猫
    assert last_step(run(MultiCopyInference)) == STRINGS["zh"]["ch05.focus"].format(key="猫", weight=f"{weight:.2f}")


def test_chapter_3_in_english_says_the_rnn_falls(english_sentence):
    falls = STRINGS["en"]["ch03.accuracy"].split("(")[0]
    assert any(line.startswith(falls) for line in run(RNNDilution).spoken)


def test_chapter_3_does_not_say_the_rnn_falls_where_its_accuracy_was_measured_flat(
    default_trace, tmp_path, monkeypatch
):
    trace = copy.deepcopy(default_trace)
    for row in trace["accuracy_by_distance"]:  # an RNN that, like an untrained one, is as good far as near
        row["rnn"] = 0.16
    for_the_scenes(trace, tmp_path, monkeypatch)
    spoken = run(RNNDilution).spoken
    flat, falls = STRINGS["zh"]["ch03.accuracy_flat"].split("（")[0], STRINGS["zh"]["ch03.accuracy"].split("（")[0]
    assert any(line.startswith(flat) for line in spoken) and not any(line.startswith(falls) for line in spoken)


@pytest.mark.parametrize(
    "near, far, falls",
    [
        (1.0, 0.958, True),  # 0.042 down: nearly five standard errors of 500 sentences (the English RNN)
        (0.9, 0.5, True),
        (0.50, 0.47, False),  # within three standard errors: the luck of the sentences drawn
        (1.0, 1.0, False),  # as good far as near
        (0.16, 0.16, False),  # never learned the object
    ],
)
def test_chapter_3_calls_a_fall_only_what_sampling_cannot_explain(near, far, falls):
    rows = [{"distance": 0, "rnn": near, "sentences": 500}, {"distance": 10, "rnn": far, "sentences": 500}]
    assert rnn_falls(rows) == falls


def test_chapter_3_does_not_say_an_rnn_as_good_far_as_near_misses_anything(default_trace, tmp_path, monkeypatch):
    trace = copy.deepcopy(default_trace)
    for row in trace["accuracy_by_distance"]:
        row["rnn"] = 1.0
    for_the_scenes(trace, tmp_path, monkeypatch)
    said = STRINGS["zh"]["ch03.accuracy_flat"].format(near="1.00", far="1.00", flat="1.00")
    assert said in run(RNNDilution).spoken and "猜错" not in said


def test_chapter_3_in_chinese_says_the_rnn_falls(scene_trace, default_trace):
    from scenes.strings import STRINGS

    rows = default_trace["accuracy_by_distance"]
    assert rows[0]["rnn"] - rows[-1]["rnn"] > 0.05
    falls = STRINGS["zh"]["ch03.accuracy"].split("（")[0]
    assert any(line.startswith(falls) for line in run(RNNDilution).spoken)


@pytest.fixture
def long_sentence(tmp_path, monkeypatch):
    """The story's longest sentence: ten fillers between subject and verb, 14 words."""
    return traced("猫今天每天早上晚上也总是一直常常经常在院子里喜欢抓老鼠", tmp_path, monkeypatch)


def on_screen(mobject) -> bool:

    return (
        mobject.get_left()[0] >= -config.frame_width / 2
        and mobject.get_right()[0] <= config.frame_width / 2
        and mobject.get_bottom()[1] >= -config.frame_height / 2
        and mobject.get_top()[1] <= config.frame_height / 2
    )


def side_by_side(mobjects) -> bool:
    """Left to right without touching."""
    ordered = sorted(mobjects, key=lambda m: m.get_left()[0])
    return all(a.get_right()[0] < b.get_left()[0] for a, b in zip(ordered, ordered[1:]))


def test_chapter_3_follows_the_subjects_share_to_a_long_sentences_last_word(long_sentence):
    scene = run(RNNDilution)
    shown, influence, T = scene.numbers_on_screen, long_sentence["rnn"]["influence"], len(long_sentence["tokens"])
    steps = [t for t in range(T) if f"share {t}" in shown]
    assert steps[0] == 0 and steps[-1] == T - 1 and len(steps) < T and len(scene.skipped) == 1
    assert [shown[f"share {t}"] for t in steps] == [influence[t][0] for t in steps]  # 猫's share at each step
    assert side_by_side([*scene.bars, *scene.skipped]) and all(on_screen(bar) for bar in scene.bars)


@pytest.mark.slow
def test_chapter_5_draws_a_long_sentences_middle_words_as_one_slot_with_their_weights_added(long_sentence):
    scene = run(MultiCopyInference)
    shown, row = scene.numbers_on_screen, long_sentence["attention"]["weights"][scene.query]
    drawn, gaps = scene.positions, scene.gap_words
    assert sorted([*drawn, *(j for words in gaps for j in words)]) == list(range(scene.query + 1))  # every word once
    assert len(drawn) + len(gaps) <= 8 and gaps
    assert {0, scene.key, scene.query} <= set(drawn)
    assert [shown[f"weight {j}"] for j in drawn] == [row[j] for j in drawn]
    sums = [shown[f"weight {words.start}-{words.stop - 1}"] for words in gaps]
    assert sums == [sum(row[j] for j in words) for words in gaps]
    assert math.isclose(sum(shown[f"weight {j}"] for j in drawn) + sum(sums), 1.0, abs_tol=1e-5)
    assert side_by_side([*scene.copies, *scene.gaps]) and all(on_screen(m) for m in [*scene.copies, *scene.gaps])


@pytest.mark.slow
def test_chapter_5_fits_long_words_under_their_copies(long_sentence, tmp_path, monkeypatch):
    trace = copy.deepcopy(long_sentence)  # a user's corpus may have words far wider than a copy
    trace["tokens"] = ["extraordinarily" if len(word) == 2 else word for word in trace["tokens"]]
    for_the_scenes(trace, tmp_path, monkeypatch)
    scene = run(MultiCopyInference)
    assert any(c.word.text == "extraordinarily" for c in scene.copies)
    assert side_by_side([*scene.copies, *scene.gaps])


@pytest.mark.slow
def test_a_two_word_sentence_is_not_said_to_choose_among_words(tmp_path, monkeypatch):
    trace = traced("猫喜欢", tmp_path, monkeypatch)  # 喜欢 is predicted from 猫 alone
    history = trace["training"]["history"]
    assert last_step(run(MultiCopyInference)) == STRINGS["zh"]["ch05.alone"].format(key="猫", weight="1.00")
    chapter_6 = run(Training)
    start, end = (f"{row['target_probability']:.3f}" for row in (history[0], history[-1]))
    said = STRINGS["zh"]["ch06.alone"].format(query="猫", target="喜欢", start_p=start, p=end)
    assert said in chapter_6.spoken
    assert not any(name.startswith("score") for name in chapter_6.numbers_on_screen)  # no Q·K race of one


@pytest.mark.slow
def test_chapter_6_says_a_target_the_corpus_does_not_teach_falls(tmp_path, monkeypatch):
    trace = traced("猫喜欢抓飞盘", tmp_path, monkeypatch)  # in the corpus the cat catches mice
    history = trace["training"]["history"]
    assert history[-1]["target_probability"] < history[0]["target_probability"]
    learned, learned_p = trace["attention"]["predictions"][2][0]
    spoken = run(Training).spoken
    line = next(line for line in spoken if "「飞盘」的概率" in line)
    assert "降到" in line and f"「{learned}」（{learned_p:.3f}）" in line and learned == "老鼠"
    assert not any("跟着升到" in line for line in spoken)


@pytest.mark.slow
def test_chapter_6_says_a_word_that_weighs_itself_most_needs_its_own_information(default_trace, tmp_path, monkeypatch):
    trace = copy.deepcopy(default_trace)  # as for "the teacher often reads books" on a user corpus: reads → reads
    trace["training"]["key_index"] = trace["training"]["query_index"]
    for_the_scenes(trace, tmp_path, monkeypatch)
    spoken = run(Training).spoken
    line = next(line for line in spoken if "的概率跟着升到" in line)
    assert "「抓」最需要的是它自己的信息" in line and "「抓」需要「抓」" not in line


@pytest.mark.slow
def test_chapter_6_says_only_the_subject_is_needed(english_sentence, tmp_path, monkeypatch):
    trace = copy.deepcopy(english_sentence)  # as if "catch" weighed "likes" most
    trace["training"]["key_index"] = 2
    for_the_scenes(trace, tmp_path, monkeypatch)
    history = trace["training"]["history"]
    said = STRINGS["en"]["ch06.rises"].format(
        query="catch",
        key="likes",
        target="mice",
        start=f"{history[0]['key_weight']:.2f}",
        end=f"{history[-1]['key_weight']:.3f}",
        p=f"{history[-1]['target_probability']:.3f}",
    )
    spoken = run(Training).spoken
    assert said in spoken and not any("needs" in line for line in spoken)


@pytest.mark.parametrize("sentence, lang", [("猫喜欢抓老鼠", "zh"), ("the cat likes to catch mice", "en")])
@pytest.mark.slow
def test_chapter_6_sends_the_difference_back_into_the_output_layer_past_the_predictions(
    sentence, lang, tmp_path, monkeypatch
):
    traced(sentence, tmp_path, monkeypatch, lang)  # the target is not among the untrained top 5: no row is "it"
    scene = run(Training)
    arrow, output, rows = scene.difference, scene.layers[-1], scene.guesses

    def inside(point, mobject, margin=0.0):
        return all(mobject.get_corner(DL)[i] - margin <= point[i] <= mobject.get_corner(UR)[i] + margin for i in (0, 1))

    assert inside(arrow.get_end(), output, margin=0.35)
    assert not any(inside(arrow.point_from_proportion(t / 50), rows) for t in range(51))


@pytest.mark.parametrize(
    "sentence, lang",
    [
        ("猫喜欢", "zh"),
        ("猫喜欢抓老鼠", "zh"),
        ("狐狸每天早上偷偷喜欢抓鸡", "zh"),
        (
            "the fox today daily mornings nightly also always constantly often frequently outside likes to catch "
            "chickens",
            "en",
        ),
    ],
)
@pytest.mark.slow
def test_chapter_5_ends_on_the_query_linked_to_the_largest_weight_key_the_sum_and_the_prediction(
    sentence, lang, tmp_path, monkeypatch
):
    ends_on_who_asked_what_was_weighed_and_what_came_out(traced(sentence, tmp_path, monkeypatch, lang))


def ends_on_who_asked_what_was_weighed_and_what_came_out(trace: dict) -> None:
    """Chapter 5's last picture (its key frame): the current word's Query linked to the largest-weight
    Key, that weight and its bar, the sum and the prediction; every row named level with it at the
    copies' left; the words the last line names in view; nothing cut in half; centred under the title."""
    scene = run(MultiCopyInference)
    view, on_stage = scene.camera.frame, scene.get_mobject_family_members()
    for m in scene.mobjects:  # what faded out has left the scene
        assert wholly_inside(m, view), m
    asking, asked = scene.gathered[scene.query], scene.gathered[scene.key]
    assert asking.query_nodes in on_stage and asked.key_nodes in on_stage
    link = scene.link_to_key
    assert link in on_stage
    assert np.allclose(link.get_start(), asking.query_nodes.get_top()) and np.allclose(
        link.get_end(), asked.key_nodes.get_bottom()
    )
    row, tokens = trace["attention"]["weights"][scene.query], trace["tokens"]
    weight, weight_bar = (group[scene.positions.index(scene.key)] for group in (scene.weights, scene.bars))
    assert weight in on_stage and weight_bar in on_stage and weight.text == f"{row[scene.key]:.3f}"
    word, p = trace["attention"]["predictions"][scene.query][0]
    assert scene.total in on_stage and [text.text for text in scene.guess] == [word, f"{p:.4f}"]
    assert all(part in on_stage for part in scene.guess)
    named = [j for j in (scene.key, scene.query, scene.subject) if j is not None]
    assert all(scene.gathered[j].word in on_stage and scene.gathered[j].word.text == tokens[j] for j in named)
    copies = [scene.gathered[j] for j in named]
    rows = [asked.input_nodes, asking.query_nodes, asked.key_nodes, asked.value_nodes]
    for name, drawn_row in zip([*scene.tags, scene.weight_tag], [*rows, weight]):
        assert name in on_stage and abs(name.get_y() - drawn_row.get_y()) < 0.05
        assert name.get_right()[0] < min(copy.get_left()[0] for copy in copies)
    kept = Group(*(m for m in scene.mobjects if m not in (view, scene.title)))  # as much room left as right
    assert kept.get_left()[0] - view.get_left()[0] == pytest.approx(view.get_right()[0] - kept.get_right()[0], abs=0.01)
    assert scene.title.get_bottom()[1] > kept.get_top()[1]  # above what it kept


def wholly_inside(mobject, view) -> bool:
    """Whether ``mobject`` lies wholly inside ``view`` (not cut by its edges)."""
    return (
        view.get_left()[0] <= mobject.get_left()[0]
        and mobject.get_right()[0] <= view.get_right()[0]
        and view.get_bottom()[1] <= mobject.get_bottom()[1]
        and mobject.get_top()[1] <= view.get_top()[1]
    )


@pytest.mark.slow
def test_chapter_8_numbers_every_attention_word_step_1_as_it_numbers_the_rnn_s_steps(scene_trace, default_trace):
    scene = run(TransformerContributions)
    steps = list(scene.together)
    assert len(steps) == len(scene.attention) == len(default_trace["tokens"])
    assert all(step.text == "1" for step in steps)
    assert all(
        abs(step.get_x() - word[0].get_x()) < 1e-6 and step.get_y() > word[0].get_top()[1]
        for step, word in zip(steps, scene.attention)
    )


@pytest.mark.parametrize("word, lang", [("抓", "zh"), ("catch", "en"), ("extraordinarily", "en")])
def test_chapter_1_hangs_the_input_vector_under_the_word_s_id_and_feeds_its_numbers_to_the_input_nodes(
    default_trace, tmp_path, monkeypatch, word, lang
):
    from scenes.theme import SMALL

    trace = copy.deepcopy(default_trace)
    trace["tokens"][2], trace["lang"] = word, lang  # the word chapter 1 follows, and the language it is told in
    for_the_scenes(trace, tmp_path, monkeypatch)
    scene = run(NetworkBasics)
    title = next(m for m in scene.mobjects if isinstance(m, Text) and m.text.startswith(("第一章", "Chapter")))
    assert scene.word_box.get_left()[0] >= title.get_left()[0] - 1e-6  # no nearer the frame's edge than the title
    assert scene.token.font_size >= SMALL - 1e-6 and side_by_side([scene.word_box, scene.id_number])
    low, high = corners(scene.word_box)
    assert (low <= corners(scene.token)[0]).all() and (corners(scene.token)[1] <= high).all()  # the word in its box
    assert scene.vector.get_top()[1] < scene.id_number.get_bottom()[1]  # hanging under the id
    assert side_by_side([scene.word_tag, scene.vector, scene.inputs])
    assert all(abs(node.get_y() - scene.vector.entry(i).get_y()) < 1e-6 for i, node in enumerate(scene.inputs.nodes))
    assert all(on_screen(m) for m in [scene.word_box, scene.id_box, scene.vector, scene.inputs])


@pytest.mark.parametrize("winner", ["老鼠", "extraordinarily"])
def test_chapter_1_brings_the_winning_word_out_of_its_row_as_text_in_a_box(
    default_trace, tmp_path, monkeypatch, winner
):
    from scenes.base import RIGHT_MARGIN

    trace = copy.deepcopy(default_trace)
    top = trace["attention"]["predictions"][2]  # the word chapter 1 follows
    top[0][0] = winner
    for_the_scenes(trace, tmp_path, monkeypatch)
    scene = run(NetworkBasics)
    assert scene.prediction.text == winner == scene.bars[0][0].text
    low, high = corners(scene.prediction_box)
    assert (low <= corners(scene.prediction)[0]).all() and (corners(scene.prediction)[1] <= high).all()
    assert scene.prediction.font_size == pytest.approx(scene.token.font_size)  # as the input word was written
    assert high[0] <= RIGHT_MARGIN + 1e-6


@pytest.mark.slow
def test_chapter_6_keeps_a_long_sentences_words_and_updates_on_screen(long_sentence):
    scene = run(Training)
    shown, training = scene.numbers_on_screen, long_sentence["training"]
    updates = training["copy_updates"]
    drawn = [c for c in range(len(updates["query"])) if f"query update {c}" in shown]
    assert 0 in drawn and training["query_index"] in drawn and len(drawn) < len(updates["query"])
    for c in drawn:
        assert shown[f"query update {c}"] == max(abs(v) for row in updates["query"][c] for v in row)
    assert [shown[f"score {j}"] for j in range(training["query_index"] + 1)] == training["history"][-1]["query_scores"]
    assert on_screen(scene.words)
    for step in scene.mobjects:  # the last step: the updates' columns
        assert on_screen(step)


def test_chapter_7_draws_a_long_sentences_rows_with_their_real_counts(long_sentence):
    scene = run(KVCache)
    shown, kv, T = scene.numbers_on_screen, long_sentence["kv_cache"], len(long_sentence["tokens"])
    drawn = [t for t in range(T) if f"without cache step {t}" in shown]
    assert drawn[0] == 0 and drawn[-1] == T - 1 and len(drawn) < T
    assert [shown[f"with cache step {t}"] for t in drawn] == [kv["steps_with_cache"][t] for t in drawn]
    assert [shown[f"without cache step {t}"] for t in drawn] == [kv["steps_without_cache"][t] for t in drawn]
    assert shown["without cache total"] == T * (T + 1) // 2 and shown["with cache total"] == T
    for row in [*scene.plain, *scene.cached]:
        assert on_screen(row) and side_by_side([*row[0], *row[2]])


@pytest.mark.parametrize("sentence", ["猫喜欢", "猫喜欢抓", "猫喜欢抓老鼠", "狐狸每天早上偷偷喜欢抓鸡"])
@pytest.mark.slow
def test_chapter_7_counts_its_totals_right_under_the_rows(sentence, tmp_path, monkeypatch):
    kv = traced(sentence, tmp_path, monkeypatch)["kv_cache"]
    scene = run(KVCache)
    texts = [m for m in scene.get_mobject_family_members() if isinstance(m, Text)]
    lowest_row = min(row.get_bottom()[1] for row in [*scene.plain, *scene.cached])
    for count in (kv["projections_without_cache"], kv["projections_with_cache"]):
        total = next(
            t
            for t in texts
            if t.text == STRINGS["zh"]["computed"].format(count=count).replace(" ", "") and t.font_size > 20
        )
        assert 0 < lowest_row - total.get_top()[1] < 0.8  # no empty band between the rows and what they add up to
        assert on_screen(total)


@pytest.mark.parametrize("sentence", ["猫喜欢抓老鼠", "猫今天每天早上晚上也总是一直常常经常在院子里喜欢抓老鼠"])
def test_chapter_7_marks_the_cache_under_its_blocks_without_touching_a_word(sentence, tmp_path, monkeypatch):
    traced(sentence, tmp_path, monkeypatch)
    scene = run(KVCache)
    mark, (copies, _, gaps) = scene.cache_mark, scene.cached[-1]
    assert mark.get_top()[1] < min(part.get_bottom()[1] for part in [*copies, *gaps])
    blocks = VGroup(*(copy[1] for copy in copies))  # each copy: its word over its Key/value blocks
    assert mark.get_left()[0] <= blocks.get_left()[0] + 1e-6 and blocks.get_right()[0] <= mark.get_right()[0] + 1e-6
    words = [m for m in scene.get_mobject_family_members() if isinstance(m, Text)]
    assert not any(overlap(*corners(word), *corners(mark)) for word in words)


def test_words_side_by_side_shrink_together_but_not_below_a_share_of_their_size():
    from scenes.mobjects import label, size_to_fit
    from scenes.mobjects.grids import SMALLEST_SHARED

    room = label("catch", 20).width
    assert size_to_fit(["the", "cat"], 20, room) == 20
    a_little = size_to_fit(["the", "catchy"], 20, room)  # "catchy" needs a little less than 20
    assert SMALLEST_SHARED * 20 < a_little < 20 and label("catchy", a_little).width == pytest.approx(room, rel=1e-3)
    assert size_to_fit(["the", "extraordinarily"], 20, room) == pytest.approx(SMALLEST_SHARED * 20)


def shorter_words_no_smaller(texts) -> bool:
    """Sizes fall only with length: a word is never smaller than a longer one beside it."""
    from scenes.mobjects import label

    by_length = sorted(texts, key=lambda text: label(text.text, 20).width)
    return all(a.font_size >= b.font_size - 1e-6 for a, b in zip(by_length, by_length[1:]))


@pytest.mark.slow
def test_a_row_of_words_with_a_long_one_reads_alike(tmp_path, monkeypatch):
    tokens = traced(
        "the fox frequently outside secretly quietly really very especially likes to catch chickens",
        tmp_path,
        monkeypatch,
        "en",
    )["tokens"]
    copies = [copy.word for copy in run(MultiCopyInference).copies]
    assert "frequently" in [t.text for t in copies] and len({round(t.font_size, 6) for t in copies}) == 1
    words = [step.word for step in run(RNNDilution).steps.values()]  # under each copy of the RNN
    assert "frequently" in [t.text for t in words]
    assert shorter_words_no_smaller(words) and side_by_side(words)
    final = run(Training).mobjects  # the last step: a column per copy, its word over its updates
    column_words = [m for m in final for m in m.get_family() if isinstance(m, Text) and m.text in {*tokens, "average"}]
    assert {"frequently", "average"} <= {text.text for text in column_words}
    assert shorter_words_no_smaller(column_words) and side_by_side(column_words)


@pytest.mark.slow
def test_chapter_7_writes_the_words_of_a_long_english_sentence_apart(tmp_path, monkeypatch):
    tokens = traced(
        "the fox today daily mornings nightly also always constantly often frequently outside likes to catch chickens",
        tmp_path,
        monkeypatch,
        "en",
    )["tokens"]
    scene = run(KVCache)
    _, pitch = scene.pitch()
    for row in [*scene.plain, *scene.cached]:
        words = [copy[0] for copy in row[0]]
        assert shorter_words_no_smaller(words)
        assert all(b.get_left()[0] - a.get_right()[0] > 0.1 * pitch for a, b in zip(words, words[1:]))
    # at the smallest type a row holds five words: the first ones, the latest and its neighbour
    assert {copy[0].text for row in scene.plain for copy in row[0]} >= {"today", tokens[-2], tokens[-1]}


@pytest.mark.slow
def test_chapter_7_sizes_its_words_by_the_words_it_draws(tmp_path, monkeypatch):
    def word_size(name: str, sentence: str) -> float:
        (tmp_path / name).mkdir()  # a Trace file of its own: the scenes cache one by path
        traced(sentence, tmp_path / name, monkeypatch, "en")
        return run(KVCache).word_size

    long_words_elided = word_size(
        "a", "the cat also to constantly especially frequently often also to likes to catch mice"
    )
    assert long_words_elided == word_size("b", "the cat also to also to also to also to likes to catch mice")


@pytest.mark.slow
def test_chapter_8_writes_a_long_sentences_matrices_with_the_middle_words_elided(long_sentence):
    scene = run(TransformerContributions)
    shown, attention = scene.numbers_on_screen, long_sentence["attention"]
    T, d_k = len(long_sentence["tokens"]), attention["config"]["d_k"]
    rows = [i for i in range(T) if f"Q {i} 0" in shown]
    assert rows[0] == 0 and rows[-1] == T - 1 and scene.query in rows and len(rows) < T
    assert [j for j in range(T) if f"K^T 0 {j}" in shown] == rows
    for i in rows:
        query = [shown[f"Q {i} {m}"] for m in range(d_k)]
        assert query == attention["queries"][i]
        for j in (j for j in rows if j <= i):  # each score written is the written Q row · Kᵀ column / √d_k
            key = [shown[f"K^T {m} {j}"] for m in range(d_k)]
            assert math.isclose(
                shown[f"score {i} {j}"], sum(a * b for a, b in zip(query, key)) / math.sqrt(d_k), abs_tol=1e-4
            )
            assert shown[f"weight {i} {j}"] == attention["weights"][i][j]
        assert [shown[f"out {i} {m}"] for m in range(d_k)] == attention["mixed"][i]
    assert all(on_screen(m) for m in scene.mobjects)


@pytest.mark.slow
def test_chapter_10_writes_only_each_rows_largest_weight_in_a_long_sentences_grids(long_sentence):
    scene = run(MultiHead)
    shown, multi = scene.numbers_on_screen, long_sentence["multi_head"]
    for h, weights in enumerate(multi["weights"]):
        for i, row in enumerate(weights):
            written = [j for j in range(len(row)) if f"head {h} {i} {j}" in shown]
            assert written == [max(range(i + 1), key=row.__getitem__)]
            assert shown[f"head {h} {i} {written[0]}"] == row[written[0]]
    for grid in scene.grids:
        assert on_screen(grid) and side_by_side(grid.column_labels)
        labels = sorted(grid.row_labels, key=lambda m: -m.get_top()[1])
        assert all(a.get_bottom()[1] > b.get_top()[1] for a, b in zip(labels, labels[1:]))


@pytest.mark.slow
def test_chapter_11_keeps_a_long_sentences_grids_legible_and_on_screen(long_sentence):
    scene = run(EncoderDecoder)
    pair, shown = long_sentence["encoder_decoder"], scene.numbers_on_screen
    source, target = pair["source_tokens"], pair["target_tokens"]
    assert len(target) >= 16
    # Cells too small for every number keep each row's largest one, and it is the Trace's.
    for i, row in enumerate(pair["cross_weights"]):
        written = [j for j in range(len(source)) if f"cross {i} {j}" in shown]
        assert written == [max(range(len(row)), key=row.__getitem__)]
        assert shown[f"cross {i} {written[0]}"] == row[written[0]]
    for grid in (scene.encoder_grid, scene.decoder_grid, scene.cross):
        assert side_by_side(grid.column_labels)
        for cell in (c for row in grid.rows for c in row if len(c.submobjects) == 2):
            square, number = cell
            assert number.width < square.width and number.height < square.height
        assert on_screen(grid)


@pytest.mark.parametrize(
    "words, lang, sentence",
    [
        (["the", "cat", ",", "the", "dog", "…"], "en", "the cat, the dog…"),
        (["“", "hello", "”", "said", "the", "cat"], "en", "“ hello” said the cat"),
        (["今天", "，", "老师", "又", "想", "喝"], "zh", "今天，老师又想喝"),
    ],
)
def test_narration_writes_the_sentence_s_words_as_a_sentence(words, lang, sentence):
    """A corpus's commas are words; the narration puts no space before them."""
    assert written_sentence(words, lang) == sentence

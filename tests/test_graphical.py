"""Key frames of chapters 1–11 (two in the light theme, one in English) against committed control frames
(tests/control_data).

Regenerate after a deliberate visual change: ./render.sh test tests/test_graphical.py --set_test
"""

import pytest
from manim import MovingCamera
from manim.renderer.cairo_renderer import CairoRenderer
from manim.utils.testing.frames_comparison import frames_comparison

from scenes.ch01_network_basics import NetworkBasics
from scenes.ch02_scale_problem import ScaleProblem
from scenes.ch03_rnn_dilution import RNNDilution
from scenes.ch04_attention_nodes import AttentionNodes
from scenes.ch05_multi_copy import MultiCopyInference
from scenes.ch06_training import Training
from scenes.ch07_kv_cache import KVCache
from scenes.ch08_transformer import TransformerContributions
from scenes.ch09_sqrt_dk import SqrtDk
from scenes.ch10_multi_head import MultiHead
from scenes.ch11_encoder_decoder import EncoderDecoder

pytestmark = pytest.mark.slow  # renders: the full suite runs them, ./render.sh test --fast does not

__module_test__ = "chapters"

# What differs from machine to machine is pinned to the figures of the machine the control frames were
# drawn on, so that only the drawing is compared: its memory (chapter 2's line; 24 GiB machines differ in
# the last megabytes the kernel keeps) and how far cached and recomputed logits differ, which is float
# rounding (chapter 7; 1.4e-14 there, 7.1e-15 on an AMD EPYC). test_scenes checks that the chapters show
# the trace's own figures.
CONTROL_MACHINE = {"memory_bytes": 25_276_071_936, "bytes_per_parameter": 4, "parameters_that_fit": 6_319_017_984}
CONTROL_KV_DIFFERENCE = 1.4e-14


@pytest.fixture(scope="module")
def control_trace_file(default_trace, tmp_path_factory):
    """The default trace with the control machine's figures."""
    from model.trace_schema import content_hash, save_trace

    trace = {
        **default_trace,
        "hardware": CONTROL_MACHINE,
        "kv_cache": {**default_trace["kv_cache"], "max_abs_diff": CONTROL_KV_DIFFERENCE},
    }
    path = tmp_path_factory.mktemp("control") / "trace.json"
    save_trace({**trace, "hash": content_hash(trace)}, path)
    return path


@pytest.fixture(autouse=True)
def control_trace(control_trace_file, monkeypatch):
    monkeypatch.setenv("ATTENTION_TRACE", str(control_trace_file))


class MovingCameraRenderer(CairoRenderer):
    """The chapters zoom with a MovingCamera; the test renderer must give them one."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, camera_class=MovingCamera, **kwargs)


@frames_comparison(base_scene=AttentionNodes, renderer_class=MovingCameraRenderer)
def test_ch04_query_and_key_multiplied_into_a_score(scene):
    scene.show_network()
    scene.flow_into_groups()
    scene.multiply_query_key()


@frames_comparison(base_scene=AttentionNodes, renderer_class=MovingCameraRenderer)
def test_ch04_prediction(scene):
    AttentionNodes.construct(scene)


@frames_comparison(base_scene=MultiCopyInference, renderer_class=MovingCameraRenderer)
def test_ch05_weights_after_softmax(scene):
    scene.show_copies()
    scene.compute_keys()
    scene.query_meets_keys()
    scene.softmax_weights()


@frames_comparison(base_scene=MultiCopyInference, renderer_class=MovingCameraRenderer)
def test_ch05_sum_and_prediction(scene):
    scene.show_copies()
    scene.compute_keys()
    scene.query_meets_keys()
    scene.softmax_weights()
    scene.scale_values()
    scene.add_values()
    scene.predict()


@frames_comparison(base_scene=ScaleProblem, renderer_class=MovingCameraRenderer)
def test_ch02_the_square_of_connections_for_eight_words(scene):
    scene.show_small_network()
    scene.grow_input()


@frames_comparison(base_scene=ScaleProblem, renderer_class=MovingCameraRenderer)
def test_ch02_growth_past_the_memory_and_the_flat_attention_line(scene):
    ScaleProblem.construct(scene)


@frames_comparison(base_scene=NetworkBasics, renderer_class=MovingCameraRenderer)
def test_ch01_word_to_number_to_input_layer(scene):
    scene.show_word_as_number()
    scene.look_up_inputs()


@frames_comparison(base_scene=NetworkBasics, renderer_class=MovingCameraRenderer)
def test_ch01_probabilities_back_to_a_word(scene):
    NetworkBasics.construct(scene)


@frames_comparison(base_scene=RNNDilution, renderer_class=MovingCameraRenderer)
def test_ch03_the_first_words_share_shrinking(scene):
    scene.show_title()
    scene.read_the_first_word()
    scene.hand_the_state_on()
    scene.count_the_state()
    scene.shrink_the_followed_word()


@frames_comparison(base_scene=RNNDilution, renderer_class=MovingCameraRenderer)
def test_ch03_accuracy_against_distance(scene):
    RNNDilution.construct(scene)


@frames_comparison(base_scene=Training, renderer_class=MovingCameraRenderer)
def test_ch06_loss_weight_and_probability_through_training(scene):
    scene.show_both_ends()
    scene.compare_with_target()
    scene.send_back()
    scene.show_history()


@frames_comparison(base_scene=Training, renderer_class=MovingCameraRenderer)
def test_ch06_copies_updates_averaged(scene):
    Training.construct(scene)


@frames_comparison(base_scene=KVCache, renderer_class=MovingCameraRenderer)
def test_ch07_recomputed_words_counted(scene):
    scene.recompute_everything()
    scene.count_the_waste()


@frames_comparison(base_scene=KVCache, renderer_class=MovingCameraRenderer)
def test_ch07_cache_same_result_and_memory(scene):
    KVCache.construct(scene)


@frames_comparison(base_scene=TransformerContributions, renderer_class=MovingCameraRenderer)
def test_ch08_direct_links(scene):
    scene.process_in_parallel()
    scene.link_directly()


@frames_comparison(base_scene=TransformerContributions, renderer_class=MovingCameraRenderer)
def test_ch08_formula_from_the_real_matrices(scene):
    TransformerContributions.construct(scene)


@frames_comparison(base_scene=SqrtDk, renderer_class=MovingCameraRenderer)
def test_ch09_variance_against_d_k(scene):
    scene.variance_grows()
    scene.scaled_variance_stays()


@frames_comparison(base_scene=SqrtDk, renderer_class=MovingCameraRenderer)
def test_ch09_saturation_and_gradients(scene):
    SqrtDk.construct(scene)


@frames_comparison(base_scene=MultiHead, renderer_class=MovingCameraRenderer)
def test_ch10_heads_and_their_behaviour(scene):
    scene.one_head()
    scene.heads_side_by_side()
    scene.label_behaviours()


@frames_comparison(base_scene=MultiHead, renderer_class=MovingCameraRenderer)
def test_ch10_outputs_concatenated_and_projected(scene):
    MultiHead.construct(scene)


@frames_comparison(base_scene=EncoderDecoder, renderer_class=MovingCameraRenderer)
def test_ch11_the_architecture(scene):
    scene.build_encoder()
    scene.build_decoder()


@frames_comparison(base_scene=EncoderDecoder, renderer_class=MovingCameraRenderer)
def test_ch11_cross_attention(scene):
    EncoderDecoder.construct(scene)


@pytest.fixture
def light_theme(monkeypatch):
    monkeypatch.setenv("ATTENTION_THEME", "light")


@pytest.mark.usefixtures("light_theme")
@frames_comparison(base_scene=AttentionNodes, renderer_class=MovingCameraRenderer)
def test_light_ch04_prediction(scene):
    AttentionNodes.construct(scene)


@pytest.mark.usefixtures("light_theme")
@frames_comparison(base_scene=EncoderDecoder, renderer_class=MovingCameraRenderer)
def test_light_ch11_cross_attention(scene):
    EncoderDecoder.construct(scene)


@pytest.fixture
def english_trace(control_trace, tmp_path, monkeypatch):
    from model.trace import build_trace
    from model.trace_schema import save_trace

    save_trace(build_trace("the cat likes to catch mice", "en"), tmp_path / "trace.json")
    monkeypatch.setenv("ATTENTION_TRACE", str(tmp_path / "trace.json"))


@pytest.mark.usefixtures("english_trace")
@frames_comparison(base_scene=RNNDilution, renderer_class=MovingCameraRenderer)
def test_english_ch03_the_unrolled_rnn(scene):
    scene.show_title()
    scene.read_the_first_word()
    scene.hand_the_state_on()
    scene.count_the_state()

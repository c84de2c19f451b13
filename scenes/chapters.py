"""The chapters that exist, in order: what the pipeline renders and `./render.sh list` prints."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Chapter:
    number: int
    slug: str  # file name stem of its outputs, e.g. 04-attention-nodes
    module: str  # file under scenes/
    scene: str  # Manim Scene class
    title_key: str  # key of its title in scenes/strings.py

    @property
    def path(self) -> Path:
        return Path(__file__).resolve().parent / f"{self.module}.py"


CHAPTERS = (
    Chapter(1, "01-network-basics", "ch01_network_basics", "NetworkBasics", "ch01.title"),
    Chapter(2, "02-scale-problem", "ch02_scale_problem", "ScaleProblem", "ch02.title"),
    Chapter(3, "03-rnn-dilution", "ch03_rnn_dilution", "RNNDilution", "ch03.title"),
    Chapter(4, "04-attention-nodes", "ch04_attention_nodes", "AttentionNodes", "ch04.title"),
    Chapter(5, "05-multi-copy-inference", "ch05_multi_copy", "MultiCopyInference", "ch05.title"),
    Chapter(6, "06-training", "ch06_training", "Training", "ch06.title"),
    Chapter(7, "07-kv-cache", "ch07_kv_cache", "KVCache", "ch07.title"),
    Chapter(8, "08-transformer", "ch08_transformer", "TransformerContributions", "ch08.title"),
    Chapter(9, "09-sqrt-dk", "ch09_sqrt_dk", "SqrtDk", "ch09.title"),
    Chapter(10, "10-multi-head", "ch10_multi_head", "MultiHead", "ch10.title"),
    Chapter(11, "11-encoder-decoder", "ch11_encoder_decoder", "EncoderDecoder", "ch11.title"),
)
BY_NUMBER = {chapter.number: chapter for chapter in CHAPTERS}

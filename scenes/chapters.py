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
    max_words: int | None = None  # longest sentence the chapter can lay out, if it has a limit

    @property
    def path(self) -> Path:
        return Path(__file__).resolve().parent / f"{self.module}.py"


CHAPTERS = (
    Chapter(1, "01-network-basics", "ch01_network_basics", "NetworkBasics", "ch01.title"),
    Chapter(2, "02-scale-problem", "ch02_scale_problem", "ScaleProblem", "ch02.title"),
    Chapter(3, "03-rnn-dilution", "ch03_rnn_dilution", "RNNDilution", "ch03.title"),
    Chapter(4, "04-attention-nodes", "ch04_attention_nodes", "AttentionNodes", "ch04.title"),
    # One network copy per word up to the word before the last, at most 8 side by side.
    Chapter(5, "05-multi-copy-inference", "ch05_multi_copy", "MultiCopyInference", "ch05.title", max_words=9),
    # One column of updates per copy, as many copies as chapter 5 draws.
    Chapter(6, "06-training", "ch06_training", "Training", "ch06.title", max_words=9),
    # A row per generated word, a network copy per earlier word in each row.
    Chapter(7, "07-kv-cache", "ch07_kv_cache", "KVCache", "ch07.title", max_words=9),
    # The sentence's matrices written out, a row per word.
    Chapter(8, "08-transformer", "ch08_transformer", "TransformerContributions", "ch08.title", max_words=9),
    Chapter(9, "09-sqrt-dk", "ch09_sqrt_dk", "SqrtDk", "ch09.title"),
    # Each head's weights as a grid, a row and a column per word.
    Chapter(10, "10-multi-head", "ch10_multi_head", "MultiHead", "ch10.title", max_words=9),
    Chapter(11, "11-encoder-decoder", "ch11_encoder_decoder", "EncoderDecoder", "ch11.title"),
)
BY_NUMBER = {chapter.number: chapter for chapter in CHAPTERS}


def too_long_for(chapters, tokens: list[str]) -> str | None:
    """Why the sentence cannot be drawn by some of the chapters, and which ones can draw it; or None."""
    refusing = [c for c in chapters if c.max_words is not None and len(tokens) > c.max_words]
    if not refusing:
        return None
    limit = min(c.max_words for c in refusing)
    drawable = ",".join(str(c.number) for c in chapters if c not in refusing)
    who = (f"chapter {refusing[0].number} lays" if len(refusing) == 1
           else f"chapters {', '.join(str(c.number) for c in refusing)} lay")
    way_out = f", or leave {'it' if len(refusing) == 1 else 'them'} out with --chapters {drawable}" if drawable else ""
    return f"{who} out at most {limit} words and the sentence has {len(tokens)}: shorten it{way_out}"

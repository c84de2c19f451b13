"""A tiny encoder–decoder that translates the Chinese story into English.

Encoder: self-attention + feed-forward. Decoder: masked self-attention, encoder–decoder (cross)
attention, feed-forward. One head each, attention written out so every weight can be drawn.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import torch
from torch import nn
from torch.nn import functional as F

START, END = "<s>", "</s>"
PAD = "<pad>"  # source word 0: fills short sentences in a batch, never attended to


@dataclass
class TranslatorConfig:
    source_vocab_size: int
    target_vocab_size: int  # includes START and END
    context: int = 24  # longest source or target sentence, in words (END included)
    d_model: int = 32  # nodes per word in every layer
    d_hidden: int = 64  # feed-forward nodes

    def to_dict(self) -> dict:
        return asdict(self)


class AttentionBlock(nn.Module):
    """One head of explicit attention with a residual connection."""

    def __init__(self, d_model: int):
        super().__init__()
        self.norm = nn.LayerNorm(d_model)
        self.query = nn.Linear(d_model, d_model)
        self.key = nn.Linear(d_model, d_model)
        self.value = nn.Linear(d_model, d_model)
        self.out = nn.Linear(d_model, d_model)

    def forward(self, x: torch.Tensor, memory: torch.Tensor | None, causal: bool, padding: torch.Tensor | None = None):
        """padding (B, S): True where a key is padding and must get no weight."""
        h = self.norm(x)
        source = h if memory is None else memory
        q, k, v = self.query(h), self.key(source), self.value(source)  # (B, T, d), (B, S, d), (B, S, d)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (B, T, S)
        if causal:
            T = scores.shape[-1]
            scores = scores.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), float("-inf"))
        if padding is not None:
            scores = scores.masked_fill(padding[:, None, :], float("-inf"))
        weights = F.softmax(scores, dim=-1)  # (B, T, S)
        return x + self.out(weights @ v), weights


class FeedForward(nn.Module):
    def __init__(self, d_model: int, d_hidden: int):
        super().__init__()
        self.net = nn.Sequential(
            nn.LayerNorm(d_model), nn.Linear(d_model, d_hidden), nn.ReLU(), nn.Linear(d_hidden, d_model)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.net(x)


class Translator(nn.Module):
    def __init__(self, config: TranslatorConfig):
        super().__init__()
        c = config
        self.config = c
        self.source_embedding = nn.Embedding(c.source_vocab_size, c.d_model)
        self.target_embedding = nn.Embedding(c.target_vocab_size, c.d_model)
        self.source_position = nn.Embedding(c.context, c.d_model)
        self.target_position = nn.Embedding(c.context, c.d_model)
        self.encoder_attention = AttentionBlock(c.d_model)
        self.encoder_feed_forward = FeedForward(c.d_model, c.d_hidden)
        self.decoder_attention = AttentionBlock(c.d_model)
        self.cross_attention = AttentionBlock(c.d_model)
        self.decoder_feed_forward = FeedForward(c.d_model, c.d_hidden)
        self.output = nn.Sequential(nn.LayerNorm(c.d_model), nn.Linear(c.d_model, c.target_vocab_size))

    def encode(self, source: torch.Tensor):
        positions = torch.arange(source.shape[1])
        x = self.source_embedding(source) + self.source_position(positions)  # (B, S, d)
        x, weights = self.encoder_attention(x, None, causal=False, padding=source == 0)
        return self.encoder_feed_forward(x), weights  # (B, S, d), (B, S, S)

    def decode(self, target_in: torch.Tensor, memory: torch.Tensor, padding: torch.Tensor):
        positions = torch.arange(target_in.shape[1])
        y = self.target_embedding(target_in) + self.target_position(positions)  # (B, T, d)
        y, self_weights = self.decoder_attention(y, None, causal=True)  # (B, T, T)
        y, cross_weights = self.cross_attention(y, memory, causal=False, padding=padding)  # (B, T, S)
        logits = self.output(self.decoder_feed_forward(y))  # (B, T, target vocab)
        return logits, self_weights, cross_weights

    def forward(self, source: torch.Tensor, target_in: torch.Tensor) -> torch.Tensor:
        memory, _ = self.encode(source)
        return self.decode(target_in, memory, source == 0)[0]

    @torch.no_grad()
    def translate(self, source: torch.Tensor, start_id: int, end_id: int) -> dict[str, torch.Tensor]:
        """Greedy translation of source (B, S), with the weights of the final decoding pass."""
        memory, encoder_weights = self.encode(source)
        target = torch.full((source.shape[0], 1), start_id)
        finished = torch.zeros(source.shape[0], dtype=torch.bool)
        for _ in range(self.config.context - 1):
            logits, _, _ = self.decode(target, memory, source == 0)
            next_id = logits[:, -1].argmax(dim=-1)  # (B,)
            target = torch.cat([target, next_id[:, None]], dim=1)
            finished |= next_id == end_id
            if finished.all():
                break
        _, self_weights, cross_weights = self.decode(target[:, :-1], memory, source == 0)
        return dict(
            target=target[:, 1:],
            encoder_weights=encoder_weights,
            decoder_weights=self_weights,
            cross_weights=cross_weights,
        )

"""The seed's attention network: input → Query / Key / ordinary-hidden (value) groups → weights →
the input and the weighted value sum feed the following layers → next-word probabilities.

Attention is written out (softmax(q·kᵀ/√d_k) with the causal mask), never a fused kernel, so every
weight can be read and drawn.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import torch
from torch import nn
from torch.nn import functional as F

from model.corpus import LONGEST_SENTENCE


@dataclass
class AttentionConfig:
    vocab_size: int
    context: int = LONGEST_SENTENCE  # longest sentence the model reads, in words
    d_model: int = 8  # input nodes per word (embedding + position)
    d_k: int = 6  # Query, Key and value nodes per head
    heads: int = 1  # attention heads; more than one adds a projection of their concatenation
    d_hidden: int = 16  # nodes of the following layer
    # Whether the input layer also feeds the following layers (the seed's design). Without it the
    # following layers see only what attention brings, so a word's own identity must come through
    # a head too: the multi-head variant, where heads then split the work between them.
    input_to_following: bool = True

    def to_dict(self) -> dict:
        return asdict(self)


class AttentionModel(nn.Module):
    def __init__(self, config: AttentionConfig):
        super().__init__()
        c = config
        self.config = c
        self.token_embedding = nn.Embedding(c.vocab_size, c.d_model)
        self.position_embedding = nn.Embedding(c.context, c.d_model)
        self.query = nn.Linear(c.d_model, c.heads * c.d_k)
        self.key = nn.Linear(c.d_model, c.heads * c.d_k)
        self.value = nn.Linear(c.d_model, c.heads * c.d_k)
        # Several heads are concatenated and projected back to one value group.
        self.combine = nn.Linear(c.heads * c.d_k, c.d_k) if c.heads > 1 else nn.Identity()
        self.hidden = nn.Linear((c.d_model if c.input_to_following else 0) + c.d_k, c.d_hidden)
        self.output = nn.Linear(c.d_hidden, c.vocab_size)
        self.projections = 0  # words sent through the Query/Key/value layers, for the KV-cache count
        self.projection_calls = 0  # calls of those layers: each takes every word given at once
        with torch.no_grad():
            # Start Query and Key small, so that attention starts out even over the words.
            for layer in (self.query, self.key):
                layer.weight.mul_(0.1)
                layer.bias.mul_(0.1)

    def inputs(self, idx: torch.Tensor, start: int = 0) -> torch.Tensor:
        positions = torch.arange(start, start + idx.shape[1])
        return self.token_embedding(idx) + self.position_embedding(positions)  # (B, T, d_model)

    def project(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Query, key and value groups of every word in x, split into heads."""
        B, T, _ = x.shape
        self.projections += T
        self.projection_calls += 1
        shape = (B, T, self.config.heads, self.config.d_k)
        q = self.query(x).view(shape).transpose(1, 2)  # (B, H, T, d_k)
        k = self.key(x).view(shape).transpose(1, 2)  # (B, H, T, d_k)
        # The value group is an ordinary hidden layer, tanh-activated: bounded values make a word's
        # share of the weighted sum follow its weight, not an inflated value.
        v = torch.tanh(self.value(x)).view(shape).transpose(1, 2)  # (B, H, T, d_k)
        return q, k, v

    def attend(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool):
        """Weights of every query over the keys, and the weighted sums of the values."""
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.config.d_k)  # (B, H, Tq, Tk)
        if causal:
            Tq, Tk = scores.shape[-2:]
            future = torch.ones(Tq, Tk, dtype=torch.bool).triu(Tk - Tq + 1)
            scores = scores.masked_fill(future, float("-inf"))
        weights = F.softmax(scores, dim=-1)  # (B, H, Tq, Tk)
        mixed = weights @ v  # (B, H, Tq, d_k)
        return scores, weights, mixed

    def follow(self, x: torch.Tensor, mixed: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The following layers: input and weighted values in, next-word logits out."""
        B, H, T, d_k = mixed.shape
        mixed = self.combine(mixed.transpose(1, 2).reshape(B, T, H * d_k))  # (B, T, d_k)
        following = torch.cat([x, mixed], dim=-1) if self.config.input_to_following else mixed
        hidden = F.relu(self.hidden(following))  # (B, T, d_hidden)
        return hidden, self.output(hidden)  # (B, T, vocab)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        return self.inspect(idx)["logits"]

    def inspect(self, idx: torch.Tensor) -> dict[str, torch.Tensor]:
        """Every internal quantity of a forward pass over idx (B, T)."""
        x = self.inputs(idx)
        q, k, v = self.project(x)
        scores, weights, mixed = self.attend(q, k, v, causal=True)
        hidden, logits = self.follow(x, mixed)
        return dict(
            inputs=x,
            queries=q,
            keys=k,
            values=v,
            scores=scores,
            weights=weights,
            mixed=mixed,
            hidden=hidden,
            logits=logits,
        )

    def step(self, idx: torch.Tensor, cache: dict[str, torch.Tensor]) -> torch.Tensor:
        """Next-word logits for one new word idx (B, 1), using and extending the KV cache."""
        start = cache["keys"].shape[2] if cache else 0
        x = self.inputs(idx, start)
        q, k, v = self.project(x)
        if cache:
            k = torch.cat([cache["keys"], k], dim=2)  # (B, H, t, d_k)
            v = torch.cat([cache["values"], v], dim=2)  # (B, H, t, d_k)
        cache.update(keys=k, values=v)
        _, _, mixed = self.attend(q, k, v, causal=True)
        return self.follow(x, mixed)[1]  # (B, 1, vocab)

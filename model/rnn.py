"""A plain Elman RNN: one word in, the hidden layer fed back with the next word."""

from __future__ import annotations

from dataclasses import asdict, dataclass

import torch
from torch import nn


@dataclass
class RNNConfig:
    vocab_size: int
    context: int = 24  # longest sentence, in words (kept for the shared interface)
    d_model: int = 8  # input nodes per word
    d_hidden: int = 16  # hidden-state nodes: the fixed-size summary of everything read so far

    def to_dict(self) -> dict:
        return asdict(self)


class ElmanRNN(nn.Module):
    def __init__(self, config: RNNConfig):
        super().__init__()
        c = config
        self.config = c
        self.token_embedding = nn.Embedding(c.vocab_size, c.d_model)
        self.input_to_hidden = nn.Linear(c.d_model, c.d_hidden)
        self.hidden_to_hidden = nn.Linear(c.d_hidden, c.d_hidden, bias=False)
        self.output = nn.Linear(c.d_hidden, c.vocab_size)
        self.steps = 0  # loop steps run, one per word: they cannot run side by side

    def run(self, x: torch.Tensor) -> torch.Tensor:
        """Hidden states (B, T, d_hidden) for input embeddings x (B, T, d_model): one word at a time,
        each step mixing the new word with the state the previous step handed on."""
        h = x.new_zeros(x.shape[0], self.config.d_hidden)  # (B, d_hidden)
        states = []
        for t in range(x.shape[1]):
            self.steps += 1
            h = torch.tanh(self.input_to_hidden(x[:, t]) + self.hidden_to_hidden(self.hand_on(h)))  # (B, d_hidden)
            states.append(h)
        return torch.stack(states, dim=1)  # (B, T, d_hidden)

    def hand_on(self, h: torch.Tensor) -> torch.Tensor:
        """The state as the next step receives it: the state itself, so training's gradients flow
        back through every earlier step (back-propagation through time)."""
        return h

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        return self.inspect(idx)["logits"]

    def inspect(self, idx: torch.Tensor) -> dict[str, torch.Tensor]:
        x = self.token_embedding(idx)  # (B, T, d_model)
        hidden = self.run(x)
        return dict(inputs=x, hidden=hidden, logits=self.output(hidden))  # logits (B, T, vocab)

    def influence(self, idx: torch.Tensor) -> torch.Tensor:
        """For each step t, the share of each word i ≤ t in the hidden state h_t (T, T).

        Measured by gradient: the size of ∂h_t/∂x_i (Frobenius norm), normalised over i ≤ t, so
        each row sums to 1 and shows how much of each earlier word the state still carries.
        """
        x = self.token_embedding(idx[:1]).detach()  # (1, T, d_model)
        jacobian = torch.autograd.functional.jacobian(lambda inp: self.run(inp)[0], x)  # (T, H, 1, T, d)
        size = jacobian.squeeze(2).pow(2).sum(dim=(1, 3)).sqrt()  # (T, T): row t, column i
        size = size.tril()
        return size / size.sum(dim=1, keepdim=True)

"""Checkpoints that can rebuild their models alone, with a hash manifest beside each.

``X.pt`` holds config, vocabulary, corpus hash and weights (plain types and tensors only, so it
loads with ``weights_only=True``); ``X.pt.sha256`` holds the file's hash. A bit flipped inside a
tensor still loads silently, so the hash is checked before the file is trusted.
"""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

import torch

from model.files import write_atomically

# Bump when the models or the checkpoint layout change: older files are then retrained.
FORMAT = 5


class CheckpointError(ValueError):
    """A checkpoint that must not be used; the message says why."""


def manifest_path(path: Path) -> Path:
    return path.with_name(path.name + ".sha256")


def save_checkpoint(payload: dict, path: Path) -> None:
    buffer = io.BytesIO()
    torch.save({**payload, "format": FORMAT}, buffer)
    data = buffer.getvalue()
    # The manifest goes first: a crash between the two writes leaves a mismatch, which is detected.
    write_atomically(manifest_path(path), (hashlib.sha256(data).hexdigest() + "\n").encode())
    write_atomically(path, data)


def load_checkpoint(path: Path, corpus_digest: str) -> dict:
    """The checkpoint's payload, or CheckpointError if it is missing, damaged or not for this corpus."""
    if not path.exists():
        raise CheckpointError(f"no trained models at {path}")
    try:
        data = path.read_bytes()
        expected = manifest_path(path).read_text().strip()
    except OSError as error:
        raise CheckpointError(f"cannot read {path} or its hash manifest: {error.strerror}") from None
    if hashlib.sha256(data).hexdigest() != expected:
        raise CheckpointError(f"{path} does not match its hash manifest (truncated or damaged)")
    try:
        payload = torch.load(io.BytesIO(data), weights_only=True)
    except Exception as error:  # any unpickling failure means the file is not a checkpoint of ours
        raise CheckpointError(f"{path} is not a checkpoint ({type(error).__name__})") from None
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise CheckpointError(f"{path} was written by another version of the models")
    if payload.get("corpus_digest") != corpus_digest:
        raise CheckpointError(f"{path} was trained on another corpus")
    return payload

"""Files: where a sentence's outputs go, where the user's cache is, and publishing safely (a reader
sees the old content or all of the new, never a part)."""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path


def write_atomically(path: Path, data: bytes) -> None:
    """Write data so that path holds either its old content or all of the new, never a part."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)  # mkstemp makes files private; published ones are not
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def sentence_folder(sentence: str) -> str:
    """A folder name for a sentence: its letters (Chinese kept), other characters as '-'."""
    return re.sub(r"[^\w]+", "-", sentence.strip().lower()).strip("-_")[:60] or "sentence"


def cache_root() -> Path:
    """The user's cache: models trained on their corpora, the √d_k measurements."""
    configured = os.environ.get("ATTENTION_EXPLAINER_CACHE")
    if configured:
        return Path(configured)
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "attention-explainer"

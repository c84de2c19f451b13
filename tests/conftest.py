"""Shared fixtures: the shipped models and the default sentence's Trace, built once per run."""

from __future__ import annotations

import pytest

from model.corpus import STORIES


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    """Models trained for users' corpora go to a per-test folder, never the real cache."""
    monkeypatch.setenv("ATTENTION_EXPLAINER_CACHE", str(tmp_path / "cache"))


@pytest.fixture(scope="session")
def zh_models():
    from model.models import default_corpus, load_models

    return load_models(default_corpus("zh"))


@pytest.fixture(scope="session")
def default_trace():
    from model.trace import build_trace

    return build_trace(STORIES["zh"].default_sentence, "zh")

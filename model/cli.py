"""Command line behind ./render.sh for the models: ``trace`` and ``train``.

A user mistake is one line on stderr starting with "error:", exit code 2, and nothing written.
"""

from __future__ import annotations

import argparse
import signal
import sys
import time
from pathlib import Path

from model.console import interrupt, say
from model.corpus import LANGUAGES, STORIES, default_corpus_path, default_language
from model.files import sentence_folder

USAGE_ERROR = 2


class UsageError(ValueError):
    """A mistake in the command line; the message says what to do."""


def sentence_and_language(sentence: str | None, lang: str | None, corpus: str | None) -> tuple[str, str]:
    """What a command works on: ``lang``, or when left out the language the corpus (else the sentence)
    is written in; ``sentence``, or when left out the story's sentence in that language. An unknown
    language is a UsageError."""
    lang = lang if lang is not None else default_language(sentence, corpus)
    if lang not in LANGUAGES:
        raise UsageError(f"unknown language {lang!r}: use {' or '.join(LANGUAGES)}")
    return (sentence if sentence is not None else STORIES[lang].default_sentence), lang


def language(value: str) -> str:
    if value not in LANGUAGES:
        raise argparse.ArgumentTypeError(f"unknown language {value!r}: use {' or '.join(LANGUAGES)}")
    return value


class Parser(argparse.ArgumentParser):
    """argparse that reports a bad command line in one line with exit code 2, and takes flags only as
    written in full (``--chapter 5`` is refused, not read as ``--chapters 5``)."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str):
        raise UsageError(f"{message} (see ./{self.prog} --help)")


def parser() -> argparse.ArgumentParser:
    top = Parser(prog="render.sh", description="attention-explainer: models and traces")
    commands = top.add_subparsers(dest="command", required=True, parser_class=Parser)
    trace = commands.add_parser("trace", help="write the Trace (every number the scenes draw) as JSON")
    trace.add_argument(
        "--sentence", help="the sentence; its last word is the one predicted (default: the story's sentence for --lang)"
    )
    trace.add_argument("--corpus", help="your own corpus file: one sentence per line, words separated by spaces")
    trace.add_argument(
        "--lang", type=language, help="zh or en (default: the language the corpus, or else the sentence, is written in)"
    )
    trace.add_argument("--out", help="where to write (default: out/<sentence>/trace.json)")
    train = commands.add_parser("train", help="train the models on a corpus and store them")
    train.add_argument("--corpus", help="corpus file (default: the story corpus for --lang)")
    train.add_argument("--lang", type=language, help="zh or en (default: the language the corpus is written in)")
    train.add_argument("--translator", action="store_true", help="also retrain the zh→en translator")
    return top


def writable_output(path: Path) -> Path:
    """Check an output path before any work starts."""
    if path.exists() and path.is_dir():
        raise UsageError(f"--out {path} is a folder: give a file name such as {path / 'trace.json'}")
    parent = path.parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        raise UsageError(f"--out {path}: {parent} is a file, not a folder")
    return path


def run_trace(args) -> None:
    from model.trace import build_trace
    from model.trace_schema import save_trace

    sentence, lang = sentence_and_language(args.sentence, args.lang, args.corpus)
    out = writable_output(Path(args.out) if args.out else Path("out") / sentence_folder(sentence) / "trace.json")
    started = time.monotonic()
    trace = build_trace(sentence, lang, args.corpus)
    save_trace(trace, out)
    print(f"wrote {out} ({' / '.join(trace['tokens'])}, {time.monotonic() - started:.1f}s)")


def run_train(args) -> None:
    from model.corpus import load_corpus
    from model.models import load_models, load_translator, retrain

    lang = args.lang or default_language(None, args.corpus)
    corpus = load_corpus(args.corpus or default_corpus_path(lang), lang)
    retrain(corpus, translator=args.translator)
    for row in load_models(corpus).accuracy_by_distance:
        print(f"  distance {row['distance']:2d}: transformer {row['transformer']:.3f}  rnn {row['rnn']:.3f}")
    if args.translator:
        print(f"translator: {load_translator().exact_match:.1%} exact on held-out sentences")


def main(argv: list[str] | None = None) -> int:
    from model.checkpoint import CheckpointError
    from model.corpus import CorpusError
    from model.tokenizer import SentenceError
    from model.train import TrainingError

    signal.signal(signal.SIGTERM, interrupt)
    try:
        args = parser().parse_args(argv)
        {"trace": run_trace, "train": run_train}[args.command](args)
    except (UsageError, CorpusError, SentenceError, CheckpointError) as error:
        say(f"error: {error}")
        return USAGE_ERROR
    except OSError as error:
        say(f"error: {error.filename or ''}: {error.strerror}")
        return USAGE_ERROR
    except TrainingError as error:
        say(f"error: {error}")
        return 1
    except KeyboardInterrupt:
        say("interrupted")
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())

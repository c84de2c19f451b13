"""How far the RNN's object accuracy falls with distance, over many trainings rather than one.

    .venv/bin/python benchmarks/rnn_dilution.py             # 5 seeds, both languages, every state size
    .venv/bin/python benchmarks/rnn_dilution.py --seeds 10 --lang zh
    .venv/bin/python benchmarks/rnn_dilution.py --lang zh --sizes 8,12   # other hidden-state sizes
    .venv/bin/python benchmarks/rnn_dilution.py --lang zh --sizes 14,16 --steps 8000   # longer training
    .venv/bin/python benchmarks/rnn_dilution.py --lang zh --subjects 6 --fillers 15   # the story until Dec 2026
    .venv/bin/python benchmarks/rnn_dilution.py --sizes 16,32 --copy-back

``--subjects`` and ``--fillers`` train on a narrower story: its first subjects (each with its own
object) and first filler words (the fillers keep their order). Fewer subjects to tell apart leave
the state more room for each; fewer different fillers push it around less on the way from subject
to verb. Until December 2026 the shipped story was 6 subjects and 15 fillers
(``--subjects 6 --fillers 15``). A narrower corpus is written afresh, ``--sentences`` long; the
shipped corpus and models are not touched.
``--copy-back`` trains the RNN as Elman (1990) did: the state is handed to the next word as a copy,
a plain input, so no gradient flows back through time (the shipped RNN learns through every step).

Trains the Elman RNN of model/rnn.py with the project's schedule on the story corpus, once
per (language, hidden-state size, seed), and prints its object accuracy at distance 0, 1, 5 and 10,
then a summary per size: how many trainings learned the object next to its subject (distance 0
≥ LEARNED_NEARBY), and for those the range of accuracy at distance 10. The shipped models use seed
7 and the smallest size that learns (model/train.py, RNN_STATE_SIZES).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from model import measure, train  # noqa: E402
from model.corpus import CORPUS_SIZE, LANGUAGES, MAX_FILLERS, STORIES, load_corpus, write_story_corpora  # noqa: E402
from model.models import default_corpus  # noqa: E402
from model.rnn import ElmanRNN  # noqa: E402
from model.tokenizer import Vocab  # noqa: E402

DISTANCES = (0, 1, 5, MAX_FILLERS)
SHIPPED_SUBJECTS = len(STORIES["zh"].subjects)
SHIPPED_FILLERS = len(STORIES["zh"].fillers)


class CopiedBackRNN(ElmanRNN):
    """The same network, trained as Elman did: the error at a word changes nothing at the words
    before it, since the state each step receives is a copy."""

    def hand_on(self, h):
        return h.detach()


@contextmanager
def narrower_story(subjects: int, fillers: int):
    """While inside, the story (both languages) has only its first ``subjects`` subjects and first
    ``fillers`` filler words. Everything that reads STORIES, the held-out sentences too, sees it."""
    shipped = dict(STORIES)
    for lang, story in shipped.items():
        STORIES[lang] = replace(
            story, subjects=story.subjects[:subjects], objects=story.objects[:subjects], fillers=story.fillers[:fillers]
        )
    try:
        yield
    finally:
        STORIES.update(shipped)


def accuracy_after_training(
    lang: str, size: int, seed: int, steps: int, story: tuple[int, int, int], kind: type[ElmanRNN]
) -> list[float]:
    """Accuracy at DISTANCES of one trained RNN; ``story`` is (subjects, fillers, sentences)."""
    if story == (SHIPPED_SUBJECTS, SHIPPED_FILLERS, CORPUS_SIZE):
        return accuracy_on(default_corpus(lang), size, seed, steps, kind)
    subjects, fillers, sentences = story
    with narrower_story(subjects, fillers), tempfile.TemporaryDirectory() as folder:
        path = write_story_corpora(Path(folder), sentences)[lang]
        return accuracy_on(load_corpus(path, lang), size, seed, steps, kind)


def accuracy_on(corpus, size: int, seed: int, steps: int, kind: type[ElmanRNN]) -> list[float]:
    vocab = Vocab(corpus.words, corpus.lang)
    inputs, targets = train.next_word_data(corpus.sentences, vocab)
    model = train.train_rnn_of_size(vocab, inputs, targets, size, seed, steps, kind)
    return [measure.object_accuracy(model, vocab, corpus, d)[0] for d in DISTANCES]


def summary(results: dict) -> None:
    print(f"\n{'lang':<5} {'nodes':>5} {'learned':>8}  distance {MAX_FILLERS} when learned (min / median / max)")
    for lang, size in sorted({(lang, size) for lang, size, _ in results}):
        rows = [acc for (language, s, _), acc in results.items() if (language, s) == (lang, size)]
        far = sorted(acc[-1] for acc in rows if acc[0] >= train.LEARNED_NEARBY)
        spread = f"{far[0]:.2f} / {far[len(far) // 2]:.2f} / {far[-1]:.2f}" if far else "-"
        print(f"{lang:<5} {size:>5} {len(far):>4} of {len(rows):<2}  {spread}")


def positive(text: str) -> int:
    try:
        number = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if number < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return number


def sizes(text: str) -> tuple[int, ...]:
    """Comma-separated hidden-state sizes, e.g. 8,12."""
    return tuple(positive(size) for size in text.split(","))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5, help="trainings per language and size (default 5)")
    parser.add_argument("--lang", choices=LANGUAGES, action="append", help="a language (default: both)")
    parser.add_argument(
        "--sizes",
        type=sizes,
        default=train.RNN_STATE_SIZES,
        help="hidden-state sizes, comma-separated (default: the ones training tries, "
        + ",".join(map(str, train.RNN_STATE_SIZES))
        + ")",
    )
    parser.add_argument(
        "--steps",
        type=positive,
        default=train.RNN_SCHEDULE.steps,
        help=f"training steps (default: the project's, {train.RNN_SCHEDULE.steps})",
    )
    parser.add_argument(
        "--subjects",
        type=positive,
        default=SHIPPED_SUBJECTS,
        help=f"the story's first SUBJECTS subjects, 2 to {SHIPPED_SUBJECTS} "
        f"(default: all {SHIPPED_SUBJECTS}, the shipped story)",
    )
    parser.add_argument(
        "--fillers",
        type=positive,
        default=SHIPPED_FILLERS,
        help=f"the story's first FILLERS filler words, {MAX_FILLERS} to {SHIPPED_FILLERS} "
        f"(default: all {SHIPPED_FILLERS})",
    )
    parser.add_argument(
        "--sentences",
        type=positive,
        default=CORPUS_SIZE,
        help=f"sentences in the corpus trained on (default: the shipped {CORPUS_SIZE})",
    )
    parser.add_argument(
        "--copy-back",
        action="store_true",
        help="train as Elman (1990) did: no gradient through time (default: through every step)",
    )
    args = parser.parse_args()
    if args.seeds < 1:
        parser.error("--seeds must be at least 1")
    if not 2 <= args.subjects <= SHIPPED_SUBJECTS:
        parser.error(f"--subjects must be between 2 and {SHIPPED_SUBJECTS}")
    if not MAX_FILLERS <= args.fillers <= SHIPPED_FILLERS:
        parser.error(f"--fillers must be between {MAX_FILLERS} and {SHIPPED_FILLERS}")
    story = (args.subjects, args.fillers, args.sentences)
    seeds = range(train.SEED, train.SEED + args.seeds)
    kind = CopiedBackRNN if args.copy_back else ElmanRNN
    tasks = {
        (lang, size, seed): (accuracy_after_training, lang, size, seed, args.steps, story, kind)
        for lang in args.lang or LANGUAGES
        for size in args.sizes
        for seed in seeds
    }
    started = time.monotonic()
    at_once = min(os.cpu_count() or 1, len(tasks))
    print(f"training {len(tasks)} RNN{'s' if len(tasks) > 1 else ''}, {at_once} at a time", file=sys.stderr, flush=True)
    results = train.run_parallel(tasks)
    print(f"{'lang':<5} {'nodes':>5} {'seed':>5}  " + "  ".join(f"d={d:<3}" for d in DISTANCES))
    for (lang, size, seed), accuracy in sorted(results.items()):
        print(f"{lang:<5} {size:>5} {seed:>5}  " + "  ".join(f"{a:.3f}" for a in accuracy))
    summary(results)
    print(f"\n{time.monotonic() - started:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()

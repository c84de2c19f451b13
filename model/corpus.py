"""Corpora: the story corpus the explainer is built on, and users' own corpus files.

A corpus file holds one sentence per line, its words separated by spaces (Chinese too: the
spaces teach the tokenizer the vocabulary, so "猫 喜欢 抓 老鼠" and not "猫喜欢抓老鼠"). A punctuation
mark is a word of its own, spaced or not ("老鼠，狗" is 老鼠 ， 狗). Blank lines and lines starting with "#"
are skipped.

The story corpus is generated, seeded, so that the explainer's claim is true of the trained models:
several subjects share the verb, so the word after the verb can only be predicted from the subject,
and 0 to ``MAX_FILLERS`` filler words stand between the subject and the verb. Fillers keep a fixed
order (the first fifteen by kind: time, frequency, place, manner, degree, as Chinese adverbials do;
then twenty-five more, again by kind), so the word after a filler depends on that filler: a model
that reads word by word must keep the current word in its state beside the subject, which is what
squeezes the subject out of an RNN's fixed-size state. The story had 6 subjects and 15 fillers until
December 2026; widened to 20 and 40, the RNN's state has more subjects to hold apart and more
different words pushing it around, and its accuracy falls with distance (docs/experiments.md).
"""

from __future__ import annotations

import hashlib
import random
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import groupby, islice
from pathlib import Path

ASSETS = Path(__file__).resolve().parent.parent / "assets"
LANGUAGES = ("zh", "en")
MAX_FILLERS = 10
CORPUS_SIZE = 3000
CORPUS_SEED = 2024
# Short gaps are common and long ones rare, as in real text: P(n fillers) ∝ 0.8ⁿ.
FILLER_COUNT_WEIGHTS = [0.8**n for n in range(MAX_FILLERS + 1)]


class CorpusError(ValueError):
    """A corpus file that cannot be used; the message says what to do."""


@dataclass(frozen=True)
class Story:
    """The story grammar of one language: subject, fillers, verb, object."""

    subjects: tuple[tuple[str, ...], ...]  # words of each subject, e.g. ("the", "cat")
    objects: tuple[str, ...]  # the object each subject catches, same order as subjects
    # the shared verb, in parts that translate one to one: ("喜欢",), ("抓",) ↔ ("likes",), ("to", "catch")
    verb_parts: tuple[tuple[str, ...], ...]
    fillers: tuple[str, ...]  # words that may stand between subject and verb, in their fixed order
    default_sentence: str

    @property
    def verb(self) -> tuple[str, ...]:
        """The verb's words, e.g. ("喜欢", "抓")."""
        return tuple(word for part in self.verb_parts for word in part)

    def sentence(self, subject: int, fillers: list[int]) -> list[str]:
        return [*self.subjects[subject], *(self.fillers[f] for f in fillers), *self.verb, self.objects[subject]]

    def verb_position(self, filler_count: int, subject: int = 0) -> int:
        """Index of the last verb word: the word whose next-word prediction is the object."""
        return len(self.subjects[subject]) + filler_count + len(self.verb) - 1


# The two stories are twins: subject i, filler j and the verb translate word for word.
STORIES = {
    "zh": Story(
        subjects=(
            ("猫",),
            ("狗",),
            ("鹰",),
            ("熊",),
            ("孩子",),
            ("狐狸",),
            ("蛇",),
            ("狼",),
            ("老虎",),
            ("蜘蛛",),
            ("蜥蜴",),
            ("狮子",),
            ("鲨鱼",),
            ("蝙蝠",),
            ("水獭",),
            ("刺猬",),
            ("企鹅",),
            ("海豚",),
            ("猎豹",),
            ("猴子",),
        ),
        objects=(
            "老鼠",
            "飞盘",
            "兔子",
            "鱼",
            "蝴蝶",
            "鸡",
            "青蛙",
            "羊",
            "鹿",
            "苍蝇",
            "蚂蚁",
            "斑马",
            "海豹",
            "飞蛾",
            "螃蟹",
            "甲虫",
            "小虾",
            "乌贼",
            "羚羊",
            "蚱蜢",
        ),
        verb_parts=(("喜欢",), ("抓",)),
        fillers=(
            "今天",
            "每天",
            "早上",
            "晚上",
            "也",
            "总是",
            "一直",
            "常常",
            "经常",
            "在院子里",
            "偷偷",
            "悄悄",
            "真的",
            "非常",
            "特别",
            "昨天",
            "明天",
            "周末",
            "下午",
            "傍晚",
            "有时",
            "偶尔",
            "通常",
            "又",
            "还",
            "在附近",
            "在外面",
            "在屋里",
            "在楼上",
            "在楼下",
            "慢慢地",
            "快快地",
            "耐心地",
            "开心地",
            "急切地",
            "小心地",
            "确实",
            "十分",
            "相当",
            "大多",
        ),
        default_sentence="猫喜欢抓老鼠",
    ),
    "en": Story(
        subjects=(
            ("the", "cat"),
            ("the", "dog"),
            ("the", "eagle"),
            ("the", "bear"),
            ("the", "child"),
            ("the", "fox"),
            ("the", "snake"),
            ("the", "wolf"),
            ("the", "tiger"),
            ("the", "spider"),
            ("the", "lizard"),
            ("the", "lion"),
            ("the", "shark"),
            ("the", "bat"),
            ("the", "otter"),
            ("the", "hedgehog"),
            ("the", "penguin"),
            ("the", "dolphin"),
            ("the", "cheetah"),
            ("the", "monkey"),
        ),
        objects=(
            "mice",
            "frisbees",
            "rabbits",
            "fish",
            "butterflies",
            "chickens",
            "frogs",
            "sheep",
            "deer",
            "flies",
            "ants",
            "zebras",
            "seals",
            "moths",
            "crabs",
            "beetles",
            "shrimp",
            "squid",
            "antelopes",
            "grasshoppers",
        ),
        verb_parts=(("likes",), ("to", "catch")),
        fillers=(
            "today",
            "daily",
            "mornings",
            "nightly",
            "also",
            "always",
            "constantly",
            "often",
            "frequently",
            "outside",
            "secretly",
            "quietly",
            "really",
            "very",
            "especially",
            "yesterday",
            "tomorrow",
            "weekends",
            "afternoons",
            "evenings",
            "sometimes",
            "occasionally",
            "usually",
            "again",
            "still",
            "nearby",
            "outdoors",
            "indoors",
            "upstairs",
            "downstairs",
            "slowly",
            "quickly",
            "patiently",
            "happily",
            "eagerly",
            "carefully",
            "truly",
            "extremely",
            "quite",
            "mostly",
        ),
        default_sentence="the cat likes to catch mice",
    ),
}


def story_phrases(lang: str) -> list[tuple[str, ...]]:
    """The story's phrases in one language; phrase i of one language translates phrase i of the other."""
    story = STORIES[lang]
    return [
        *story.subjects,
        *((word,) for word in story.fillers),
        *story.verb_parts,
        *((word,) for word in story.objects),
    ]


def story_twin(words: list[str], lang: str) -> list[str] | None:
    """A story sentence in the other language, phrase for phrase ("the cat" ↔ 猫, "likes" ↔ 喜欢,
    "to catch" ↔ 抓); None when the words are not all story phrases of ``lang``."""
    other = next(language for language in LANGUAGES if language != lang)
    twins = dict(zip(story_phrases(lang), story_phrases(other)))
    twin, start = [], 0
    while start < len(words):
        phrase = next(
            (tuple(words[start:end]) for end in range(len(words), start, -1) if tuple(words[start:end]) in twins), None
        )
        if phrase is None:
            return None
        twin.extend(twins[phrase])
        start += len(phrase)
    return twin


def story_pairs(count: int, seed: int, filler_count: int | None = None) -> list[tuple[list[str], list[str]]]:
    """``count`` twin sentences (zh words, en words), seeded.

    With ``filler_count`` None the number of fillers is drawn from FILLER_COUNT_WEIGHTS.
    """
    return list(islice(endless_story_pairs(seed, filler_count), count))


def endless_story_pairs(seed: int, filler_count: int | None = None) -> Iterator[tuple[list[str], list[str]]]:
    """Twin sentences as ``story_pairs`` draws them, one at a time for as long as asked: its first
    ``count`` are story_pairs(count, ...)."""
    rng = random.Random(seed)
    zh, en = STORIES["zh"], STORIES["en"]
    while True:
        subject = rng.randrange(len(zh.subjects))
        n = rng.choices(range(MAX_FILLERS + 1), FILLER_COUNT_WEIGHTS)[0] if filler_count is None else filler_count
        fillers = sorted(rng.sample(range(len(zh.fillers)), n))
        yield zh.sentence(subject, fillers), en.sentence(subject, fillers)


def write_story_corpora(directory: Path = ASSETS, size: int = CORPUS_SIZE) -> dict[str, Path]:
    """Write the twin story corpora, ``size`` sentences each (line i of one translates line i of the
    other); by default the shipped ones."""
    pairs = story_pairs(size, CORPUS_SEED)
    paths = {}
    for index, lang in enumerate(LANGUAGES):
        path = directory / f"corpus.{lang}.txt"
        lines = [" ".join(pair[index]) for pair in pairs]
        header = f"# Story corpus ({lang}), generated by model.corpus.write_story_corpora, seed {CORPUS_SEED}.\n"
        path.write_text(header + "\n".join(lines) + "\n", encoding="utf-8")
        paths[lang] = path
    return paths


def default_corpus_path(lang: str) -> Path:
    return ASSETS / f"corpus.{lang}.txt"


def has_chinese(text: str) -> bool:
    return any("\u4e00" <= character <= "\u9fff" for character in text)


def written_language(text: str) -> str:
    """zh when the text has a Chinese character, en otherwise."""
    return "zh" if has_chinese(text) else "en"


def default_language(sentence: str | None, corpus: str | Path | None) -> str:
    """The language when --lang is left out: the one the corpus's sentences are written in, else the
    sentence's, else zh (the story's own language)."""
    if corpus is not None:
        try:
            sentences = sentence_lines(Path(corpus).read_text(encoding="utf-8-sig"))
        except (OSError, UnicodeDecodeError):
            sentences = []  # load_corpus says what is wrong with the file
        if sentences:
            return written_language("".join(sentences))
    return "zh" if sentence is None else written_language(sentence)


def shown(text: str) -> str:
    """Text as a user can read it in an error message: its first 40 characters, invisible ones escaped."""
    if len(text) > 40:
        text = text[:40] + "…"
    if all(ch.isprintable() and unicodedata.category(ch) not in ("Cf", "Zl", "Zp") for ch in text):
        return f'"{text}"'
    return ascii(text)


SENTENCE_END = ".!?。！？"


def without_sentence_end(sentence: str) -> str:
    """The sentence without surrounding space and its closing full stops, question or exclamation marks:
    "猫 喜欢 抓 老鼠。" reads as "猫 喜欢 抓 老鼠", in a corpus as on the command line."""
    return sentence.strip().rstrip(SENTENCE_END).rstrip()


# A mark kept inside a word when the characters on both its sides pass the test: don't, well-known, 3.5, 1,000.
INSIDE_A_WORD = {"'": str.isalpha, "’": str.isalpha, "-": str.isalnum, ".": str.isdigit, ",": str.isdigit}


def is_punctuation(text: str) -> bool:
    """True for a punctuation mark (，、：“ , ; …), not for "_", which joins words."""
    return all(unicodedata.category(ch) in ("Pd", "Ps", "Pe", "Pi", "Pf", "Po") for ch in text)


def _separates(chunk: str, i: int) -> bool:
    """Whether character i of a space-free chunk is a punctuation mark standing between words."""
    inside = INSIDE_A_WORD.get(chunk[i])
    if inside and 0 < i < len(chunk) - 1 and inside(chunk[i - 1]) and inside(chunk[i + 1]):
        return False
    return is_punctuation(chunk[i])


def words_of(sentence: str) -> list[str]:
    """A sentence's words: what spaces separate, with each punctuation mark a word of its own
    ("老鼠，狗" → 老鼠 ， 狗; "cat," → cat ,). A run of one mark stays one word (……)."""
    words = []
    for chunk in sentence.split():
        if chunk.isalnum():  # no mark at all, as in most words: the quick way
            words.append(chunk)
            continue
        kinds = [chunk[i] if _separates(chunk, i) else "" for i in range(len(chunk))]
        start = 0
        for _, run in groupby(kinds):
            end = start + len(list(run))
            words.append(chunk[start:end])
            start = end
    return words


def sentence_lines(text: str) -> list[str]:
    """A corpus file's sentences: its lines but blank ones and comments (starting with "#"), each
    without its closing mark."""
    lines = (line for line in text.splitlines() if not line.lstrip().startswith("#"))
    return [sentence for sentence in map(without_sentence_end, lines) if sentence]


@dataclass(frozen=True)
class Corpus:
    sentences: tuple[tuple[str, ...], ...]
    lang: str
    digest: str  # sha256 of the file's bytes: names the trained models' cache entry
    path: Path

    @property
    def words(self) -> list[str]:
        """Every distinct word, in order of first appearance."""
        seen: dict[str, None] = {}
        for sentence in self.sentences:
            seen.update(dict.fromkeys(sentence))
        return list(seen)

    @property
    def is_default(self) -> bool:
        return self.path.resolve() == default_corpus_path(self.lang).resolve()


MIN_SENTENCES = 20
LONGEST_SENTENCE = 24  # words the models read at most (their context)
SPACED_EXAMPLE = {"zh": "猫 喜欢 抓 老鼠", "en": "the cat likes to catch mice"}


def line_number(text: str, words: tuple[str, ...]) -> int:
    """The number of the file's first line that reads as these words."""
    return next(
        n for n, line in enumerate(text.splitlines(), 1) if tuple(words_of(without_sentence_end(line))) == words
    )


def spoken(words: tuple[str, ...]) -> list[str]:
    """The words that are not punctuation marks."""
    return [word for word in words if not is_punctuation(word)]


def load_corpus(path: str | Path, lang: str) -> Corpus:
    """Read a corpus file, or raise CorpusError saying what is wrong and how to fix it."""
    path = Path(path)
    if lang not in LANGUAGES:
        raise CorpusError(f"unknown language {lang!r}: use one of {', '.join(LANGUAGES)}")
    try:
        raw = path.read_bytes()
    except IsADirectoryError:
        raise CorpusError(f"corpus {path} is a folder: pass a text file with one sentence per line") from None
    except OSError as error:
        raise CorpusError(f"cannot read corpus {path}: {error.strerror}") from None
    try:
        text = raw.decode("utf-8-sig")  # a byte-order mark (Windows Notepad writes one) is not part of a word
    except UnicodeDecodeError as error:
        raise CorpusError(f"corpus {path} is not UTF-8 text (byte {error.start}): save it as UTF-8") from None
    if "\x00" in text:
        raise CorpusError(f"corpus {path} contains NUL bytes: it must be plain UTF-8 text")
    sentences = tuple(tuple(words_of(line)) for line in sentence_lines(text))
    if not sentences:
        raise CorpusError(f"corpus {path} has no sentences: write one sentence per line, words separated by spaces")
    if len(sentences) < MIN_SENTENCES:
        raise CorpusError(
            f"corpus {path} has {len(sentences)} sentence{'s' if len(sentences) > 1 else ''}; "
            f"at least {MIN_SENTENCES} are needed to train on"
        )
    one_word = next((words for words in sentences if len(spoken(words)) < 2), None)
    if one_word:
        words = spoken(one_word)
        what = f"{shown(words[0])} is one word" if words else f"{shown(' '.join(one_word))} has no word"
        raise CorpusError(
            f"corpus {path}, line {line_number(text, one_word)}: {what}; a sentence needs "
            f"two or more words separated by spaces ({SPACED_EXAMPLE[lang]}), or leave the line out"
        )
    too_long = next((words for words in sentences if len(words) > LONGEST_SENTENCE), None)
    if too_long:
        raise CorpusError(
            f"corpus {path}, line {line_number(text, too_long)} has {len(too_long)} words but the models read at "
            f"most {LONGEST_SENTENCE}: split it or shorten it"
        )
    digest = hashlib.sha256(raw).hexdigest()
    return Corpus(sentences=sentences, lang=lang, digest=digest, path=path)

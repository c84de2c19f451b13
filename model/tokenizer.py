"""Sentence → words → ids: longest match for Chinese, whitespace for English; punctuation marks are words."""

from __future__ import annotations

from pathlib import Path

from model.corpus import has_chinese, is_punctuation, shown, without_sentence_end, words_of


class SentenceError(ValueError):
    """A sentence the models cannot read; the message says what to do."""


class Vocab:
    """The words a model knows, each with an id (its index in ``words``)."""

    def __init__(self, words: list[str], lang: str, corpus: Path | None = None):
        self.words = list(words)
        self.lang = lang
        self.corpus = corpus  # a user's corpus file the words come from; None for the story corpus
        self.ids = {word: i for i, word in enumerate(self.words)}
        self.uncased = {word.lower(): word for word in reversed(self.words)}  # the first spelling of each
        self.longest = max(len(word) for word in self.words)

    def __len__(self) -> int:
        return len(self.words)

    def __contains__(self, word: str) -> bool:
        return word in self.ids

    def encode(self, words: list[str]) -> list[int]:
        return [self.ids[word] for word in words]

    def decode(self, ids: list[int]) -> list[str]:
        return [self.words[i] for i in ids]

    def split(self, sentence: str, context: int) -> list[str]:
        """The words of ``sentence``, or SentenceError naming what is wrong."""
        text = without_sentence_end(sentence)
        if not text:
            raise SentenceError("the sentence is empty: pass --sentence with at least two known words")
        words = [word for chunk in words_of(text) for word in self._split_chunk(chunk, sentence)]
        if len(words) < 2:
            raise SentenceError(
                f"the sentence {shown(sentence)} has one word; it needs at least two "
                "(the last word is the one the model predicts)"
            )
        if len(words) > context:
            raise SentenceError(
                f"the sentence has {len(words)} words but the models read at most {context}: shorten it"
            )
        return words

    def _split_chunk(self, chunk: str, sentence: str) -> list[str]:
        if self.lang == "en":
            word = self._english_word(chunk)
            if word is None:
                raise self._unknown(chunk, sentence)
            return [word]
        words, i = [], 0
        while i < len(chunk):
            match = self._longest_match(chunk, i)
            if match is None:
                end = i + 1
                while end < len(chunk) and self._longest_match(chunk, end) is None:
                    end += 1
                raise self._unknown(chunk[i:end], sentence)
            words.append(match)
            i += len(match)
        return words

    def _english_word(self, chunk: str) -> str | None:
        """The vocabulary's spelling of a word: as written, in lower case, or as the corpus wrote it ("The"
        for "the", where the corpus starts every sentence with a capital)."""
        return next(
            (word for word in (chunk, chunk.lower(), self.uncased.get(chunk.lower())) if word in self.ids), None
        )

    def _longest_match(self, text: str, start: int) -> str | None:
        for size in range(min(self.longest, len(text) - start), 0, -1):
            if text[start : start + size] in self.ids:
                return text[start : start + size]
        return None

    def _unknown(self, word: str, sentence: str) -> SentenceError:
        examples = ", ".join(self.words[:12])
        if is_punctuation(word):
            where = self.corpus or "the story corpus"
            return SentenceError(
                f"the punctuation mark {shown(word)} is not in {where}, so the models cannot "
                "read it: leave it out of the sentence"
            )
        if self.corpus is not None:
            return SentenceError(
                f"unknown word {shown(word)} in the sentence: use words of {self.corpus} "
                f"({examples}, …) or add sentences that use it to {self.corpus}"
            )
        return SentenceError(
            f"unknown word {shown(word)} in the sentence: {self._other_language(sentence)}use words the models "
            f"know ({examples}, …) or pass --corpus FILE with sentences that use it"
        )

    def _other_language(self, sentence: str) -> str:
        """A hint when the whole sentence is written in the other language's script."""
        chinese = has_chinese(sentence)
        latin = any(ch.isascii() and ch.isalpha() for ch in sentence)
        if self.lang == "zh" and latin and not chinese:
            return "for an English sentence use --lang en; otherwise "
        if self.lang == "en" and chinese and not latin:
            return "for a Chinese sentence use --lang zh; otherwise "
        return ""

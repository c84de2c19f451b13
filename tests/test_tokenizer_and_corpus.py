import pytest

from model.corpus import (
    CORPUS_SIZE,
    MAX_FILLERS,
    STORIES,
    CorpusError,
    default_corpus_path,
    default_language,
    load_corpus,
    story_twin,
    write_story_corpora,
)
from model.tokenizer import SentenceError, Vocab


@pytest.fixture(scope="module")
def zh_vocab():
    return Vocab(load_corpus(default_corpus_path("zh"), "zh").words, "zh")


@pytest.fixture(scope="module")
def en_vocab():
    return Vocab(load_corpus(default_corpus_path("en"), "en").words, "en")


def test_longest_match_splits_the_default_sentence(zh_vocab):
    assert zh_vocab.split("猫喜欢抓老鼠", 24) == ["猫", "喜欢", "抓", "老鼠"]


def test_every_corpus_sentence_splits_back_into_its_words_when_written_without_spaces(zh_vocab):
    corpus = load_corpus(default_corpus_path("zh"), "zh")
    for sentence in corpus.sentences:
        assert zh_vocab.split("".join(sentence), 24) == list(sentence)


def test_english_splits_on_whitespace_ignoring_case_and_a_final_full_stop(en_vocab):
    assert en_vocab.split("The cat likes to catch mice.", 24) == "the cat likes to catch mice".split()


def test_english_finds_a_word_its_corpus_only_wrote_with_a_capital():
    vocab = Vocab(["The", "cat", "likes", "Paris", "paris"], "en")  # every sentence of the corpus starts "The"
    assert vocab.split("the cat likes Paris", 24) == ["The", "cat", "likes", "Paris"]
    assert vocab.split("THE CAT likes PARIS", 24) == ["The", "cat", "likes", "paris"]


@pytest.mark.parametrize(
    "sentence, fragment",
    [
        ("", "empty"),
        ("   ", "empty"),
        ("。", "empty"),
        ("大象喜欢抓老鼠", '"大象"'),
        ("猫喜欢抓老鼠🐭", '"🐭"'),
        ("猫\u200b喜欢抓老鼠", "\\u200b"),
        ("猫\x00喜欢", "\\x00"),
        ("猫", "one word"),
        ("猫" + "每天" * 30 + "喜欢抓老鼠", "at most 24"),
    ],
)
def test_bad_chinese_sentences_are_refused_with_a_message_naming_the_problem(zh_vocab, sentence, fragment):
    with pytest.raises(SentenceError) as error:
        zh_vocab.split(sentence, 24)
    assert fragment in str(error.value)
    assert "\n" not in str(error.value)


def test_an_unknown_english_word_is_named_and_the_fix_is_given(en_vocab):
    with pytest.raises(SentenceError, match='"elephant".*--corpus'):
        en_vocab.split("the elephant likes to catch mice", 24)


def test_the_story_corpus_is_what_the_generator_writes(tmp_path):
    written = write_story_corpora(tmp_path)
    for lang, path in written.items():
        assert path.read_bytes() == default_corpus_path(lang).read_bytes()


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_object_follows_from_the_subject_alone_and_gaps_span_zero_to_ten(lang):
    story = STORIES[lang]
    corpus = load_corpus(default_corpus_path(lang), lang)
    assert len(corpus.sentences) == CORPUS_SIZE
    objects_of = {}
    gaps = set()
    for sentence in corpus.sentences:
        subject = len(story.subjects[0])
        objects_of.setdefault(sentence[:subject], set()).add(sentence[-1])
        assert list(sentence[-1 - len(story.verb) : -1]) == list(story.verb)
        gaps.add(len(sentence) - subject - len(story.verb) - 1)
    assert len(objects_of) >= 5  # several subjects share the verb ...
    assert all(len(objects) == 1 for objects in objects_of.values())  # ... each with its own object
    assert gaps == set(range(MAX_FILLERS + 1))


def test_twin_corpora_align_line_by_line():
    zh = load_corpus(default_corpus_path("zh"), "zh")
    en = load_corpus(default_corpus_path("en"), "en")
    pairs = dict(zip(STORIES["zh"].objects, STORIES["en"].objects))
    for zh_sentence, en_sentence in zip(zh.sentences, en.sentences):
        assert pairs[zh_sentence[-1]] == en_sentence[-1]
        assert len(zh_sentence) + 2 == len(en_sentence)  # "the cat" and "likes to catch" are one word longer each


def test_every_corpus_sentence_has_the_other_corpus_line_as_twin():
    zh = load_corpus(default_corpus_path("zh"), "zh")
    en = load_corpus(default_corpus_path("en"), "en")
    assert [story_twin(list(s), "en") for s in en.sentences] == [list(s) for s in zh.sentences]
    assert [story_twin(list(s), "zh") for s in zh.sentences] == [list(s) for s in en.sentences]


@pytest.mark.parametrize(
    "words, lang",
    [
        ("the cat likes to", "en"),
        ("the cat likes to catch mice gladly", "en"),
        ("cat likes to catch mice", "en"),
        ("猫 喜欢 抓 大象", "zh"),
    ],
)
def test_words_that_are_not_story_phrases_have_no_twin(words, lang):
    assert story_twin(words.split(), lang) is None


@pytest.mark.parametrize(
    "content, fragment",
    [
        (b"", "no sentences"),
        (b"# only a comment\n\n", "no sentences"),
        (b"\xff\xfe\x00bad", "not UTF-8"),
        (b"a b\n" * 5, "has 5 sentences; at least 20"),
        (b"a b\n", "has 1 sentence; at least 20"),
        ("猫喜欢抓老鼠\n".encode() * 30, "two or more words"),
        (b"a b\n" * 20 + b" ".join([b"a"] * 25) + b".\n", "line 21 has 25 words but the models read at most 24"),
        (b"a\x00b c\n" * 30, "NUL"),
    ],
)
def test_bad_corpus_files_are_refused_with_a_message(tmp_path, content, fragment):
    path = tmp_path / "corpus.txt"
    path.write_bytes(content)
    with pytest.raises(CorpusError, match=fragment):
        load_corpus(path, "zh")


def test_a_line_left_unspaced_among_spaced_ones_is_refused_by_its_number(tmp_path):
    """A Chinese line written without spaces reads as one long word, which teaches nothing."""
    path = tmp_path / "corpus.txt"
    lines = ["# my corpus", "猫 喜欢 抓 老鼠", "狗 喜欢 抓 飞盘"] * 10 + ["熊每天喜欢抓鱼" * 10]
    path.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(CorpusError) as refused:
        load_corpus(path, "zh")
    message = str(refused.value)
    assert f"line {len(lines)}:" in message and "熊每天喜欢抓鱼" in message and "\n" not in message
    assert lines[-1] not in message  # the long line is cut short


@pytest.mark.parametrize(
    "lines, lang",
    [
        (["猫 喜欢 抓 老鼠", "狗 喜欢 抓 飞盘"], "zh"),
        (["the cat likes to catch mice", "does the dog like frisbees"], "en"),
    ],
)
def test_a_corpus_s_closing_marks_are_not_part_of_its_last_words(tmp_path, lines, lang):
    """As on the command line: "猫 喜欢 抓 老鼠。" has the word 老鼠, not 老鼠。"""
    marked, plain = tmp_path / "marked.txt", tmp_path / "plain.txt"
    plain.write_text("\n".join(lines * 10), encoding="utf-8")
    marked.write_text(
        "\n".join(f"{lines[0]}{mark}\n{lines[1]} {mark}" for mark in ("。", ".", "！", "?", "？") * 2), encoding="utf-8"
    )
    assert load_corpus(marked, lang).sentences == load_corpus(plain, lang).sentences


@pytest.mark.parametrize(
    "line, words",
    [
        ("猫 喜欢 抓 老鼠，狗 喜欢 抓 飞盘。", "猫 喜欢 抓 老鼠 ， 狗 喜欢 抓 飞盘"),
        ("“猫” 喜欢 抓 老鼠……", "“ 猫 ” 喜欢 抓 老鼠 ……"),
        ("the cat, the dog; and the fox!?", "the cat , the dog ; and the fox"),
        ("don't take well-known 3.5 or 1,000 snake_case", "don't take well-known 3.5 or 1,000 snake_case"),
    ],
)
def test_a_punctuation_mark_in_a_corpus_line_is_a_word_of_its_own(tmp_path, line, words):
    """A teacher's sentences have commas: "老鼠，狗" is three words, not one word the story never uses."""
    path = tmp_path / "corpus.txt"
    path.write_text("\n".join([line] * 20), encoding="utf-8")
    lang = "zh" if "猫" in line else "en"
    assert load_corpus(path, lang).sentences[0] == tuple(words.split())


def test_a_sentence_splits_at_punctuation_as_its_corpus_does():
    assert Vocab(["猫", "喜欢", "老鼠", "，", "狗"], "zh").split("猫喜欢老鼠，狗喜欢猫", 24) == [
        "猫",
        "喜欢",
        "老鼠",
        "，",
        "狗",
        "喜欢",
        "猫",
    ]
    assert Vocab(["the", "cat", ",", "dog"], "en").split("The cat, the dog.", 24) == ["the", "cat", ",", "the", "dog"]


def test_a_line_of_one_word_and_a_mark_is_still_refused(tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_text("\n".join(["猫 喜欢 抓 老鼠"] * 20 + ["猫喜欢抓老鼠，", "……"]), encoding="utf-8")
    with pytest.raises(CorpusError, match='line 21: "猫喜欢抓老鼠" is one word'):
        load_corpus(path, "zh")
    path.write_text("\n".join(["猫 喜欢 抓 老鼠"] * 20 + ["……"]), encoding="utf-8")
    with pytest.raises(CorpusError, match='line 21: "……" has no word'):
        load_corpus(path, "zh")


def test_a_corpus_saved_by_windows_notepad_reads_like_any_other(tmp_path):
    lines = ["猫 喜欢 抓 老鼠", "狗 喜欢 抓 飞盘"] * 10
    plain, windows = tmp_path / "plain.txt", tmp_path / "windows.txt"
    plain.write_text("\n".join(lines), encoding="utf-8")
    windows.write_bytes("\r\n".join(lines).encode("utf-8-sig"))  # byte-order mark, CR LF line ends
    assert load_corpus(windows, "zh").sentences == load_corpus(plain, "zh").sentences


def test_a_missing_corpus_or_a_folder_is_refused(tmp_path):
    with pytest.raises(CorpusError, match="cannot read"):
        load_corpus(tmp_path / "nope.txt", "zh")
    with pytest.raises(CorpusError, match="is a folder"):
        load_corpus(tmp_path, "zh")


@pytest.mark.parametrize(
    "sentence, corpus_lines, lang",
    [
        (None, None, "zh"),  # the story's default
        ("the dog likes to catch frisbees", None, "en"),
        ("狗喜欢抓飞盘", None, "zh"),
        ("the dog likes to catch frisbees", ["the teacher drinks coffee"], "en"),
        (None, ["# 我的语料", "the teacher drinks coffee"], "en"),  # a comment is not a sentence
        ("the teacher", ["老师 喜欢 喝 咖啡"], "zh"),  # the corpus decides
    ],
)
def test_the_language_left_out_is_the_corpus_s_or_else_the_sentence_s(tmp_path, sentence, corpus_lines, lang):
    corpus = None
    if corpus_lines is not None:
        corpus = tmp_path / "corpus.txt"
        corpus.write_text("\n".join(corpus_lines), encoding="utf-8")
    assert default_language(sentence, corpus) == lang


def test_an_unreadable_corpus_leaves_the_language_to_the_sentence(tmp_path):
    assert default_language("the cat", tmp_path / "missing.txt") == "en"
    (tmp_path / "latin1.txt").write_bytes("caf\xe9".encode("latin-1"))
    assert default_language("猫", tmp_path / "latin1.txt") == "zh"

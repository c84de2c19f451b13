"""How a narrated line is read aloud: the terms and numbers a voice would drop or misread, written out.

The Mandarin voice reads only Chinese characters: it drops Latin words ("Query 和 Key" would be read
"和") and reads "0.9926" digit by digit without the point. So a Chinese line has its terms replaced by
their Chinese names and its numbers written in characters; an English word left over (a token of the
translator's English sentence) is read as 这个英文词. The English voice reads numbers itself; its
table only spells out symbols.
"""

from __future__ import annotations

import re

# The explainer's terms, longest first where one contains another.
CHINESE_TERMS = (
    ("KV Cache", "键值缓存"),
    ("√d_k", "根号下键向量的维数"),
    ("d_k", "键向量的维数"),
    ("q·k", "查询向量与键向量的点积"),
    ("one-hot", "独热"),
    ("softmax", "归一化指数函数"),
    ("Transformer", "变换器"),
    ("Attention", "注意力"),
    ("Query", "查询"),
    ("Key", "键"),
    ("RNN", "循环神经网络"),
)
# Single capitals and small letters standing for matrices and vectors (chapters 8, 9 and 11).
CHINESE_LETTERS = {"Q": "查询矩阵", "K": "键矩阵", "V": "值矩阵", "q": "查询向量", "k": "键向量", "N": "若干"}
CHINESE_SYMBOLS = {"→": "到", "×": "乘", "=": "等于", "%": "", "√": "根号"}
ENGLISH_WORD = "这个英文词"

DIGITS = "零一二三四五六七八九"
SMALL_UNITS = ("", "十", "百", "千")
LARGE_UNITS = ("", "万", "亿", "万亿")

NUMBER = re.compile(
    r"(?P<sign>-)?(?P<whole>\d{1,3}(?:,\d{3})+|\d+)(?:\.(?P<fraction>\d+))?"
    r"(?:e(?P<exponent>[-+]?\d+))?(?P<percent>%)?"
)
LATIN = re.compile(r"[A-Za-z][A-Za-z'\-]*")


def chinese_integer(value: int) -> str:
    """An integer in characters, as it is read: 1666 → 一千六百六十六, 10 → 十, 1024 → 一千零二十四."""
    if value == 0:
        return DIGITS[0]
    groups = []
    while value:
        value, group = divmod(value, 10_000)
        groups.append(group)
    words, zero_pending = "", False
    for index in range(len(groups) - 1, -1, -1):
        group = groups[index]
        if group == 0:
            zero_pending = bool(words)
            continue
        if words and (zero_pending or group < 1000):
            words += DIGITS[0]
        words += four_digits(group) + LARGE_UNITS[index]
        zero_pending = False
    return words[1:] if words.startswith("一十") else words


def four_digits(group: int) -> str:
    words, zero = "", False
    for position in range(3, -1, -1):
        digit = group // 10**position % 10
        if digit == 0:
            zero = bool(words)
            continue
        if zero:
            words += DIGITS[0]
            zero = False
        words += ("两" if digit == 2 and position == 3 else DIGITS[digit]) + SMALL_UNITS[position]
    return words


def chinese_number(match: re.Match) -> str:
    """A number as a Chinese reader says it: -0.31 → 负零点三一, 100% → 百分之一百,
    1.4e-14 → 一点四乘十的负十四次方."""
    spoken = chinese_integer(int(match["whole"].replace(",", "")))
    if match["fraction"]:
        spoken += "点" + "".join(DIGITS[int(d)] for d in match["fraction"])
    if match["exponent"]:
        exponent = int(match["exponent"])
        spoken += "乘十的" + ("负" if exponent < 0 else "") + chinese_integer(abs(exponent)) + "次方"
    if match["percent"]:
        spoken = "百分之" + spoken
    return ("负" if match["sign"] else "") + spoken


def spoken_chinese(line: str) -> str:
    for term, name in CHINESE_TERMS:
        line = line.replace(term, name)
    line = NUMBER.sub(chinese_number, line)
    line = LATIN.sub(lambda m: CHINESE_LETTERS.get(m.group(), ENGLISH_WORD), line)
    for symbol, name in CHINESE_SYMBOLS.items():
        line = line.replace(symbol, name)
    return re.sub(r"\s+", "", line)


ENGLISH_TERMS = (
    ("√d_k", "the square root of d k"),
    ("d_k", "d k"),
    ("q·k", "q dot k"),
    ("softmax", "soft max"),
    ("KV Cache", "K V cache"),
    ("→", " to "),
    ("×", " times "),
)
EXPONENT = re.compile(r"(\d(?:\.\d+)?)e(-?)(\d+)")


def spoken_english(line: str) -> str:
    for term, name in ENGLISH_TERMS:
        line = line.replace(term, name)
    line = EXPONENT.sub(lambda m: f"{m[1]} times ten to the {'minus ' if m[2] else ''}{int(m[3])}", line)
    return re.sub(r"\s+", " ", line).strip()


def spoken(line: str, lang: str) -> str:
    """``line`` as the voice for ``lang`` should read it."""
    return spoken_chinese(line) if lang == "zh" else spoken_english(line)

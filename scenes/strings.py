"""Every on-screen and narrated string, per chapter and language. A new language is a new
dictionary here, not a code change; tests check that every language has every key."""

from __future__ import annotations

STRINGS = {
    "zh": {
        "input": "输入层", "query": "Query", "key": "Key", "value": "普通中间层",
        "weighted": "加权的中间层", "following": "后续层", "prediction": "预测", "score": "分数",
        "weight": "权重", "sum": "叠加",
        "ch04.title": "第四章  Attention 的三组节点",
        "ch04.groups": "Attention 在输入层之后插入三组节点，每组都和输入层相连。",
        "ch04.roles": "Query 节点组用来查询，Key 节点组用来被查询，还有一组普通中间层节点。",
        "ch04.flow": "输入层的数值经过各自的连线，传到这三组节点上。",
        "ch04.multiply": "Query 和 Key 的数值不往后传，而是对应相乘……",
        "ch04.sum": "……再加起来（除以 √d_k），得到一个数：{score}。",
        "ch04.weight": "「{word}」前面没有别的词，softmax 把这个数变成权重 {weight}。",
        "ch04.scale": "用这个权重去乘普通中间层的数值。",
        "ch04.done": "Query 和 Key 的使命到此结束。",
        "ch04.follow": "输入层和加权的中间层一起连到后续层，流经网络，得到预测：「{word}」，概率 {p}。",
        "ch05.title": "第五章  每个词一份网络副本",
        "ch05.copies": "推理时，句子里的每个词都有一份完全一样的网络副本。",
        "ch05.keys": "每份副本都从自己的输入算出 Key 和普通中间层。",
        "ch05.query": "当前词「{query}」的 Query，分别与每份副本的 Key 对应相乘再相加。",
        "ch05.softmax": "这些分数经过 softmax，变成加起来等于 1 的权重。",
        "ch05.scale": "每份副本的普通中间层乘以它的权重……",
        "ch05.add": "……再叠加起来，作为最终的中间层数值。",
        "ch05.predict": "后续层据此预测下一个词：「{word}」，概率 {p}。",
        "ch05.focus": "「{key}」是最早输入的词，却得到了最大的权重 {weight}：它的信息没有被稀释。",
        "ch05.focus_other": "权重最大的是「{key}」（{weight}）：当前词最需要它的信息。",
    },
    "en": {
        "input": "input", "query": "Query", "key": "Key", "value": "ordinary hidden",
        "weighted": "weighted hidden", "following": "following layer", "prediction": "prediction",
        "score": "score", "weight": "weight", "sum": "sum",
        "ch04.title": "Chapter 4  Attention's three node groups",
        "ch04.groups": "Attention inserts three node groups after the input layer, each connected to it.",
        "ch04.roles": "The Query group asks, the Key group is asked, and a group of ordinary hidden nodes.",
        "ch04.flow": "The input's values flow along their connections into the three groups.",
        "ch04.multiply": "Query and Key values are not passed on: they are multiplied pair by pair…",
        "ch04.sum": "…and added up (divided by √d_k) into one number: {score}.",
        "ch04.weight": "No word comes before “{word}”, so softmax turns this number into the weight {weight}.",
        "ch04.scale": "The weight multiplies the ordinary hidden values.",
        "ch04.done": "Query and Key have done their job.",
        "ch04.follow": "Input and weighted hidden nodes feed the following layer: the prediction is “{word}”, probability {p}.",
        "ch05.title": "Chapter 5  One network copy per word",
        "ch05.copies": "At inference every word of the sentence has its own identical copy of the network.",
        "ch05.keys": "Each copy computes its Key and ordinary hidden nodes from its own input.",
        "ch05.query": "The Query of the current word “{query}” meets every copy's Key: multiplied pair by pair, added up.",
        "ch05.softmax": "Softmax turns the scores into weights that add up to 1.",
        "ch05.scale": "Each copy's ordinary hidden nodes are multiplied by its weight…",
        "ch05.add": "…and added into one group: the final hidden values.",
        "ch05.predict": "The following layers predict the next word: “{word}”, probability {p}.",
        "ch05.focus": "“{key}” came in first, yet gets the largest weight, {weight}: its information was not diluted.",
        "ch05.focus_other": "The largest weight goes to “{key}” ({weight}): the current word needs it most.",
    },
}


def text(lang: str, name: str, **values) -> str:
    return STRINGS[lang][name].format(**values)

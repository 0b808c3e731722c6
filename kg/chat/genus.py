"""What kind of thing each term is, as its own definitions say: the genus of a definition.

A glossary defines a term by a noun phrase whose last noun says what kind of thing it is, the
words before it how it differs from the others of that kind ("B300：Blackwell 数据中心 GPU；…",
"vLLM：UC Berkeley 开源的 LLM 推理引擎", "GPTQ：基于二阶 Hessian 信息的 PTQ 算法"). When that last
noun is the name of another term, the term is one of that term's kinds: B300 is a GPU, vLLM an
inference engine, GPTQ a post-training quantization method.

This decides one thing: which terms a listing ("有哪些推理引擎", "What GPUs does the glossary
list?") may give as kinds of its class. A definition that opens with a verb ("把模型层切成多个
stage 分布到 GPU", "通过 TP、EP、PP 等把工作拆到多个 GPU") says what the term does, not what it is,
and gives no genus: pipeline parallelism is no GPU. A term merely linked to the class (GPU 节点,
CUDA, a thread "GPU 上最小的执行单元") is not one of its kinds either: its genus is another noun.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from kg.store import Glossary
from kg.textnorm import fold

__all__ = ["CLASS_WORDS", "asks_family", "called_a", "genus_names", "kinds_of", "of_its_kind", "own_account"]

#: The first clause of a definition: up to the first clause mark, colon or " / " (a joint line).
_FIRST_CLAUSE = re.compile(r"[，,。；;（(：:]|\s/\s")
#: A clause that opens with a verb or preposition describes what the term does, not what it is;
#: one that opens with "例如 / 如" lists the term's own kinds ("如 MXFP8、MXFP4、NVFP4").
_VERB_OPENING = re.compile(
    r"^(?:把|将|通过|用|在|让|使|对|从|为|以|当|按|给|由|根据|针对|面向|是|指|即|先|只|例如|比如|如|包括)"
)
#: Verbs that make the clause a sentence about the term, not a noun phrase for it ("滑动窗口注意力让
#: 某些层只看最近一段 token", "每个新 token 依赖之前已经生成的 token"), and formulas ("并发=吞吐×延迟").
_MAIN_VERB = re.compile(r"让|把|将|先|依赖|衡量|接收|加入|放到|压到|没有|=|×")
#: After the last 的, a genus's modifiers are short ("Blackwell 数据中心 GPU", "NVIDIA 的 4 位浮点微缩放
#: 格式", "一系列减少内存流量的优化 attention kernel"); a long run is a sentence that ends on the name.
_MAX_BARE_MODIFIER = 16
#: Nouns that may follow the class name inside the genus without changing it: "GPU 具体型号" are
#: GPUs, "PTQ 算法" / "PTQ 方案" are PTQ methods, "LLM 推理引擎" is an inference engine.
_AFTER_CLASS = r"(?:具体型号|型号|产品|系列|家族|芯片|实现|变体|方法|算法|方案|技术|格式)?"


def _first_clause(text: str) -> str:
    return fold(_FIRST_CLAUSE.split(text, maxsplit=1)[0]).strip()


@lru_cache(maxsize=8)
def _kinds(glossary: Glossary) -> dict[str, tuple[str, ...]]:
    """class term id -> the terms whose definitions name it as their genus, in id order."""
    by_name: dict[str, set[str]] = {}
    for tid, term in glossary.terms.items():
        for n in term.all_names():
            fn = fold(n).strip()
            if len(fn) >= 2:
                by_name.setdefault(fn, set()).add(tid)
    # longest names first, so that "LLM 推理引擎" ends with 推理引擎 (inference engine), not 引擎
    names = sorted(by_name, key=len, reverse=True)
    # a Latin name starts a word ("GPU", not the end of "eGPU"); a Chinese one may follow anything
    # ("LLM 推理引擎" folds to "llm推理引擎")
    alternation = "|".join(
        ("(?<![a-z0-9])" if n[0].isascii() and n[0].isalnum() else "") + re.escape(n) for n in names
    )
    pattern = re.compile(rf"({alternation})\s*{_AFTER_CLASS}$")
    kinds: dict[str, set[str]] = {}
    for tid, term in glossary.terms.items():
        # "ragged paged attention 是 TPU 的注意力 kernel": the genus follows the copula
        own = sorted(
            {re.escape(fold(n).strip()) for n in term.all_names() if len(n) >= 2}, key=len, reverse=True
        )
        copula = re.compile(rf"^(?:{'|'.join(own)})\s*(?:就是|即|是|指)\s*") if own else None
        for d in term.definitions:
            clause = _first_clause(d.text)
            if copula is not None:
                clause = copula.sub("", clause, count=1)
            if len(clause) < 2 or _VERB_OPENING.match(clause):
                continue
            m = pattern.search(clause)
            if m is None or m.group(1) == clause:
                continue  # no genus, or the clause is only the class's name (a synonym, not a kind)
            name, before = m.group(1), clause[: m.start(1)].strip()
            if _MAIN_VERB.search(before) or len(before.rpartition("的")[2]) > _MAX_BARE_MODIFIER:
                continue
            if len(name) < 3 and not name.isascii():
                continue  # two Chinese characters (节点, 延迟) name too many things to be a class
            for cls in by_name[name] - {tid}:
                kinds.setdefault(cls, set()).add(tid)
    return {cls: tuple(sorted(ids)) for cls, ids in kinds.items()}


def kinds_of(glossary: Glossary, term_id: str) -> list[str]:
    """The terms whose definitions say they are a *term_id* ("B300：Blackwell 数据中心 GPU" for GPU)."""
    return list(_kinds(glossary).get(term_id, ()))


def genus_names(glossary: Glossary, term_id: str) -> list[str]:
    """The class terms *term_id*'s definitions name as its genus (B300 → GPU)."""
    return sorted(cls for cls, ids in _kinds(glossary).items() if term_id in ids)


#: English class nouns a question may put after a name ("the vLLM engine", "DeepSeek's GEMM library"),
#: with the words the sources use for them.
CLASS_WORDS: dict[str, tuple[str, ...]] = {
    "library": ("library", "库"),
    "framework": ("framework", "框架"),
    "kernel": ("kernel", "内核", "算子"),
    "format": ("format", "格式"),
    "protocol": ("protocol", "协议"),
    "file": ("file", "文件"),
    "chip": ("chip", "芯片"),
    "runtime": ("runtime", "运行时"),
    "compiler": ("compiler", "编译器"),
    "tool": ("tool", "工具"),
    "toolkit": ("toolkit", "工具"),
    "platform": ("platform", "平台"),
    "interconnect": ("interconnect", "互连", "互联"),
    "metric": ("metric", "指标"),
    "technique": ("technique", "技术"),
    "method": ("method", "方法"),
    "algorithm": ("algorithm", "算法"),
    "standard": ("standard", "标准"),
    "engine": ("engine", "引擎"),
    "server": ("server", "服务器", "服务"),
    "scheduler": ("scheduler", "调度器"),
    "router": ("router", "路由"),
    "network": ("network", "网络"),
    "topology": ("topology", "拓扑"),
    "accelerator": ("accelerator", "加速器"),
    "processor": ("processor", "处理器"),
    "primitive": ("primitive", "原语"),
    "api": ("api", "接口"),
    "interface": ("interface", "接口"),
    "backend": ("backend", "后端"),
    "benchmark": ("benchmark", "基准"),
    "tier": ("tier", "层"),
}


def called_a(glossary: Glossary, term_id: str, word: str) -> bool:
    """*term_id* is a *word* (a key of :data:`CLASS_WORDS`) by its own account: its names or the
    first sentence of one of its definitions use the word or its Chinese form ("vLLM：…LLM 推理引擎"
    is an engine; GEMM, 通用矩阵乘法, is no library)."""
    words = CLASS_WORDS[word]
    return any(w in t for t in own_account(glossary, term_id) for w in words)


def own_account(glossary: Glossary, term_id: str) -> list[str]:
    """What *term_id* says it is, folded: its names and the first sentence of each definition
    (empty for an unknown term)."""
    term = glossary.terms.get(term_id)
    if term is None:
        return []
    return [fold(n) for n in term.all_names()] + [
        fold(re.split(r"[。；;]", d.text)[0]) for d in term.definitions
    ]


def of_its_kind(glossary: Glossary, term_id: str, candidates: Iterable[str]) -> str | None:
    """The one of *candidates* that is of *term_id*'s own kind: the sources contrast it with
    *term_id* (FP8 for FP4), else it shares *term_id*'s genus; None when none or several are."""
    pool = sorted(set(candidates) - {term_id})  # sorted: the same answer in every process
    contrasted = {e.target if e.source == term_id else e.source for e in glossary.confusables(term_id)}
    hits = [t for t in pool if t in contrasted]
    if not hits:
        genus = set(genus_names(glossary, term_id))
        hits = [t for t in pool if genus & set(genus_names(glossary, t))] if genus else []
    return hits[0] if len(hits) == 1 else None


#: "What family of formats does it belong to?", "What's the family of formats it belongs to
#: called?", "它属于哪一类格式？", "NVFP4 是哪个格式家族的？": the class the term is one of.
_ASKS_FAMILY = re.compile(
    r"\b(?:family|class|category|group|umbrella)\b[^?.]*\bbelongs?\b"
    r"|\bbelongs?\s+to\s+(?:which|what)\s+(?:family|class|category|group)"
    r"|\b(?:which|what)\s+(?:family|class|category|group)\b[^?.]*\b(?:is|does)\s+(?:it|this|that)\b"
    r"|属于哪(?:一)?(?:类|种|个(?:家族|类别|系列))|是哪(?:一)?(?:类|个家族|个系列)的"
)


def asks_family(question: str) -> bool:
    """Whether a question asks for the class (family, category) a term belongs to."""
    return bool(_ASKS_FAMILY.search(fold(question)))

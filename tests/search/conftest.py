"""Fixtures for kg.search: a small hand-made bilingual glossary and larger synthetic ones.

The project is not necessarily pip-installed and pytest's default import mode
puts only this directory on ``sys.path``, so the repository root is added here.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from kg.search import LabelMatcher, LexicalIndex, Tokenizer  # noqa: E402

# (term_id, name, kind)
NAMES: list[tuple[str, str, str]] = [
    ("ttft", "Time to first token", "label"),
    ("ttft", "TTFT", "abbr"),
    ("ttft", "首 token 延迟", "label"),
    ("ttft", "首字延迟", "alias"),
    ("ttfb", "Time to first byte", "label"),
    ("ttfb", "TTFB", "abbr"),
    ("tpot", "Time per output token", "label"),
    ("tpot", "TPOT", "abbr"),
    ("tpot", "每 token 输出时间", "label"),
    ("tpot", "ITL", "alias"),
    ("tpot", "Inter-token latency", "alias"),
    ("tensor-parallelism", "Tensor parallelism", "label"),
    ("tensor-parallelism", "TP", "abbr"),
    ("tensor-parallelism", "张量并行", "label"),
    ("pipeline-parallelism", "Pipeline parallelism", "label"),
    ("pipeline-parallelism", "PP", "abbr"),
    ("pipeline-parallelism", "流水线并行", "label"),
    ("expert-parallelism", "Expert parallelism", "label"),
    ("expert-parallelism", "EP", "abbr"),
    ("expert-parallelism", "专家并行", "label"),
    ("kv-cache", "KV cache", "label"),
    ("kv-cache", "KV 缓存", "label"),
    ("paged-attention", "PagedAttention", "label"),
    ("paged-attention", "分页注意力", "label"),
    ("continuous-batching", "Continuous batching", "label"),
    ("continuous-batching", "连续批处理", "label"),
    ("continuous-batching", "动态批处理", "alias"),
    ("continuous-batching", "in-flight batching", "alias"),
    ("speculative-decoding", "Speculative decoding", "label"),
    ("speculative-decoding", "投机解码", "label"),
    ("speculative-decoding", "推测解码", "alias"),
    ("flash-attention", "FlashAttention", "label"),
    ("openai-triton", "OpenAI Triton", "label"),
    ("openai-triton", "Triton", "alias"),
    ("triton-inference-server", "Triton Inference Server", "label"),
    ("triton-inference-server", "Triton", "alias"),
    ("fp8", "FP8", "label"),
    ("fp8", "8 位浮点", "alias"),
    ("int4", "INT4", "label"),
    ("int4", "4 位整数量化", "alias"),
    ("h100", "H100", "label"),
    ("h100", "NVIDIA H100", "alias"),
    ("all-reduce", "All-Reduce", "label"),
    ("all-reduce", "全归约", "label"),
    ("prefill", "Prefill", "label"),
    ("prefill", "预填充", "label"),
]

DOCS: list[tuple[str, str]] = [
    (
        "ttft",
        "TTFT（Time to first token，首 token 延迟）：从请求到达到返回第一个 token 的时间，包含排队和预填充；"
        "流式输出时 TTFT 决定用户感到的等待。",
    ),
    ("ttfb", "TTFB Time to first byte：HTTP 响应第一个字节到达客户端的时间，网络层指标。"),
    ("tpot", "TPOT Time per output token 每 token 输出时间：解码阶段相邻 token 的平均间隔，也叫 ITL。"),
    (
        "tensor-parallelism",
        "Tensor parallelism TP 张量并行：把单层的权重矩阵切分到多张 GPU，每层需要 all-reduce 通信。",
    ),
    (
        "pipeline-parallelism",
        "Pipeline parallelism PP 流水线并行：按层切分模型，不同 GPU 负责不同层，存在流水线气泡。",
    ),
    (
        "expert-parallelism",
        "Expert parallelism EP 专家并行：MoE 模型的专家分布在不同 GPU 上，token 经 all-to-all 路由。",
    ),
    ("kv-cache", "KV cache KV 缓存：缓存注意力的 key 和 value，避免解码时重复计算，显存占用随序列长度增长。"),
    ("paged-attention", "PagedAttention 分页注意力：vLLM 把 KV 缓存按块分页管理，减少显存碎片。"),
    ("continuous-batching", "Continuous batching 连续批处理 in-flight batching：每个迭代步都可加入新请求。"),
    (
        "speculative-decoding",
        "Speculative decoding 投机解码：小模型起草多个 token，大模型一次验证，降低延迟。",
    ),
    ("flash-attention", "FlashAttention：IO 感知的精确注意力算法，分块计算，减少 HBM 读写。"),
    ("openai-triton", "OpenAI Triton：用 Python 编写 GPU kernel 的语言和编译器。"),
    ("triton-inference-server", "Triton Inference Server：NVIDIA 的模型推理服务框架，支持多种后端。"),
    ("fp8", "FP8：8 位浮点格式（E4M3/E5M2），H100 原生支持，用于量化推理。"),
    ("int4", "INT4：4 位整数权重量化，如 AWQ、GPTQ，显著降低显存。"),
    ("h100", "H100：NVIDIA Hopper 架构 GPU，80GB HBM3，支持 FP8 Transformer Engine。"),
    ("all-reduce", "All-Reduce 全归约：集合通信原语，各卡求和后结果广播到所有卡。"),
    ("prefill", "Prefill 预填充：一次处理整个提示词，计算密集，决定 TTFT 的主要部分。"),
]


@pytest.fixture(scope="session")
def names() -> list[tuple[str, str, str]]:
    return list(NAMES)


@pytest.fixture(scope="session")
def docs() -> list[tuple[str, str]]:
    return list(DOCS)


@pytest.fixture(scope="session")
def tokenizer() -> Tokenizer:
    return Tokenizer(name for _, name, _ in NAMES)


@pytest.fixture(scope="session")
def matcher() -> LabelMatcher:
    return LabelMatcher(NAMES)


@pytest.fixture(scope="session")
def index(tokenizer: Tokenizer) -> LexicalIndex:
    return LexicalIndex(DOCS, tokenizer)


_SYLLABLES = ["ka", "to", "ri", "mu", "zen", "lo", "pa", "ex", "qu", "vi", "dra", "no", "sta", "fe"]
_HANZI = "模型推理调度显存算子内核量化蒸馏剪枝缓存批次路由专家张量流水并行通信带宽延迟吞吐解码预填"


def synthetic_names(count: int, seed: int = 7) -> list[tuple[str, str, str]]:
    """*count* deterministic pseudo-names (about half Latin, half Chinese) plus the real ones."""
    rng = random.Random(seed)
    out = list(NAMES)
    kinds = ["label", "label", "abbr", "alias"]
    while len(out) < count:
        n = len(out)
        if n % 2:
            words = [
                "".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(1, 3)))
                for _ in range(rng.randint(1, 3))
            ]
            name = " ".join(words)
        else:
            name = "".join(rng.choice(_HANZI) for _ in range(rng.randint(2, 6)))
        out.append((f"syn-{n}", name, kinds[n % 4]))
    return out


@pytest.fixture(scope="session")
def big_matcher() -> LabelMatcher:
    return LabelMatcher(synthetic_names(3000))

"""The shared relevance set: learners' queries and the page each should find first.

Used by ``tests/test_search_relevance.py`` (on SQLite and on PostgreSQL) and by the search
benchmark (``bench/search.py``), which reports the hit rate at 1 and at 3 per database. The
tree is the curriculum fixture with the few bodies and nodes of :data:`EXTRA_NODES` and
:data:`BODIES` added, since the fixture's chapters are scaffolds: a Russian and a Chinese
chapter, code identifiers and formulas in bodies.
"""

from chapters.models import Node
from chapters.search import answer

__all__ = ["BODIES", "EXTRA_NODES", "QUERIES", "add_relevance_nodes", "found_titles", "hit_rates"]

# (parent's title, title, body) of the chapters added to the curriculum.
EXTRA_NODES = [
    (
        "Transformers and Language Models",
        "Трансформеры и механизм внимания",
        "Нейронные сети с механизмом внимания обрабатывают всю последовательность сразу.",
    ),
    (
        "Training at Scale",
        "张量并行",
        "张量并行把一个层的矩阵乘法拆分到多个设备上，每个设备只保存一部分权重。",
    ),
    (
        "Modeling",
        "Bézier Curves and Splines",
        "A cubic Bézier curve has four control points.",
    ),
]

# Bodies written into chapters of the curriculum, by title.
BODIES = {
    "CUDA Programming": (
        "Copy memory with `cudaMemcpyAsync` on a stream, and wait for the block with "
        "`__syncthreads()` before reading shared memory."
    ),
    "Atomics and Memory Ordering": (
        "An `std::atomic<int>` loaded with `memory_order_acquire` sees every write made "
        "before the matching release."
    ),
    "ML Compiler Foundations": (
        "`torch.compile` traces a model into a graph and hands it to a backend compiler."
    ),
    "Attention": (
        "Scaled dot-product attention computes $\\mathrm{softmax}(QK^T / \\sqrt{d_k}) V$, "
        "a weighted average of the values."
    ),
    "Information Theory": (
        "The entropy of a distribution is $H(p) = -\\sum_x p(x) \\log p(x)$; the "
        "Kullback–Leibler divergence compares two distributions."
    ),
    "Color Theory": "Hue, value and saturation describe a colour; warm colours advance.",
}

# (query, title of the expected first result), by kind of query.
QUERIES = [
    # Exact titles, in any case.
    ("hashing", "Hashing"),
    ("GPU computing", "GPU Computing"),
    ("sql normalization", "sql normalization"),
    ("q-learning", "Q-Learning"),
    ("dns", "DNS, HTTP and TLS"),
    ("pbr", "PBR Materials"),
    # Words of a title, in other forms (stemming).
    ("storyboards", "Storyboarding"),
    ("principal components", "Principal Component Analysis"),
    ("markov decision process", "Markov Decision Processes"),
    ("bellman equation", "Value Functions and Bellman Equations"),
    ("actor critic", "Actor-Critic Methods"),
    ("lock free", "Lock-Free Algorithms"),
    ("support vector machines", "Kernel Methods and Support-Vector Machines"),
    # Prefixes: the last word as typed so far.
    ("backprop", "Backpropagation"),
    ("quant", "Quantization"),
    ("distil", "Knowledge Distillation"),
    ("kitbash", "Kitbashing"),
    ("retopo", "Retopology"),
    ("graph optim", "Graph Optimization and Kernel Fusion"),
    ("eigenval", "Linear Algebra — Eigenvalues and Decompositions"),
    # Phrases.
    ('"kernel fusion"', "Graph Optimization and Kernel Fusion"),
    ('"virtual memory"', "Virtual Memory"),
    ('"edge flow"', "Topology and Edge Flow"),
    ("learning -reinforcement -machine", "Learning Foundations"),
    # Typos.
    ("tranformer", "Transformers"),
    ("backpropogation", "Backpropagation"),
    ("quantizaton", "Quantization"),
    ("reinforcment learning", "Reinforcement Learning"),
    ("convolutonal networks", "Convolutional Neural Networks"),
    ("probabilty", "Probability"),
    ("memory heirarchy", "Caches and Memory Hierarchy"),
    ("tokenizaton", "Tokenization"),
    # British spellings.
    ("quantisation", "Quantization"),
    ("colour theory", "Color Theory"),
    ("language modelling", "Language Modeling"),
    ("tokenisation", "Tokenization"),
    ("convex optimisation", "Optimization — Convex Optimization"),
    ("normalisation", "sql normalization"),
    # Accents.
    ("bezier", "Bézier Curves and Splines"),
    ("BÉZIER curve", "Bézier Curves and Splines"),
    # Cyrillic: case and word forms.
    ("трансформеры", "Трансформеры и механизм внимания"),
    ("ТРАНСФОРМЕРЫ", "Трансформеры и механизм внимания"),
    ("трансформеров", "Трансформеры и механизм внимания"),
    ("механизмом внимания", "Трансформеры и механизм внимания"),
    ("нейронная сеть", "Трансформеры и механизм внимания"),
    # Chinese: substrings of text without spaces.
    ("张量", "张量并行"),
    ("并行", "张量并行"),
    ("矩阵乘法", "张量并行"),
    # Code identifiers.
    ("cudaMemcpyAsync", "CUDA Programming"),
    ("__syncthreads", "CUDA Programming"),
    ("std::atomic", "Atomics and Memory Ordering"),
    ("memory_order_acquire", "Atomics and Memory Ordering"),
    ("torch.compile", "ML Compiler Foundations"),
    # Questions: words no page has all of, and a word in another spelling.
    ("principle component analysis", "Principal Component Analysis"),
    ("threads synchronization", "Synchronization"),
    # Math words and TeX.
    ("softmax", "Attention"),
    ("sqrt d_k", "Attention"),
    ("entropy", "Information Theory"),
    ("kullback leibler", "Information Theory"),
]


def add_relevance_nodes():
    """Add :data:`EXTRA_NODES` and write :data:`BODIES` into the curriculum, through ``save()``."""
    for parent_title, title, body in EXTRA_NODES:
        parent = Node.objects.get(title=parent_title, kind=Node.Kind.SECTION)
        Node(title=title, parent=parent, kind=Node.Kind.CHAPTER, body=body).save()
    for title, body in BODIES.items():
        chapter = Node.objects.get(title=title)
        chapter.body = body
        chapter.save()


def found_titles(query, count=3):
    """Return the first ``count`` titles the search page shows for ``query``.

    As ``chapters.views.search_results``: the results of the query, or of its correction
    (``chapters.search.answer``).
    """
    _parsed, found, _corrected = answer(query)
    return list(found.values_list("title", flat=True)[:count])


def hit_rates(find=found_titles):
    """Return the share of :data:`QUERIES` whose expected title is first, and in the top 3.

    Args:
        find: a function from a query to the titles found, best first (by default
            :func:`found_titles`).

    Returns:
        A pair of floats ``(at_1, at_3)`` between 0 and 1.
    """
    found = [(find(query)[:3], expected) for query, expected in QUERIES]
    at_1 = sum(bool(titles) and titles[0] == expected for titles, expected in found)
    at_3 = sum(expected in titles for titles, expected in found)
    return at_1 / len(QUERIES), at_3 / len(QUERIES)

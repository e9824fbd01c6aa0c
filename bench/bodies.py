"""Chapter bodies for the benchmark: a few KB of Markdown of the kind authors write.

Each body is a run of the blocks below (headings, paragraphs, lists, code, a table, a quote,
math, a callout, links), starting at a different block, so the bodies differ while their
rendered HTML can be computed once per body rather than once per chapter.
"""

__all__ = ["BODY_COUNT", "body"]

BLOCKS = [
    """## Why it matters

A model that trains well can still serve badly. Every extra copy between host and device,
every kernel launch and every synchronisation point adds latency that users notice. This
chapter follows one request through the stack and names the places where time goes, so the
later chapters can remove them one at a time. Read the [profiling guide](https://docs.python.org/3/library/profile.html)
first if `cProfile` is new to you.""",
    """## Key ideas

- **Throughput** is work per second; **latency** is the time one request waits.
- Batching raises throughput and, up to a point, leaves latency alone.
  - Past that point the queue grows and latency climbs without bound.
  - Little's law ties them: $L = \\lambda W$.
- Memory bandwidth, not arithmetic, limits most element-wise kernels.
- Measure before changing anything, and change one thing at a time.""",
    """### A first measurement

```python
import time

def timed(function, *args, repeat=20):
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        function(*args)
        best = min(best, time.perf_counter() - start)
    return best
```

Take the best of several runs: the others measure the machine's noise as much as the code.""",
    """### Costs at a glance

| operation | typical cost | grows with |
| --- | --- | --- |
| kernel launch | 5 µs | number of kernels |
| host to device copy | 12 GB/s | bytes moved |
| L2 cache hit | 200 cycles | working set |
| global memory read | 500 cycles | access pattern |

The table is a rule of thumb; the profiler of your own machine is the authority.""",
    """## Fusing operations

Two element-wise operations in a row read and write the whole tensor twice. Fused, they read
it once and write it once:

$$
T \\approx \\frac{\\text{bytes moved}}{\\text{bandwidth}} + n \\cdot t_{\\text{launch}}
$$

1. Find chains of element-wise operations in the graph.
2. Check that no other operation needs the intermediate result.
3. Emit one kernel for the chain and drop the intermediates.""",
    """!!! tip "Profile first"
    `nsys profile --stats=true python serve.py` shows the gaps between kernels. A gap longer
    than the kernels around it means the host is the bottleneck, not the device.

> Premature optimization is the root of all evil, yet we should not pass up our
> opportunities in that critical 3%. — Donald Knuth""",
    """### In C++

```cpp
__global__ void add_relu(const float* a, const float* b, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = a[i] + b[i];
        out[i] = v > 0.0f ? v : 0.0f;
    }
}
```

One launch and one pass over memory instead of two of each.""",
    """## Exercises

- [x] Time the unfused and the fused version on tensors of 1, 16 and 256 MB.
- [ ] Plot time against size and find where launch overhead stops mattering.
- [ ] Fuse a third operation, LayerNorm, and explain why it is harder[^norm].

[^norm]: LayerNorm needs a reduction over each row before it can scale any element.""",
    """## Further reading

Kernel
:   A function that runs on the device, once per thread of a grid.

Roofline
:   A plot of attainable performance against arithmetic intensity; see the
    [original paper](https://people.eecs.berkeley.edu/~kubitron/cs252/handouts/papers/RooflineVyNoYellow.pdf).

The next chapter turns from single kernels to whole graphs and the compilers that schedule
them, starting from the ideas of [TVM](https://tvm.apache.org/) and
[XLA](https://openxla.org/xla).""",
]

# Blocks per body: about 3 KB of Markdown.
BLOCKS_PER_BODY = 8
BODY_COUNT = len(BLOCKS)


def body(number):
    """Return body number ``number`` (0 to ``BODY_COUNT - 1``) as Markdown.

    Args:
        number: which rotation of the blocks to start from.

    Returns:
        ``BLOCKS_PER_BODY`` consecutive blocks, wrapping around, separated by blank lines.
    """
    return "\n\n".join(BLOCKS[(number + i) % BODY_COUNT] for i in range(BLOCKS_PER_BODY)) + "\n"

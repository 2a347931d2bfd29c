"""Inputs are generated in bounded memory and time, whatever the suite's literals hold: a real
suite's 20-item list literal once made the host materialise ~10^6 second-round inputs (23 GB)."""

import time
import tracemalloc

from prism_lsp.witness.inputs import MAX_INPUTS, generate


def _bounded(seed_args: tuple) -> list[tuple]:
    dictionary = {str: ["glass", "ss", "ies"], int: [0, 1, 2, 3, 10]}
    tracemalloc.start()
    start = time.perf_counter()
    try:
        inputs = generate([seed_args, ("glass",)], dictionary)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    elapsed = time.perf_counter() - start
    assert peak < 64 * 2**20, f"peak {peak / 2**20:.0f} MB"
    assert elapsed < 20, f"{elapsed:.1f} s"
    return inputs


def test_a_twenty_item_list_literal_gives_bounded_inputs():
    inputs = _bounded((list(range(20)), "w"))
    assert (list(range(20)), "w") in inputs and ("glass",) in inputs  # the suite's own calls stay
    assert len(inputs) <= MAX_INPUTS + 80 + 2
    # Mutations of both seeds are there, not only of the first one.
    assert any(a != (list(range(20)), "w") and len(a) == 2 for a in inputs)
    assert any(len(a) == 1 and a != ("glass",) for a in inputs)


def test_a_two_hundred_item_list_literal_gives_bounded_inputs():
    inputs = _bounded(([f"w{i}" for i in range(200)], 3))
    assert ("glass",) in inputs and len(inputs) <= MAX_INPUTS + 80 + 2
    assert any(len(a) == 2 and a[0] == [] for a in inputs)  # its smallest mutations are probed

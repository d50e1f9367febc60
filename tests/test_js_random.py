"""The views' JavaScript random heads against numpy, PyTorch and :func:`mha.toy.random_heads`.

``mha_views.mjs`` redraws the book's random heads in the reader's browser, for any seed, so
each of its three steps is checked here against the library it ports, by that library's own
code: ``seedSequenceState`` against ``np.random.SeedSequence``, the ``MT19937`` engine
against numpy's Mersenne Twister (``MT19937._legacy_seeding``, the same ``init_genrand``)
and ``torch.rand``, ``randn`` against ``torch.randn``, and ``randomHeads`` against
``mha.toy.random_heads`` over every ``h`` and ``d_k`` in 1..9. Integers must agree exactly,
floats to 1e-12 (in practice about 1e-15: the sines, cosines and logs of Node and of
PyTorch's C library may differ in the last bit). Node runs the module through
``tests/js/run_module.mjs``; without Node the tests fail and say so.
"""

from __future__ import annotations

import json
import shutil
import subprocess

import numpy as np
import pytest
import torch

from mha import toy
from tests.test_js_module import ROOT, f64, run_js, values

JS_MODULE = ROOT / "src" / "mha" / "views" / "static" / "mha_views.mjs"
TOL = 1e-12  # issue 22: max abs error of the JavaScript random numbers
SEEDS = [*range(51), 2**31 - 1, 2**32 - 1, 2**32 + 5, 10**12, 2**53 - 1]
WIDTHS = range(1, 10)  # every h and d_k of the chapters' sliders


def seed_keys() -> list[list[int]]:
    """Keys as mha.seeds.generator gets them, and some that take numpy's other branches."""
    keys = [[s, i, d_k, 9] for s in SEEDS for i in (0, 8) for d_k in (1, 9)]
    keys += [[0], [2**32], [5, 2**40 + 3], [1, 2, 3, 4, 5, 6], [7, 2**33, 0, 12, 2**52 + 9]]
    return keys  # 6 and 5 keys: more words than the pool of 4; >= 2**32: several words


def test_seed_sequence_state_is_numpy_seed_sequence() -> None:
    keys = seed_keys()
    got = values(run_js([["seedSequenceState", [k, 6]] for k in keys]))
    want = [np.random.SeedSequence(k).generate_state(6).tolist() for k in keys]
    assert got == want
    assert len({tuple(w) for w in want}) == len(keys)  # distinct keys, distinct states


# Seeds of the engine: edges of 32 bits, and seeds as mha.seeds.generator makes them.
def test_keys_may_be_bigints() -> None:
    """Keys beyond 2^53 travel as BigInts (JSON cannot carry them to run_module.mjs)."""
    keys = [[10**20, 2**64 - 1, 3], [2**53 + 1, 0], [0, 2**32]]
    node = shutil.which("node")
    if node is None:
        pytest.fail("Node.js 20 is needed to test mha_views.mjs: apt-get install nodejs")
    js = "".join(f"[{', '.join(f'{k}n' for k in key)}]," for key in keys)
    script = (
        f"import {{ seedSequenceState }} from {json.dumps(JS_MODULE.as_uri())};"
        f"console.log(JSON.stringify([{js}].map((k) => seedSequenceState(k, 3))));"
    )
    done = subprocess.run(
        [node, "--input-type=module", "-e", script], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    want = [np.random.SeedSequence(k).generate_state(3).tolist() for k in keys]
    assert json.loads(done.stdout) == want


MT_SEEDS = [0, 1, 5489, 2**31 - 1, 2**32 - 1]
MT_SEEDS += [int(np.random.SeedSequence([s]).generate_state(1)[0]) for s in range(8)]


def numpy_mt_draws(seed: int, n: int) -> list[int]:
    """The first ``n`` words of numpy's Mersenne Twister seeded by init_genrand(seed)."""
    bits = np.random.MT19937(0)
    bits._legacy_seeding(seed)  # init_genrand(seed), as torch's manual_seed
    return bits.random_raw(n).tolist()


def test_mt19937_draws_are_numpys_mersenne_twister() -> None:
    n = 1500  # past the second twist of the 624 words
    got = values(run_js([["MT19937#random", [[s], n]] for s in MT_SEEDS]))
    for s, draws in zip(MT_SEEDS, got, strict=True):
        assert draws == numpy_mt_draws(s, n), s


def test_random64_is_two_draws_high_first() -> None:
    got = values(run_js([["MT19937#random64", [[s], 700]] for s in MT_SEEDS]))
    for s, draws in zip(MT_SEEDS, got, strict=True):
        raw = numpy_mt_draws(s, 1400)
        assert [int(d) for d in draws] == [
            hi << 32 | lo for hi, lo in zip(raw[::2], raw[1::2], strict=True)
        ]


BIG_SEEDS = [*MT_SEEDS, 2**32, 2**32 + 5, 10**12, 2**53 - 1]  # torch keeps the low 32 bits


def test_uniform_is_torch_rand_float64_exactly() -> None:
    got = values(run_js([["MT19937#uniform", [[s], 800]] for s in BIG_SEEDS]))
    for s, draws in zip(BIG_SEEDS, got, strict=True):
        g = torch.Generator().manual_seed(s)
        assert f64(draws).equal(torch.rand(800, generator=g, dtype=torch.float64)), s


SHAPES = [[n] for n in range(1, 50)] + [[3, 9, 1], [3, 4, 1], [3, 4, 4], [3, 16, 9], [2, 3, 5, 7]]


def test_randn_is_torch_randn_float64() -> None:
    """Sizes below 16 (pairs), multiples of 16, and the rest (the last block drawn again)."""
    cases = [(shape, s) for shape in SHAPES for s in BIG_SEEDS[::3]]
    got = values(run_js([["randn", [shape, s]] for shape, s in cases]))
    worst = 0.0
    for (shape, s), x in zip(cases, got, strict=True):
        g = torch.Generator().manual_seed(s)
        want = torch.randn(*shape, generator=g, dtype=torch.float64)
        assert list(f64(x).shape) == shape
        worst = max(worst, (f64(x) - want).abs().max().item())
    assert worst <= TOL, worst
    print(f"randn: max abs error {worst:.3g} over {len(cases)} tensors")


def heads_cases() -> list[tuple[int, int, int, int]]:
    """(h, d_k, seed, d_model): every h, d_k at d_model 9 for every seed; 4, 12, 16 for some."""
    cases = [(h, d_k, s, 9) for s in SEEDS for h in WIDTHS for d_k in WIDTHS]
    few = [*range(4), 2**32 + 5, 10**12]
    cases += [(h, d_k, s, d) for d in (4, 12, 16) for s in few for h in WIDTHS for d_k in WIDTHS]
    return cases


@pytest.mark.slow
def test_random_heads_are_mha_toy_random_heads() -> None:
    """3 * d_model * d_k numbers a head: 27 d_k (never a multiple of 16), 12 d_k (12: below
    16), 36 d_k (a multiple of 16 at d_k = 4, 8) and 48 d_k (always one)."""
    cases = heads_cases()
    worst, largest = 0.0, 0.0
    for start in range(0, len(cases), 1000):  # one Node process a thousand settings
        batch = cases[start : start + 1000]
        calls = [["randomHeads", [h, d_k, s, d, toy.RANDOM_SCALE]] for h, d_k, s, d in batch]
        for (h, d_k, s, d), got in zip(batch, values(run_js(calls)), strict=True):
            want = toy.random_heads(h, d_k, seed=s, d_model=d)  # 3 x (h, d_model, d_k)
            for name, w in zip(("W_q", "W_k", "W_v"), want, strict=True):
                x = f64(got[name])
                assert x.shape == w.shape, (name, x.shape, w.shape)
                worst = max(worst, (x - w).abs().max().item())
                largest = max(largest, w.abs().max().item())
    assert worst <= TOL, worst
    assert largest > 5 * TOL  # the weights compared are not all (near) zero
    print(f"randomHeads: max abs error {worst:.3g} over {len(cases)} settings")


def test_a_head_added_keeps_the_others_in_javascript() -> None:
    seeds = [0, 7, 2**32 + 5]
    calls = [["randomHeads", [h, 3, s, 9, toy.RANDOM_SCALE]] for s in seeds for h in (3, 4)]
    got = values(run_js(calls))
    for three, four in zip(got[::2], got[1::2], strict=True):
        for name in ("W_q", "W_k", "W_v"):
            assert four[name][:3] == three[name]
            assert four[name][3] not in three[name]


def test_the_scale_and_the_default_width_are_used() -> None:
    one, half, split = values(
        run_js(
            [
                ["randomHeads", [3, 3, 5, 9, 1.0]],
                ["randomHeads", [3, 3, 5, 9, 0.5]],
                ["randomHeads", [3, None, 5, 9, 1.0]],
            ]
        )
    )
    assert (f64(half["W_k"]) == 0.5 * f64(one["W_k"])).all()
    assert split == one  # d_k = d_model / h = 3
    assert (f64(one["W_v"]) - toy.random_heads(3, seed=5)[2] / toy.RANDOM_SCALE).abs().max() < 1e-12


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (["randomHeads", [3, 3, -1, 9, 0.6]], "a seed key must be an integer >= 0"),
        (["randomHeads", [3, 3, 0.5, 9, 0.6]], "a seed key must be an integer >= 0"),
        (["randomHeads", [0, 3, 0, 9, 0.6]], "h must be an integer >= 1, got 0"),
        (["randomHeads", [2, None, 0, 9, 0.6]], "cannot split d_model = 9 into h = 2"),
        (["randomHeads", [2, 3, 0, 9, None]], "scale must be a finite number"),
        (["randn", [[3, 0], 1]], "shape[1] must be an integer >= 1, got 0"),
        (["randn", [[], 1]], "shape must be a non-empty array"),
        (["seedSequenceState", [[], 1]], "keys must be a non-empty array"),
    ],
)
def test_bad_arguments_are_named(call: list, message: str) -> None:
    [result] = run_js([call])
    assert message in result.get("error", ""), result

"""Does a compiled kernel pay? The sparse gradient product ``X^T R`` in numba against scipy's.

The private Frank-Wolfe step on a sparse design is one product ``X^T R`` (its largest part:
about 40% of a ``K = 20`` step on Dorothea) plus numpy passes over the ``(m, K)`` scores and
weights. This script measures the product as a numba kernel (``@njit(cache=True)``, CSC
columns, each column's dot products with the ``K`` columns of ``R`` accumulated in the
order scipy's kernel adds them) against the faster of scipy's two kernels, on the
benchmark's sparse design (20000 x 20000, density 1e-3) and Dorothea, ``K = 1`` and
``K = 20``: CPU time of one process, ``--rounds`` paired rounds (scipy's products right
before numba's), median and spread of the speed-up; the first call's time (compilation, or
loading numba's cache) and the largest relative difference from scipy's product.

numba is not a dependency of the project (this measurement is why): install it beside the
pins to rerun, ``pip install numba==0.68.1``.

Usage: ``python benchmarks/bench_compiled.py [--rounds R] [--json PATH]`` (one BLAS
thread); ``--json`` writes the section ``compiled`` of a record file (``_record.py``).
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from _record import Record
from bench_frank_wolfe import _dorothea, _sparse_problem


def _kernels():
    from numba import njit

    @njit(cache=True, nogil=True)
    def product_one(indptr, indices, data, r, out):
        for j in range(indptr.size - 1):
            total = 0.0
            for q in range(indptr[j], indptr[j + 1]):
                total += data[q] * r[indices[q]]
            out[j] = total
        return out

    @njit(cache=True, nogil=True)
    def product_many(indptr, indices, data, R, out):
        columns = R.shape[1]
        total = np.empty(columns)
        for j in range(indptr.size - 1):
            total[:] = 0.0
            for q in range(indptr[j], indptr[j + 1]):
                value = data[q]
                row = R[indices[q]]
                for k in range(columns):
                    total[k] += value * row[k]
            out[j, :] = total
        return out

    return product_one, product_many


def _cpu_per_call(fn, repeat):
    start = time.process_time()
    for _ in range(repeat):
        fn()
    return (time.process_time() - start) / repeat


def _measure(label, X, K, rounds, kernels, rng):
    X_csc = X.tocsc()
    X_csc.sort_indices()
    forms = (X_csc.T, X.tocsr().T)  # the engine's two scipy forms (transposed CSC, CSR)
    n, p = X.shape
    R = rng.normal(size=(n, K))
    one, many = kernels
    if K == 1:
        r, out = R[:, 0].copy(), np.empty(p)
        compiled = lambda: one(X_csc.indptr, X_csc.indices, X_csc.data, r, out)  # noqa: E731
    else:
        out = np.empty((p, K))
        compiled = lambda: many(X_csc.indptr, X_csc.indices, X_csc.data, R, out)  # noqa: E731
    start = time.process_time()
    compiled()
    first = time.process_time() - start
    reference = np.asarray(forms[0] @ R).reshape(out.shape)
    rel_err = float(np.abs(out - reference).max() / np.abs(reference).max())
    repeat = 30 if K == 1 else 10
    ratios, scipy_ms, numba_ms = [], [], []
    for _ in range(rounds):
        fastest = min(_cpu_per_call(lambda f=f: f @ R, repeat) for f in forms)
        ours = _cpu_per_call(compiled, repeat)
        ratios.append(fastest / ours)
        scipy_ms.append(1e3 * fastest)
        numba_ms.append(1e3 * ours)
    case = {"scipy_ms": float(np.median(scipy_ms)), "numba_ms": float(np.median(numba_ms)),
            "speed_up": float(np.median(ratios)), "speed_up_min": float(min(ratios)),
            "speed_up_max": float(max(ratios)), "rel_err": rel_err, "first_call_s": first}
    print(f"  {label} K={K}: scipy {case['scipy_ms']:.3f} ms, numba {case['numba_ms']:.3f} ms, "
          f"speed-up {case['speed_up']:.2f} (rounds {min(ratios):.2f}-{max(ratios):.2f}), "
          f"relative difference {rel_err:.1e}, first call {first:.2f} s", flush=True)
    return case


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--dorothea", type=Path, default=Path("/work/shared/data/dorothea"))
    parser.add_argument("--json", type=Path, default=None, help="record file to update")
    parser.add_argument("--section", default="compiled")
    args = parser.parse_args(argv)
    start = time.process_time()
    import numba
    record = Record(args.section)
    record.data["numba"] = numba.__version__
    record.data["import_s"] = time.process_time() - start
    kernels = _kernels()
    rng = np.random.default_rng(args.seed)
    designs = [("sparse", _sparse_problem(20000, 20000, 1e-3, rng)[0])]
    if args.dorothea.is_dir():
        designs.append(("Dorothea", _dorothea(args.dorothea)[0]))
    cases = {}
    with threadpool_limits(limits=1):
        for label, X in designs:
            for K in (1, 20):
                cases[f"{label}, K={K}"] = _measure(label, X, K, args.rounds, kernels, rng)
    record.data["cases"] = cases
    if args.json is not None:
        record.save(args.json, 1)


if __name__ == "__main__":
    main()

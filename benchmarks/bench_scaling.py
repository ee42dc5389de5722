"""How the private Frank-Wolfe step and the certified solve scale with n and p (CPU seconds).

Sparse CSR designs with entries uniform on [-1, 1] at density ``--density`` (default 2e-3)
and 20 informative columns, logistic loss, ``lam = 10`` with the intercept column inside
the ball (as the estimators pose it): ``n`` from 1000 to 8000 at ``p = 20000``, and ``p``
from 5000 to 320000 at ``n = 2000``. Per design:

- the private Frank-Wolfe step (``K = 1``, report-noisy-min at Talwar et al.'s scale for
  ``epsilon = 1``, ``T = --n-iter`` steps) in ms, and over one product ``X^T r``;
- the working-set certified solve (``solve_working_set``, ``tol = 1e-10`` of ``L(0)``).

No targets: the page plots the two curves. Usage:
``python benchmarks/bench_scaling.py [--json PATH]`` (section ``scaling``).
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

from _record import Record
from dplasso.optim import LogisticLoss, frank_wolfe, solve_working_set
from dplasso.privacy.selection import report_noisy_min

LAM = 10.0


def _problem(n, p, density, rng):
    X = sp.random(n, p, density=density, format="csr", random_state=rng,
                  data_rvs=lambda k: rng.uniform(-1.0, 1.0, k))
    w = np.zeros(p)
    w[:20] = rng.choice([-1.0, 1.0], 20) * 2.0
    y = (rng.uniform(size=n) < 1.0 / (1.0 + np.exp(-(X @ w)))).astype(float)
    return sp.hstack([X, np.ones((n, 1))], format="csr"), y


def _cpu(fn):
    start = time.process_time()
    out = fn()
    return out, time.process_time() - start


def _measure(n, p, density, n_iter, rng):
    X, y = _problem(n, p, density, rng)
    r = rng.normal(size=(n, 1))
    product = min(np.median([_cpu(lambda M=M: M @ r)[1] for _ in range(20)])
                  for M in (X.T, X.tocsc().T))
    scale = LAM * np.sqrt(8 * n_iter * np.log(n**2)) / n

    def select(scores, generator):
        return report_noisy_min(scores, scale, generator)

    _, seconds = _cpu(lambda: frank_wolfe(LogisticLoss(), X, y, LAM, n_iter, select, rng=0))
    solution, solve_seconds = _cpu(lambda: solve_working_set(LogisticLoss(), X, y, LAM))
    row = {"n": n, "p": p, "nnz": int(X.nnz), "step_ms": 1e3 * seconds / n_iter,
           "step_over_product": seconds / n_iter / product, "product_ms": 1e3 * product,
           "certified_s": solve_seconds, "certified": bool(solution.converged),
           "support": int(np.count_nonzero(solution.w[:-1]))}
    print(f"  n {n:6d}  p {p:7d}  nnz {X.nnz:8d}: step {row['step_ms']:7.3f} ms "
          f"({row['step_over_product']:.2f} products), certified solve "
          f"{solve_seconds:7.3f} s (converged {solution.converged}, support "
          f"{row['support']})", flush=True)
    return row


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--density", type=float, default=2e-3)
    parser.add_argument("--n-iter", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--blas-threads", type=int, default=1)
    parser.add_argument("--json", type=Path, default=None, help="record file to update")
    args = parser.parse_args(argv)
    record = Record("scaling")
    rng = np.random.default_rng(args.seed)
    with threadpool_limits(limits=args.blas_threads):
        print(f"scaling in n (p = 20000), density {args.density:g}:", flush=True)
        record.data["in_n"] = [_measure(n, 20_000, args.density, args.n_iter, rng)
                               for n in (1000, 2000, 4000, 8000)]
        print(f"scaling in p (n = 2000), density {args.density:g}:", flush=True)
        record.data["in_p"] = [_measure(2000, p, args.density, args.n_iter, rng)
                               for p in (5000, 20_000, 80_000, 320_000)]
    record.data["density"] = args.density
    record.data["n_iter"] = args.n_iter
    if args.json is not None:
        record.save(args.json, args.blas_threads)


if __name__ == "__main__":
    main()

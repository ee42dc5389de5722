"""Frank-Wolfe engine timings, measured side by side in one run (CPU seconds, one process).

Problems: a dense design (5000 x 2000), the benchmark's sparse CSR design (20000 x 20000,
density 1e-3) and Dorothea (``/work/shared/data/dorothea``, 800 x 88119 binary, with the
intercept column the estimators append: 88120 columns, 176240 candidates per step).
Logistic loss, ``lam = 5``, private selection ``report_noisy_min`` at Talwar et al.'s
Laplace scale for ``epsilon = 1``, ``delta = 1/n**2`` (the estimators' default selection).

Per problem:

(a) batching: ``K = 20`` trials in one run against 20 sequential ``K = 1`` runs, paired in
    ``--rounds // 2`` rounds (median and spread; targets: dense >= 3x, the sparse design
    >= 2x, retired by issue 24, see ``bench_compiled.py``; Dorothea printed), beside the same
    ratio for the gradient product alone (20 products ``X^T r`` over one ``X^T R``), and
    Dorothea's CPU time per trial and step at ``K = 20`` (target <= 0.5 ms, retired too);
(b) step cost: private Frank-Wolfe CPU time per step over the CPU time of one gradient
    product ``X^T r`` (``K = 1``; ``X^T R`` for ``K = 20``), the fastest of the forms the
    engine could use, products and runs timed back to back in ``--rounds`` pairs (median).
    Targets: ``K = 1`` <= 1.5 on all three; dense ``K = 20`` <= 1.5;

plus, to show where time goes, the same ratio with exact (argmin) selection and the cost of
the private selector alone on ``(2p, K)`` scores.

Usage: ``python benchmarks/bench_frank_wolfe.py [--quick] [--rounds R] [--json PATH]``
(one BLAS thread unless ``--blas-threads``; the setting is printed). ``--json`` writes the
section ``frank_wolfe`` (or ``--section``) of a record file (``benchmarks/_record.py``).
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from threadpoolctl import threadpool_info, threadpool_limits

from _record import Record
from dplasso.optim import LogisticLoss, exact_select, frank_wolfe
from dplasso.privacy.selection import report_noisy_min

N_TRIALS = 20
LAM = 5.0


def _private_selector(scale):
    def select(scores, rng):
        return report_noisy_min(scores, scale, rng)

    return select


def _dense_problem(n, p, rng):
    X = rng.uniform(-1.0, 1.0, size=(n, p))
    return X, _labels(X, rng)


def _sparse_problem(n, p, density, rng):
    X = sp.random(n, p, density=density, format="csr", random_state=rng,
                  data_rvs=lambda k: rng.uniform(-1.0, 1.0, k))
    return X, _labels(X, rng)


def _dorothea(folder):
    X = sp.load_npz(folder / "dorothea_train.npz").astype(np.float64).tocsr()
    y = np.load(folder / "labels_train.npy").astype(np.float64)
    ones = sp.csr_matrix(np.ones((X.shape[0], 1)))
    return sp.hstack([X, ones], format="csr"), y


def _labels(X, rng):
    w = np.zeros(X.shape[1])
    w[:20] = rng.choice([-1.0, 1.0], 20) * 2.0
    return (rng.uniform(size=X.shape[0]) < 1.0 / (1.0 + np.exp(-(X @ w)))).astype(float)


def _cpu(fn):
    """CPU seconds (all threads of this process) of one call ``fn()``."""
    start = time.process_time()
    fn()
    return time.process_time() - start


def _median_cpu(fn, repeat):
    """Median CPU seconds of ``fn()`` over ``repeat`` calls, after one warm-up."""
    fn()
    return float(np.median([_cpu(fn) for _ in range(repeat)]))


def _paired_ratio(fw_run, product, n_iter, rounds):
    """Median over rounds of (FW run time) / (n_iter gradient products), back to back, and
    the (lowest, highest) ratio over the rounds.

    The products are discarded as they come (keeping them would time page faults of fresh
    memory). Pairing each run with its own products keeps the ratio honest when other jobs
    load the machine unevenly over time.
    """
    def products():
        for _ in range(n_iter):
            product()

    ratios = []
    for _ in range(rounds):
        ratios.append(_cpu(fw_run) / _cpu(products))
    return float(np.median(ratios)), (float(min(ratios)), float(max(ratios)))


def _bench(label, X, y, n_iter, scale, seed, rounds, record, targets):
    loss = LogisticLoss()
    n, p = X.shape
    rng = np.random.default_rng(seed)
    r = rng.normal(size=(n, 1))
    R = rng.normal(size=(n, N_TRIALS))
    kind = f"{X.format.upper()} nnz={X.nnz}" if sp.issparse(X) else "dense"
    print(f"\n== {label}: X {n} x {p}, {kind}, T={n_iter}, K={N_TRIALS}, "
          f"Laplace scale {scale:.3g} ==", flush=True)
    # One gradient product in every form the engine could use; the fastest is the
    # denominator. Dense: X.T @ R and (R.T @ X).T; sparse: the transposed CSR and CSC.
    if sp.issparse(X):
        forms = {f"{fmt.upper()}.T @ r": (lambda v, M=X.asformat(fmt).T: M @ v)
                 for fmt in ("csr", "csc")}
    else:
        forms = {"X.T @ r": lambda v: X.T @ v, "(r.T @ X).T": lambda v: (v.T @ X).T}
    xtr = {name: _median_cpu(lambda f=f: f(r), 30) for name, f in forms.items()}
    xtR = {name: _median_cpu(lambda f=f: f(R), 10) for name, f in forms.items()}
    for name in forms:
        print(f"  {name:12s} (CPU ms): K=1 {xtr[name] * 1e3:8.3f},  K={N_TRIALS} "
              f"{xtR[name] * 1e3:8.3f}", flush=True)
    fastest_r = forms[min(xtr, key=xtr.get)]
    fastest_R = forms[min(xtR, key=xtR.get)]
    select = _private_selector(scale)

    def run(n_trials, selector, trial_seed=seed):
        return frank_wolfe(loss, X, y, LAM, n_iter, selector, n_trials=n_trials,
                           rng=np.random.default_rng(trial_seed))

    run(1, select)  # warm-up
    speed_ups, per_trial_ms = [], []
    for _ in range(max(1, rounds // 2)):  # paired: each batched run beside its 20 single runs
        batched = _cpu(lambda: run(N_TRIALS, select))
        sequential = _cpu(lambda: [run(1, select, seed + 1 + k) for k in range(N_TRIALS)])
        speed_ups.append(sequential / batched)
        per_trial_ms.append(1e3 * batched / (n_iter * N_TRIALS))
    speed_up = float(np.median(speed_ups))
    speed_spread = (float(min(speed_ups)), float(max(speed_ups)))
    trial_ms = (float(np.median(per_trial_ms)), (min(per_trial_ms), max(per_trial_ms)))
    amortisation = N_TRIALS * min(xtr.values()) / min(xtR.values())
    print(f"  (a) batched K={N_TRIALS}: {batched:7.2f} s   sequential {N_TRIALS} x K=1: "
          f"{sequential:7.2f} s   speed-up {speed_up:.2f} (the product alone: "
          f"{amortisation:.2f})", flush=True)
    step_1, spread_1 = _paired_ratio(lambda: run(1, select), lambda: fastest_r(r), n_iter,
                                     rounds)
    step_K, spread_K = _paired_ratio(lambda: run(N_TRIALS, select), lambda: fastest_R(R),
                                     n_iter, rounds)
    exact_1, _ = _paired_ratio(lambda: run(1, exact_select), lambda: fastest_r(r), n_iter,
                               rounds)
    exact_K, _ = _paired_ratio(lambda: run(N_TRIALS, exact_select), lambda: fastest_R(R),
                               n_iter, rounds)
    print(f"  (b) private FW step / one X^T r, K=1: {step_1:.2f};  / one X^T R, "
          f"K={N_TRIALS}: {step_K:.2f}", flush=True)
    print(f"      exact-selection FW step, K=1: {exact_1:.2f};  K={N_TRIALS}: {exact_K:.2f}",
          flush=True)
    scores_1 = rng.normal(size=(2 * p, 1)) * scale
    scores_K = rng.normal(size=(2 * p, N_TRIALS)) * scale
    select_1 = _median_cpu(lambda: select(scores_1, rng), 20) / _median_cpu(
        lambda: fastest_r(r), 30)
    select_K = _median_cpu(lambda: select(scores_K, rng), 5) / _median_cpu(
        lambda: fastest_R(R), 10)
    print(f"      private selector alone on (2p, K) scores / one product, K=1: "
          f"{select_1:.2f};  K={N_TRIALS}: {select_K:.2f}", flush=True)
    record.data[label] = {
        "n": n, "p": p, "nnz": int(X.nnz) if sp.issparse(X) else n * p, "n_iter": n_iter,
        "laplace_scale": scale, "product_ms": {"1": 1e3 * min(xtr.values()),
                                               str(N_TRIALS): 1e3 * min(xtR.values())},
        "batched_s": batched, "sequential_s": sequential, "batching_speed_up": speed_up,
        "batching_speed_up_spread": speed_spread,
        "step_over_product": {"1": step_1, str(N_TRIALS): step_K},
        "step_over_product_spread": {"1": spread_1, str(N_TRIALS): spread_K},
        "exact_step_over_product": {"1": exact_1, str(N_TRIALS): exact_K},
        "selector_over_product": {"1": select_1, str(N_TRIALS): select_K},
    }
    record.data[label]["step_per_trial_ms"] = {str(N_TRIALS): trial_ms[0]}
    for name, (value, spread), threshold, better in targets(
            (speed_up, speed_spread), (step_1, spread_1), (step_K, spread_K), trial_ms):
        record.target(name, value, threshold, better, spread=spread)


def _talwar_scale(n, n_iter, epsilon=1.0):
    # Talwar et al.'s Laplace scale (L1 = 1 for the logistic loss), delta = 1/n**2: keeps
    # the benchmark on the regime the estimators run in.
    return LAM * np.sqrt(8 * n_iter * np.log(n**2)) / (n * epsilon)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes and T")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--n-iter", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=7,
                        help="paired (products, FW run) rounds per ratio in (b); median")
    parser.add_argument("--blas-threads", type=int, default=1)
    parser.add_argument("--dorothea", type=Path, default=Path("/work/shared/data/dorothea"))
    parser.add_argument("--json", type=Path, default=None, help="record file to update")
    parser.add_argument("--section", default="frank_wolfe")
    parser.add_argument("--code-label", default=None,
                        help="name of the code measured (default: its git commit)")
    args = parser.parse_args(argv)
    record = Record(args.section, args.code_label)
    with threadpool_limits(limits=args.blas_threads):
        blas = [(pool["internal_api"], pool["num_threads"]) for pool in threadpool_info()]
        print(f"BLAS pools (api, threads): {blas}; code {record.code_label}", flush=True)
        _run_all(args, record)
    record.summary()
    if args.json is not None:
        record.save(args.json, args.blas_threads)


def _run_all(args, record):
    if args.quick:
        dense_shape, sparse_shape, density, n_iter = (1000, 400), (5000, 5000), 2e-3, 50
    else:
        dense_shape, sparse_shape, density, n_iter = (5000, 2000), (20000, 20000), 1e-3, \
            args.n_iter
    rng = np.random.default_rng(args.seed)
    problems = [
        ("dense", _dense_problem(*dense_shape, rng), lambda a, s1, sK, ms: [
            ("dense batching K=20 speed-up", a, 3.0, "above"),
            ("dense step K=1 / one X^T r", s1, 1.5, "below"),
            ("dense step K=20 / one X^T R", sK, 1.5, "below")]),
        ("sparse", _sparse_problem(*sparse_shape, density, rng), lambda a, s1, sK, ms: [
            ("sparse batching K=20 speed-up", a, 2.0, "above"),
            ("sparse step K=1 / one X^T r", s1, 1.5, "below")]),
    ]
    if args.dorothea.is_dir() and not args.quick:
        problems.append(("dorothea", _dorothea(args.dorothea), lambda a, s1, sK, ms: [
            ("Dorothea step K=1 / one X^T r", s1, 1.5, "below"),
            ("Dorothea step K=20 per trial (ms)", ms, 0.5, "below")]))
    else:
        print(f"NOTE: Dorothea not run (--quick, or no folder {args.dorothea})")
    for label, (X, y), targets in problems:
        scale = _talwar_scale(X.shape[0], n_iter)
        _bench(label, X, y, n_iter, scale, args.seed, args.rounds, record, targets)


if __name__ == "__main__":
    main()

"""Certified non-private solves: whole-design FISTA against the working-set solver, in one run.

Prints CPU seconds (``time.process_time``, all threads of this process) for:

(a) arcene (OpenML 1458, through ``dplasso.data``; set ``DPLASSO_OPENML_SEED`` offline) and
    madelon (1485): ``solve_reference`` (FISTA on the whole design to ``tol = 1e-10`` of
    ``L(0)``), then ``solve_working_set`` asked for the gap FISTA reached or less, so the
    working-set answer is certified at the same or a tighter gap (target: arcene >= 30x);
(b) Dorothea (``/work/shared/data/dorothea``, 800 x 88119 sparse): the working-set solve
    (target < 2 s), and whole-design FISTA capped at ``--dorothea-fista-iter`` iterations,
    with the gap it reached;
(c) the Sparsifier's count ``lasso_support_size`` on a sparse design n = 2000,
    p = 300000, density 1e-2, end to end (validation, intercept column, solve; target
    < 30 s);
(d) the pieces: the smoothness constant (ARPACK ``svds`` against a full SVD, dense
    5000 x 2000) and the L1-ball projection (pivoting against sorting);
(e) other solvers on the same problems (arcene, madelon, Dorothea): scikit-learn's liblinear
    (L1-penalised, no intercept of its own, on the design with the intercept column) at
    the penalty the constrained optimum implies, ``C = 1 / (n ||grad L(w*)||_inf)`` (the
    KKT multiplier of the active ball), to ``tol = 1e-8``; skglm and celer at the same
    penalty when installed (they are not pinned by this project: install them in a separate
    environment beside it; the record says which were found), each compiled on a small
    problem before the timed fit; the target: the working set within 1.5x of celer's CPU
    time at the same accuracy (celer at the loosest tolerance whose objective is within
    ``1e-10 L(0)`` of ours).

Every problem is logistic with the intercept column inside the ball, radius ``lam = 10``
(the estimators' default). Each target is printed with ``met`` / ``MISSED``.

Usage: ``python benchmarks/bench_certified.py [--blas-threads N] [--dorothea DIR]
[--json PATH]`` (default one BLAS thread: steadier on a shared machine). ``--json`` writes
the section ``certified`` of a record file (``benchmarks/_record.py``). With celer and skglm,
in an environment of their own beside the project's pins::

    python -m venv /tmp/peers && /tmp/peers/bin/pip install -c constraints.txt -e . \
        celer==0.7.4 skglm==0.5
    /tmp/peers/bin/python benchmarks/bench_certified.py --json book/paper-results/benchmark.json
"""
from __future__ import annotations

import argparse
import importlib.util
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from threadpoolctl import threadpool_info, threadpool_limits

from _record import Record
from dplasso.data.catalog import load_dataset
from dplasso.estimators import lasso_support_size
from dplasso.estimators.params import DEFAULT_LAM
from dplasso.estimators.problem import prepare_design
from dplasso.optim import LogisticLoss, project_l1_ball, solve_reference, solve_working_set
from dplasso.optim.losses import squared_spectral_norm

TOL = 1e-10
LIBLINEAR_TOL = 1e-8
PEER_TOL = 1e-10
"""celer's and skglm's tolerance (each by its own stopping rule: celer a duality gap, skglm an
optimality violation); their objective is compared with ours."""
PEER_TOLS = tuple(10.0 ** -k for k in range(4, 11))
"""celer's tolerances tried for the ratio, loosest first (the first that reaches our accuracy)."""
PEER_ROUNDS = 5
"""Paired rounds of the celer ratio."""
RECORD = Record("certified")


def _cpu(fn):
    """``(result, CPU seconds)`` of one call ``fn()``."""
    start = time.process_time()
    out = fn()
    return out, time.process_time() - start


def _solution(sol, seconds, scale):
    return {"seconds": seconds, "gap_over_L0": sol.gap / scale, "converged": bool(sol.converged),
            "nnz": int(np.count_nonzero(sol.w[:-1])), "iterations": int(sol.n_iter),
            "objective": float(sol.objective)}


def _other_solvers(name, design, y, ws):
    """liblinear (and skglm / celer if installed) on the problem ``ws`` solved, same optimum."""
    loss = LogisticLoss()
    n = design.shape[0]
    gradient = loss.gradient(design, y, ws.w[:, None])[:, 0]
    multiplier = float(np.abs(gradient).max())
    on_sphere = np.abs(ws.w).sum() >= DEFAULT_LAM * (1 - 1e-6)
    found = {lib: importlib.util.find_spec(lib) is not None for lib in ("skglm", "celer")}
    out = {"installed": found, "multiplier": multiplier}
    if not on_sphere:
        print(f"  {name}: the optimum is inside the ball; no penalised twin", flush=True)
        return out
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(l1_ratio=1.0, solver="liblinear", C=1.0 / (n * multiplier),
                               fit_intercept=False, tol=LIBLINEAR_TOL, max_iter=100_000,
                               random_state=0)
    _, seconds = _cpu(lambda: model.fit(design, y))
    w = model.coef_.ravel()
    objective = float(loss.value(design, y, w[:, None])[0])
    out["liblinear"] = {
        "seconds": seconds, "objective_minus_ours": objective - float(ws.objective),
        "l1_norm": float(np.abs(w).sum()), "same_support": bool(np.array_equal(w != 0, ws.w != 0)),
        "nnz": int(np.count_nonzero(w[:-1]))}
    print(f"  liblinear at C = 1/(n |grad|_inf), tol {LIBLINEAR_TOL:g}: {seconds:8.3f} s, "
          f"L - L(ours) {objective - ws.objective:.2e}, |w|_1 {np.abs(w).sum():.6f}, "
          f"nnz {out['liblinear']['nnz']}, same support "
          f"{out['liblinear']['same_support']}", flush=True)
    for lib, ok in found.items():
        if not ok:
            print(f"  {lib}: not installed", flush=True)
            continue
        model = _penalised_twin(lib, n, multiplier)
        _, seconds = _cpu(lambda: model.fit(design, y))
        w = np.asarray(model.coef_, dtype=np.float64).ravel()
        objective = float(loss.value(design, y, w[:, None])[0])
        out[lib] = {"seconds": seconds, "objective_minus_ours": objective - float(ws.objective),
                    "l1_norm": float(np.abs(w).sum()),
                    "same_support": bool(np.array_equal(w != 0, ws.w != 0)),
                    "nnz": int(np.count_nonzero(w[:-1])), "tol": PEER_TOL}
        print(f"  {lib} at the same penalty, tol {PEER_TOL:g}: {seconds:8.3f} s, "
              f"L - L(ours) {objective - ws.objective:.2e}, |w|_1 {np.abs(w).sum():.6f}, "
              f"nnz {out[lib]['nnz']}, same support {out[lib]['same_support']}", flush=True)
    return out


def _celer_target(name, design, y, ws, others, rounds=PEER_ROUNDS):
    """The certified working-set solve within 1.5x of celer's CPU time, when celer is
    installed, at the same accuracy: celer at the loosest of its tolerances 1e-4, ..., 1e-10
    whose objective is within our target accuracy ``1e-10 L(0)`` of ours (its stopping rule
    is its own; the tightest when none is, and the record says so); the median over
    ``rounds`` paired rounds (each solver once per round) of the ratio."""
    if "celer" not in others:
        return
    loss = LogisticLoss()
    n = design.shape[0]

    def celer_fit(tol):
        model = _penalised_twin("celer", n, others["multiplier"], tol=tol)
        _, seconds = _cpu(lambda: model.fit(design, y))
        w = np.asarray(model.coef_, dtype=np.float64).ravel()
        return seconds, float(loss.value(design, y, w[:, None])[0]) - float(ws.objective)

    accuracy = TOL * float(loss.value(design, y, np.zeros((design.shape[1], 1)))[0])
    for tol in PEER_TOLS:  # |L - ours| within our target accuracy (a lower L is off the ball)
        _, excess = celer_fit(tol)
        if abs(excess) <= accuracy:
            break
    reached = abs(excess) <= accuracy
    ratios = []
    for _ in range(rounds):
        _, ours = _cpu(lambda: solve_working_set(loss, design, y, DEFAULT_LAM, tol=TOL))
        ratios.append(ours / celer_fit(tol)[0])
    others["celer"].update(matched_tol=tol, matched_excess=excess, matched=reached,
                           ratio_rounds=ratios)
    RECORD.target(f"{name} working set / celer (CPU)", float(np.median(ratios)), 1.5, "below",
                  f"celer at tol {tol:g}, L - ours {excess:.1e} "
                  f"({'within' if reached else 'not within'} our target {accuracy:.1e}); "
                  f"median of {rounds} paired rounds", spread=(min(ratios), max(ratios)))


def _penalised_twin(lib, n, multiplier, tol=None):
    """celer's or skglm's L1-penalised logistic regression at the penalty of our optimum
    (celer: sum of losses + ||w||_1 / C, C = 1/(n mu); skglm: mean loss + alpha ||w||_1,
    alpha = mu), no intercept of its own; compiled (numba) on a small problem first, so the
    timed fit pays no compilation."""
    if lib == "celer":
        from celer import LogisticRegression

        def make():
            return LogisticRegression(C=1.0 / (n * multiplier), fit_intercept=False,
                                      tol=tol or PEER_TOL, max_iter=10_000)
    else:
        from skglm import SparseLogisticRegression

        def make():
            return SparseLogisticRegression(alpha=multiplier, fit_intercept=False,
                                            tol=tol or PEER_TOL, max_iter=10_000)
    if lib not in _COMPILED:
        small = np.random.default_rng(0).uniform(-1.0, 1.0, (50, 5))
        make().fit(small, (small[:, 0] > 0).astype(np.int64))
        make().fit(sp.csc_matrix(small), (small[:, 0] > 0).astype(np.int64))
        _COMPILED.add(lib)
    return make()


_COMPILED = set()
"""The peers already compiled in this process (numba keeps them for the process)."""


def _describe(label, sol, seconds, scale):
    print(f"  {label:<26} {seconds:8.3f} s  gap/L(0) {sol.gap / scale:.3e}  "
          f"converged {sol.converged}  nnz {np.count_nonzero(sol.w[:-1])}  "
          f"iterations {sol.n_iter}", flush=True)


def _side_by_side(name, X, y, target_ratio=None):
    """Whole-design FISTA, then the working set asked for the gap FISTA reached."""
    loss = LogisticLoss()
    design = prepare_design(X, fit_intercept=True, bounds="error")
    scale = float(loss.value(design, y, np.zeros((design.shape[1], 1)))[0])
    print(f"{name}: n = {design.shape[0]}, p = {design.shape[1]} (with intercept)", flush=True)
    whole, t_whole = _cpu(lambda: solve_reference(loss, design, y, DEFAULT_LAM, tol=TOL))
    _describe("whole-design FISTA", whole, t_whole, scale)
    tol = min(TOL, whole.gap / scale) if whole.gap > 0 else TOL
    ws, t_ws = _cpu(lambda: solve_working_set(loss, design, y, DEFAULT_LAM, tol=tol))
    _describe("working set", ws, t_ws, scale)
    ratio = t_whole / t_ws
    same = np.array_equal(whole.w != 0, ws.w != 0)
    print(f"  speed-up {ratio:.1f}x; same support {same}; objective difference "
          f"{ws.objective - whole.objective:.2e}", flush=True)
    RECORD.data[name] = {"n": design.shape[0], "p": design.shape[1],
                         "whole_design_fista": _solution(whole, t_whole, scale),
                         "working_set": _solution(ws, t_ws, scale), "speed_up": ratio,
                         "same_support": bool(same),
                         "others": _other_solvers(name, design, y, ws)}
    _celer_target(name, design, y, ws, RECORD.data[name]["others"])
    if target_ratio is not None:
        # A speed-up only counts at the same or a tighter certified gap.
        certified = ws.converged and ws.gap <= whole.gap
        RECORD.target(f"{name} working set / whole-design FISTA (same or tighter gap)",
                      ratio if certified else 0.0, target_ratio, "above",
                      f"absolute gaps {ws.gap:.3e} <= {whole.gap:.3e}")


def _dorothea(folder, fista_iter):
    X = sp.load_npz(folder / "dorothea_train.npz").astype(np.float64)
    y = np.load(folder / "labels_train.npy").astype(np.float64)
    loss = LogisticLoss()
    design, t_setup = _cpu(lambda: prepare_design(X, fit_intercept=True, bounds="error"))
    scale = float(loss.value(design, y, np.zeros((design.shape[1], 1)))[0])
    print(f"Dorothea: n = {design.shape[0]}, p = {design.shape[1]} (with intercept), "
          f"setup {t_setup:.3f} s", flush=True)
    ws, t_ws = _cpu(lambda: solve_working_set(loss, design, y, DEFAULT_LAM, tol=TOL))
    _describe("working set", ws, t_ws, scale)
    whole, t_whole = _cpu(lambda: solve_reference(loss, design, y, DEFAULT_LAM, tol=TOL,
                                                  max_iter=fista_iter))
    _describe(f"FISTA capped at {fista_iter}", whole, t_whole, scale)
    RECORD.data["dorothea"] = {"n": design.shape[0], "p": design.shape[1], "setup_s": t_setup,
                               "working_set": _solution(ws, t_ws, scale),
                               "fista_capped": _solution(whole, t_whole, scale),
                               "fista_cap": fista_iter,
                               "others": _other_solvers("dorothea", design, y, ws)}
    _celer_target("Dorothea", design, y, ws, RECORD.data["dorothea"]["others"])
    RECORD.target("Dorothea certified (seconds)", t_ws if ws.converged else np.inf, 2.0,
                  "below", f"gap/L(0) {ws.gap / scale:.2e}")


def _sparse_count(seed):
    n, p, density = 2000, 300_000, 1e-2
    rng = np.random.default_rng(seed)
    X = sp.random(n, p, density=density, format="csr", random_state=rng,
                  data_rvs=lambda k: rng.uniform(-1.0, 1.0, k))
    w = np.zeros(p)
    w[:20] = rng.choice([-1.0, 1.0], 20) * 2.0
    y = (rng.uniform(size=n) < 1.0 / (1.0 + np.exp(-(X @ w)))).astype(np.int64)
    count, seconds = _cpu(lambda: lasso_support_size(X, y, lam=DEFAULT_LAM))
    print(f"sparse count: n = {n}, p = {p}, density {density:g}: count {count}, "
          f"{seconds:.3f} s", flush=True)
    RECORD.data["sparse_count"] = {"n": n, "p": p, "density": density, "count": int(count),
                                   "seconds": seconds}
    RECORD.target("sparse p = 300k, n = 2000 count solve (seconds)", seconds, 30.0, "below")


def _pieces(seed):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, size=(5000, 2000))
    arpack, t_arpack = _cpu(lambda: squared_spectral_norm(X))
    exact, t_exact = _cpu(lambda: float(np.linalg.norm(X, 2)) ** 2)
    print(f"smoothness, dense 5000 x 2000: svds {t_arpack:.3f} s, full SVD {t_exact:.3f} s "
          f"({t_exact / t_arpack:.1f}x), relative difference {abs(arpack - exact) / exact:.1e}",
          flush=True)
    RECORD.data["smoothness"] = {"svds_s": t_arpack, "full_svd_s": t_exact,
                                 "relative_difference": abs(arpack - exact) / exact}
    for m in (10_001, 300_001):
        v = rng.normal(size=m) * 1e-3
        v[rng.choice(m, 30, replace=False)] += 1.0  # a FISTA-like point: few large entries
        repeat = 50
        _, t_pivot = _cpu(lambda: [project_l1_ball(v, DEFAULT_LAM) for _ in range(repeat)])
        _, t_sort = _cpu(lambda: [_sort_projection(v, DEFAULT_LAM) for _ in range(repeat)])
        print(f"L1-ball projection, m = {m}: pivoting {1e3 * t_pivot / repeat:.3f} ms, "
              f"sorting {1e3 * t_sort / repeat:.3f} ms ({t_sort / t_pivot:.1f}x)", flush=True)
        RECORD.data[f"projection_{m}"] = {"pivot_ms": 1e3 * t_pivot / repeat,
                                          "sort_ms": 1e3 * t_sort / repeat}


def _sort_projection(v, lam):
    """Duchi et al.'s sort-based projection, the library's rule before the pivoting one."""
    magnitude = np.abs(v)
    u = np.sort(magnitude)[::-1]
    excess = np.cumsum(u) - lam
    rho = np.flatnonzero(u * np.arange(1, u.size + 1) > excess)[-1]
    return np.sign(v) * np.maximum(magnitude - excess[rho] / (rho + 1), 0.0)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blas-threads", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--dorothea", type=Path, default=Path("/work/shared/data/dorothea"))
    parser.add_argument("--dorothea-fista-iter", type=int, default=2000)
    parser.add_argument("--json", type=Path, default=None, help="record file to update")
    args = parser.parse_args(argv)
    with threadpool_limits(limits=args.blas_threads):
        blas = [(pool["internal_api"], pool["num_threads"]) for pool in threadpool_info()]
        print(f"BLAS pools (api, threads): {blas}", flush=True)
        for data_id, name, ratio in ((1458, "arcene", 30.0), (1485, "madelon", None)):
            data = load_dataset(data_id)
            _side_by_side(name, data.X, data.y, ratio)
        _dorothea(args.dorothea, args.dorothea_fista_iter)
        _sparse_count(args.seed)
        _pieces(args.seed)
    RECORD.summary()
    if args.json is not None:
        RECORD.save(args.json, args.blas_threads)


if __name__ == "__main__":
    main()

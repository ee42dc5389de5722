"""Setup of a fit: the traced memory peak of dense input, and the time of sparse input.

(a) ``PrivateFrankWolfeLassoClassifier(epsilon=1, classes=[0, 1], n_iter=5).fit(X, y)`` on a
    dense float64 ``X`` of 20000 x 1000 (160 MB), with and without the intercept: the peak
    of ``tracemalloc`` over the fit, in units of ``X.nbytes`` (``X`` itself is allocated
    before tracing starts). The design with its intercept column is one copy; target: the
    peak at most 1.1 copies with the intercept (issue 12: two extra copies before).
(b) ``prepare_design`` on a sparse CSR 10000 x 100000 (density 1e-3): CPU seconds.

Usage: ``python benchmarks/bench_setup.py [--json PATH] [--section S] [--code-label L]``.
"""
from __future__ import annotations

import argparse
import time
import tracemalloc
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from _record import Record
from dplasso.estimators import PrivateFrankWolfeLassoClassifier
from dplasso.estimators.problem import prepare_design


def _dense_peak(X, y, fit_intercept):
    model = PrivateFrankWolfeLassoClassifier(epsilon=1.0, classes=[0, 1], n_iter=5,
                                             fit_intercept=fit_intercept, random_state=0)
    tracemalloc.start()
    start = time.process_time()
    model.fit(X, y)
    seconds = time.process_time() - start
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / X.nbytes, seconds


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, default=None, help="record file to update")
    parser.add_argument("--section", default="setup")
    parser.add_argument("--code-label", default=None)
    args = parser.parse_args(argv)
    record = Record(args.section, args.code_label)
    rng = np.random.default_rng(0)
    X = rng.uniform(-1.0, 1.0, size=(20_000, 1000))
    y = (X[:, 0] > 0).astype(int)
    for fit_intercept in (True, False):
        copies, seconds = _dense_peak(X, y, fit_intercept)
        key = "with_intercept" if fit_intercept else "without_intercept"
        record.data[f"dense_peak_{key}"] = {"copies_of_X": copies, "fit_seconds": seconds,
                                            "X_bytes": X.nbytes}
        print(f"dense fit {X.shape}, fit_intercept={fit_intercept}: traced peak "
              f"{copies:.2f} x X ({copies * X.nbytes / 1e6:.0f} MB), {seconds:.2f} s", flush=True)
        if fit_intercept:
            record.target("dense fit traced peak (copies of X)", copies, 1.1, "below")
    del X
    S = sp.random(10_000, 100_000, density=1e-3, format="csr", random_state=rng)
    start = time.process_time()
    prepare_design(S, fit_intercept=True, bounds="error")
    seconds = time.process_time() - start
    record.data["sparse_setup_s"] = seconds
    print(f"sparse setup 10000 x 100000 (nnz {S.nnz}): {seconds:.3f} s", flush=True)
    record.summary()
    if args.json is not None:
        record.save(args.json, None)


if __name__ == "__main__":
    main()

"""Two experiment grids on a Dask LocalCluster (two worker processes listening on 127.0.0.1
only, no dashboard) give exactly the results of this process, and the driver's checkpoints let
a rerun finish without the cluster."""
import threading
import time
from unittest import mock

import pandas as pd
import pytest
from distributed import LocalCluster

from dplasso.experiments import execution
from dplasso.experiments.execution import SCHEDULER_ENV_VAR
from dplasso.experiments.p1 import private_lasso_experiment
from dplasso.experiments.p2 import screening_experiment

P1 = dict(methods=("zero-init", "sparsifier"), epsilons=[1.0, 4.0], n_trials=4, n_splits=2,
          synthetic=dict(n=300, p=10, k=3, coef_value=5.0), seed=0)
P2 = dict(seeds=[0, 1], n=120, p=30, n_pos=3, n_neg=3, lam=5.0, n_iter=20, n_trials=2,
          schedules=[5])


def _grids(cache_dir=None):
    return (private_lasso_experiment(["synthetic"], **P1, cache_dir=cache_dir),
            screening_experiment(**P2, cache_dir=cache_dir))


def test_a_local_cluster_gives_the_results_of_this_process(monkeypatch, tmp_path):
    monkeypatch.delenv(SCHEDULER_ENV_VAR, raising=False)
    local = _grids()
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as cluster:
        monkeypatch.setenv(SCHEDULER_ENV_VAR, cluster.scheduler_address)
        with mock.patch.object(execution, "_on_cluster", wraps=execution._on_cluster) as sent:
            remote = _grids(tmp_path)
    # P1: the splits' non-private solves, then the budgets' private fits; P2: (task, seed) units
    assert [len(call.args[2]) for call in sent.call_args_list] == [2, 2, 4]
    for here, there in zip(local, remote, strict=True):
        pd.testing.assert_frame_equal(here, there, check_exact=True)
    assert len(list(tmp_path.glob("*.pkl"))) == 8
    # The cluster is gone and DPLASSO_SCHEDULER still names it: every unit is a checkpoint.
    for here, resumed in zip(local, _grids(tmp_path), strict=True):
        pd.testing.assert_frame_equal(here, resumed, check_exact=True, check_dtype=False)


def test_a_scheduler_lost_mid_run_is_said_as_such(monkeypatch):
    """The scheduler closes while tasks run (as when it is killed): Dask cancels them, and
    the error names the scheduler, its address and that it was lost, in one line."""
    cluster = LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1",
                           dashboard_address=None)
    monkeypatch.setenv(SCHEDULER_ENV_VAR, cluster.scheduler_address)
    closing = threading.Timer(3.0, cluster.close)
    closing.start()
    started = time.monotonic()
    try:
        with pytest.raises(execution.SchedulerLost) as lost:
            execution.run_tasks(time.sleep, [(1.0,)] * 30)
    finally:
        closing.join()
        cluster.close()
    message = str(lost.value)
    assert message.startswith(f"the Dask scheduler at {cluster.scheduler_address} was lost "
                              "during the run (Dask: scheduler-connection-lost)")
    assert "\n" not in message and time.monotonic() - started < 20

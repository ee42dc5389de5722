"""The execution layer: task order, joblib against this process, checkpoints written as results
arrive, and no Dask without a scheduler."""
import os
import socket
import subprocess
import time
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest

from dplasso.cli import main as cli_main
from dplasso.experiments import execution
from dplasso.experiments.checkpoint import cached_tasks, chunks
from dplasso.experiments.execution import SCHEDULER_ENV_VAR, run_tasks, scheduler_address

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(autouse=True)
def no_scheduler(monkeypatch):
    monkeypatch.delenv(SCHEDULER_ENV_VAR, raising=False)


@pytest.fixture
def unused_port():
    """A local TCP port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_results_come_back_in_task_order_and_each_is_reported():
    seen = []
    tasks = [(b, 2) for b in range(6)]
    assert run_tasks(pow, tasks, on_result=lambda i, r: seen.append((i, r))) == \
        [b * b for b in range(6)]
    assert sorted(seen) == [(b, b * b) for b in range(6)]


def test_joblib_workers_give_the_results_of_this_process():
    tasks = [(b, 3) for b in range(5)]
    seen = []
    got = run_tasks(pow, tasks, n_jobs=2, on_result=lambda i, r: seen.append(i))
    assert got == run_tasks(pow, tasks)
    assert sorted(seen) == list(range(5))


@pytest.mark.parametrize("n_jobs, error", [(0, ValueError), (-2, ValueError), (1.5, TypeError),
                                           (True, TypeError), ("2", TypeError)])
def test_bad_n_jobs_is_named(n_jobs, error):
    with pytest.raises(error, match="n_jobs"):
        run_tasks(pow, [(1, 1)], n_jobs=n_jobs)


def _entry_points():
    from dplasso.experiments import beyond, p1, p1_baselines, p1_count_sensitivity, p2
    return [
        lambda n_jobs: p1.private_lasso_experiment([28], n_jobs=n_jobs),
        lambda n_jobs: p1_baselines.baselines_experiment([31], [1.0], 1, n_jobs=n_jobs),
        lambda n_jobs: p1_count_sensitivity.count_sensitivity_experiment([31], n_jobs=n_jobs),
        lambda n_jobs: beyond.ceiling_experiment([31], n_jobs=n_jobs),
        lambda n_jobs: beyond.beyond_p1_experiment([31], epsilons=[1.0], n_jobs=n_jobs),
        lambda n_jobs: beyond.multiclass_experiment([28], epsilons=[1.0], n_jobs=n_jobs),
        lambda n_jobs: p2.screening_experiment(n_jobs=n_jobs),
        lambda n_jobs: p2.wolfe_gap_curves(n_jobs=n_jobs),
        lambda n_jobs: p2.noise_scale_vs_dimension(n_jobs=n_jobs),
        lambda n_jobs: p2.screening_releases(n_jobs=n_jobs),
    ]


@pytest.mark.parametrize("entry", range(len(_entry_points())))
def test_experiments_check_n_jobs_before_loading_data(entry, monkeypatch):
    """Each experiment entry point refuses a bad ``n_jobs`` first: no dataset is loaded and no
    task runs (the loaders and task runners are replaced by a function that fails the test)."""
    from dplasso.experiments import beyond, p1, p1_baselines, p1_count_sensitivity, p2

    def reached(*args, **kwargs):
        raise AssertionError("data loaded or tasks run before n_jobs was checked")

    for module in (p1, p1_baselines, p1_count_sensitivity, beyond, p2):
        for name in ("load_p1_data", "load_dataset", "load_beyond_data", "cached_tasks",
                     "run_tasks"):
            if hasattr(module, name):
                monkeypatch.setattr(module, name, reached)
    with pytest.raises(ValueError, match="n_jobs"):
        _entry_points()[entry](0)


def test_scheduler_address_comes_from_the_environment(monkeypatch):
    assert scheduler_address() is None
    monkeypatch.setenv(SCHEDULER_ENV_VAR, "  ")
    assert scheduler_address() is None
    monkeypatch.setenv(SCHEDULER_ENV_VAR, "tcp://10.0.0.5:8786")
    assert scheduler_address() == "tcp://10.0.0.5:8786"


def _frame(value):
    if value == "boom":
        raise RuntimeError("interrupted")
    return pd.DataFrame({"value": [value]})


_CALLS, _INTERRUPTED = [], []


def _counted(value):
    """A unit that fails on "boom" the first time (an interrupt), then computes."""
    _CALLS.append(value)
    if value == "boom" and not _INTERRUPTED:
        _INTERRUPTED.append(value)
        raise RuntimeError("interrupted")
    return _frame(2.5 if value == "boom" else value)


def test_an_interrupted_grid_keeps_its_finished_units(tmp_path):
    _CALLS.clear()
    _INTERRUPTED.clear()
    units = [(f"unit{i}", {"i": i}, (value,)) for i, value in enumerate([1.5, "boom", 3.5])]
    with pytest.raises(RuntimeError, match="interrupted"):
        cached_tasks(tmp_path, units, _counted)
    assert [p.name.split("-")[0] for p in tmp_path.glob("*.pkl")] == ["unit0"]
    _CALLS.clear()
    frames = cached_tasks(tmp_path, units, _counted)
    assert _CALLS == ["boom", 3.5]  # the finished unit is read, not recomputed
    assert [f["value"].item() for f in frames] == [1.5, 2.5, 3.5]
    assert len(list(tmp_path.glob("*.pkl"))) == 3


def test_chunks_cut_results_back_into_rows():
    assert chunks(range(6), [2, 0, 3, 1]) == [[0, 1], [], [2, 3, 4], [5]]


def test_without_a_scheduler_nothing_imports_dask():
    code = textwrap.dedent("""
        import sys
        import dplasso.cli
        from dplasso.experiments.p1 import private_lasso_experiment
        from dplasso.experiments.p2 import screening_experiment
        private_lasso_experiment(["synthetic"], methods=["zero-init"], epsilons=[1.0],
                                 n_trials=2, synthetic=dict(n=200, p=6, k=2), n_jobs=2)
        screening_experiment(tasks="logistic", n=80, p=12, n_pos=2, n_neg=2, n_iter=5,
                             schedules=[1])
        loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("dask", "distributed"))
        assert not loaded, loaded
    """)
    env = {k: v for k, v in os.environ.items() if k != SCHEDULER_ENV_VAR}
    done = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_connect_names_the_address_it_could_not_reach(unused_port):
    address = f"tcp://127.0.0.1:{unused_port}"
    with pytest.raises(ConnectionError, match=f"{address}.*within 1 s"):
        execution.connect(address, timeout=1)


def test_reproduce_fails_fast_on_an_unreachable_scheduler(unused_port, tmp_path, capsys):
    address = f"tcp://127.0.0.1:{unused_port}"
    started = time.perf_counter()
    code = cli_main(["reproduce", "p1-rate", "--profile", "ci", "--scheduler", address,
                     "--out", str(tmp_path)])
    assert code == 2
    assert time.perf_counter() - started < execution.CONNECT_TIMEOUT + 5
    message = capsys.readouterr().err
    assert "--scheduler" in message and address in message and "no Dask scheduler" in message
    assert not any(tmp_path.iterdir())  # no notebook was started
    assert scheduler_address() is None


def test_a_grid_on_joblib_workers_matches_this_process():
    from dplasso.experiments.p1_baselines import baselines_experiment
    run = dict(dataset_ids=[], epsilons=[2.0], n_trials=2, synthetic={"n": 300, "p": 8, "k": 2})
    here, there = baselines_experiment(**run), baselines_experiment(**run, n_jobs=2)
    timing = ["seconds"]
    pd.testing.assert_frame_equal(here.drop(columns=timing), there.drop(columns=timing),
                                  check_exact=True)

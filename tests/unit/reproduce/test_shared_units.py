"""`dplasso reproduce --jobs N`: the notebooks' experiment units share a local cluster of N
workers (dplasso.reproduce.cluster, 127.0.0.1 only, gone when the run ends), with the results
of a run without it. Not statistical."""
import json
import os
import textwrap

import psutil
import pytest

from tiny_notebook import myst_notebook
from dplasso.reproduce.cluster import start_cluster, stop_cluster
from dplasso.reproduce.registry import load_registry
from dplasso.reproduce.runner import reproduce

pytest.importorskip("distributed")

# Each unit says which process computed it: with the shared cluster, not the kernel.
NOTEBOOK = myst_notebook(
    "cache_dir = None\nvalue = 1",
    """\
    import json, os
    import pandas as pd
    from dplasso.experiments.checkpoint import cached_tasks


    def unit(x, i):
        return pd.DataFrame({"value": [x + i], "pid": [os.getpid()]})


    frames = cached_tasks(cache_dir, [(f"unit{i}", {"i": i}, (value, i)) for i in range(4)],
                          unit)
    json.dump({"values": [int(f["value"].item()) for f in frames],
               "pids": [int(f["pid"].item()) for f in frames], "kernel": os.getpid(),
               "scheduler": os.environ.get("DPLASSO_SCHEDULER")}, open("out.json", "w"))
    """)


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.setenv("DPLASSO_UNIT_CACHE", "")  # every unit computed, in both runs
    monkeypatch.delenv("DPLASSO_SCHEDULER", raising=False)
    root = tmp_path / "proj"
    (root / "notebooks").mkdir(parents=True)
    (root / "params").mkdir()
    (root / "notebooks" / "nb1.md").write_text(NOTEBOOK)
    (root / "notebooks" / "nb2.md").write_text(NOTEBOOK.replace("value = 1", "value = 2"))
    (root / "artifacts.yaml").write_text(textwrap.dedent("""\
        notebooks:
          nb1: {source: notebooks/nb1.md, title: One}
          nb2: {source: notebooks/nb2.md, title: Two}
        artifacts: []
        """))
    (root / "params" / "schema.yaml").write_text(textwrap.dedent("""\
        notebooks:
          nb1: &nb
            cache_dir: {type: any, settable: false, optional: true, meaning: unit cache}
            value: {type: int, meaning: echoed}
          nb2: *nb
        """))
    for profile in ("ci", "paper"):
        (root / "params" / f"{profile}.yaml").write_text("nb1: {}\nnb2: {}\n")
    return root


def test_the_cluster_listens_on_loopback_and_leaves_no_process_behind():
    process, address = start_cluster(2)
    assert address.startswith("tcp://127.0.0.1:")
    family = [process.pid] + [p.pid for p in psutil.Process(process.pid).children(recursive=True)]
    from distributed import Client

    with Client(address, timeout=30, set_as_default=False) as client:
        assert len(client.scheduler_info()["workers"]) == 2
        assert client.submit(sum, [1, 2], pure=False).result() == 3
    stop_cluster(process)
    assert not [pid for pid in family if psutil.pid_exists(pid)
                and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE]


def test_units_of_every_notebook_share_the_cluster_with_the_results_of_one_process(
        project, tmp_path):
    registry = load_registry(project)
    alone = reproduce(registry, None, profile="ci", out_dir=tmp_path / "one", jobs=1)
    shared = reproduce(registry, None, profile="ci", out_dir=tmp_path / "two", jobs=2,
                       force=True)
    assert all(r.units["computed"] == 4 for r in alone + shared)
    for name in ("nb1", "nb2"):
        one = json.loads((tmp_path / "one" / name / "out.json").read_text())
        two = json.loads((tmp_path / "two" / name / "out.json").read_text())
        assert one["scheduler"] is None and two["scheduler"].startswith("tcp://127.0.0.1:")
        assert one["values"] == two["values"]
        assert set(one["pids"]) == {one["kernel"]}  # without the cluster: in the kernel
        assert two["kernel"] not in two["pids"]  # with it: on its workers
    assert "DPLASSO_SCHEDULER" not in os.environ

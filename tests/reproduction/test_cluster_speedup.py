"""The book's record of the cluster benchmark (`book/cluster-speedup.md`, written by
`benchmarks/bench_cluster.py` and committed): it names its command, found both runs' results
equal, and states the speed-up its own table gives. Not statistical."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RECORD = ROOT / "book" / "cluster-speedup.md"
ROW = re.compile(r"^\| (?P<run>[^|]+?) \| (?P<seconds>[\d.]+) \|$", re.M)
SPEEDUP = re.compile(r"\*\*(?P<speedup>[\d.]+)x\*\*")


def test_record_is_a_run_of_the_benchmark_with_its_own_speedup():
    record = RECORD.read_text()
    assert re.search(r"Measured by `python benchmarks/bench_cluster\.py --workers 2` on "
                     r"\d{4}-\d\d-\d\d", record)
    assert "equal the sequential ones exactly" in record
    rows = {m["run"]: float(m["seconds"]) for m in ROW.finditer(record)}
    sequential = rows["sequential, in one process"]
    cluster = rows["LocalCluster, 2 worker processes"]
    stated = float(SPEEDUP.search(record)["speedup"])
    # both times are rounded to 0.1 s in the table, the speed-up to 0.01
    low, high = (sequential - 0.05) / (cluster + 0.05), (sequential + 0.05) / (cluster - 0.05)
    assert low - 0.005 <= stated <= high + 0.005

"""The schedule of a run's recorded work on W workers (dplasso.experiments.schedule): exact
makespans on small cases. Not statistical."""
import pytest

from dplasso.experiments.schedule import Work, makespan, work_of


def test_units_spread_over_the_workers_a_notebook_does_not():
    works = [Work("a", 0.0, [1, 1, 1, 1])]
    assert makespan(works, 2, "notebooks") == 4.0
    assert makespan(works, 2, "units") == 2.0
    assert makespan(works, 1, "units") == makespan(works, 1, "notebooks") == 4.0


def test_a_notebooks_units_wait_for_its_serial_work():
    works = [Work("a", 2.0, [1, 1]), Work("b", 0.0, [3])]
    assert makespan(works, 2, "units") == 4.0  # b's unit 0-3; a's serial 0-2, units 2-3, 3-4
    assert makespan(works, 2, "notebooks") == 4.0
    assert makespan([Work("c", 5.0, [1] * 6)], 8, "units") == 6.0


def test_the_longest_notebook_starts_first():
    works = [Work(name, t) for name, t in [("s1", 1), ("s2", 1), ("long", 4)]]
    assert makespan(works, 2, "notebooks") == 4.0  # long on one worker, s1 and s2 on the other


def test_work_comes_from_a_record_and_bad_arguments_are_named():
    record = {"notebook": "x", "seconds": 10.0,
              "units": {"grid_seconds": 6.0, "unit_seconds": [3.0, 2.0]}}
    work = work_of(record)
    assert (work.serial, work.units, work.total) == (4.0, [3.0, 2.0], 9.0)
    assert work_of({"notebook": "y", "seconds": 5.0}).total == 5.0
    with pytest.raises(ValueError, match="mode"):
        makespan([work], 2, "threads")
    with pytest.raises(ValueError, match="workers"):
        makespan([work], 0)


def test_the_performance_page_tables_read_the_records_units(tmp_path):
    import json

    from dplasso.experiments.performance import scaling_table, units_table

    for name, seconds, units in [("a", 10.0, {"read": 1, "computed": 3, "grid_seconds": 8.0,
                                               "unit_seconds": [2.0, 2.0, 2.0, 2.0]}),
                                 ("b", 4.0, None)]:
        (tmp_path / name).mkdir()
        (tmp_path / name / "run.json").write_text(json.dumps(
            {"notebook": name, "seconds": seconds, "units": units}))
    table = units_table(tmp_path)
    assert table["notebook"].tolist() == ["a", "b", "total"]
    assert table.iloc[-1][["units", "from the cache", "unit seconds", "serial (s)"]].tolist() == [
        4, 1, 8.0, 6.0]
    scaling = scaling_table(tmp_path, workers=(1, 2))
    # work 14 s: on 2 workers a (2 s serial, 4 units of 2 s) beside b (4 s) by notebook: 10 s;
    # shared: a's serial 0-2 and b 0-4, units 2-4, 4-6, 4-6, 6-8: 8 s
    assert scaling["notebook by notebook (s)"].tolist() == [14.0, 10.0]
    assert scaling["shared unit workers (s)"].tolist() == [14.0, 8.0]

"""Every notebook reruns with one changed dataset (or data set) and one changed budget.

Rerunning a notebook with one's own parameters is one of the project's three uses: for each
notebook, at tiny sizes (``TINY``) on top of the ``ci`` profile, the runner executes it with the
changes a reader would make first (``CHANGED``), and the results must hold exactly what was asked:
the datasets, seeds and budgets named, no others. Every notebook with a dataset parameter reruns
on an OpenML dataset outside the book's catalogue (credit-approval, 29: nominal features and
missing values; banknote-authentication, 1462: four features), and no results file of the run
names another dataset: a side table on other data is not built unless asked for (``ABSENT``).
``test_every_notebook_has_a_rerun`` keeps the matrix complete as notebooks are added.
"""
import json
import re
from pathlib import Path

import pandas as pd
import pytest

from dplasso.cli import main as cli_main
from dplasso.reproduce.registry import load_registry
from dplasso.reproduce.runner import reproduce

pytestmark = pytest.mark.reruns

ROOT = Path(__file__).resolve().parents[2]

SYNTHETIC_TINY = {"n": 600, "p": 12, "k": 3, "coef_value": 5.0}
P2_TINY = {"n": 200, "p": 40, "n_pos": 4, "n_neg": 4, "n_iter": 40, "n_trials": 1}

# notebook: (tiny sizes, the changes under test, {results file: {column: expected values}})
RERUNS = {
    "datasets": ({}, {"datasets": [29]}, {"datasets.csv": {"name": {"credit-approval"}}}),
    "proofs": ({"size_overrides": {
        "search_rows": 2, "search_random": 2, "count_search_rows": 1, "count_search_random": 1,
        "scalar_trials": 2000, "gaussian_trials": 2000, "selection_trials": 2000,
        "fit_trials": 200, "count_trials": 2000, "threshold_trials": 500,
        "block_median_trials": 500, "accuracy_count_trials": 500, "noise_floor_trials": 200,
        "screening_trials": 2000}},
               {"alpha": 1e-3, "random_state": 7}, {"proofs-audit.csv": {}}),
    "p2-screening": ({**P2_TINY, "every": 10}, {"seeds": [3], "epsilons": [1.0, [0.5, 2.0]]},
                     {"p2-fig1.csv": {"seed": {3}, "epsilon1": {0.5}, "epsilon2": {0.5, 2.0}},
                      "p2-nonprivate.csv": {"seed": {3}}}),
    "p2-analysis": ({**P2_TINY, "dims": [20, 40], "noise_trials": 2},
                    {"seeds": [3], "epsilon": 1.0},
                    {"p2-fig2.csv": {"seed": {3}}, "p2-noise.csv": {"seed": {3}}}),
    "p1-sparsity": ({"n_trials": 2, "rule_trials": 1, "synthetic": SYNTHETIC_TINY},
                    {"datasets": [29], "epsilons": [1.0], "rule_datasets": [29]},
                    {"p1-sparsity.csv": {"dataset": {"credit-approval"}, "epsilon": {1.0}},
                     "p1-dense.csv": {"dataset": {"credit-approval"}},
                     "p1-dense-rules.csv": {"dataset": {"credit-approval"}}}),
    "p1-count-noise": ({"n_fw_trials": 3, "n_draws": 200},
                       {"dataset": 1462, "epsilons_count": [0.5]},
                       {"p1-count-noise.csv": {"dataset": {"banknote-authentication"},
                                               "epsilon_count": {0.5}}}),
    "p1-rate": ({"ns": [300, 600], "seeds": [0], "n_trials": 1, "p": 10, "k": 3},
                {"epsilons": [2.0]}, {"p1-rate.csv": {"epsilon": {2.0}, "n": {300, 600}}}),
    "p1-multinomial": ({"n_trials": 2, "n_splits": 1}, {"datasets": [5], "epsilons": [2.0]},
                       {"p1-multinomial.csv": {"dataset": {"arrhythmia"}, "epsilon": {2.0}}}),
    "p1-baselines": ({"n_trials": 2, "synthetic": SYNTHETIC_TINY},
                     {"datasets": [1462], "epsilons": [2.0]},
                     {"p1-baselines.csv": {"dataset": {"banknote-authentication"},
                                           "epsilon": {2.0}}}),
    "p1-count-sensitivity": ({"n_rows": 1, "n_random": 1, "max_coordinates": 2, "n_draws": 100},
                             {"datasets": [29], "default_epsilon": 2.0},
                             {"p1-count-sensitivity.csv": {"dataset": {"credit-approval"}},
                              "p1-count-default.csv": {"dataset": {"credit-approval"}}}),
    "beyond-p1": ({"n_trials": 2, "n_splits": 1, "synthetic": SYNTHETIC_TINY,
                   "multiclass_trials": 1, "multiclass_splits": 1},
                  {"datasets": [1462], "epsilons": [2.0]},
                  {"beyond-p1.csv": {"dataset": {"banknote-authentication"}, "epsilon": {2.0}},
                   "beyond-ceiling.csv": {"dataset": {"banknote-authentication"}}}),
    "beyond-p2": ({"n": 200, "p": 40, "n_pos": 4, "n_neg": 4, "n_trials": 1, "seeds": [0],
                   "n_test": 100, "everys": [5], "n_splits": 1,
                   "audit_trials": 2000, "search_random": 2},
                  {"datasets": [29], "epsilons": [2.0]},
                  {"beyond-p2.csv": {"epsilon": {2.0},
                                     "data": {"linear", "logistic", "credit-approval"}}}),
    "performance": ({}, {"record_path": str(ROOT / "book" / "paper-results" / "benchmark.json")},
                    {"performance-targets.csv": {}}),
}


# results files a narrow run does not write: side tables on other data, not asked for
ABSENT = {"beyond-p1": {"beyond-multiclass.csv", "beyond-ablation.csv"}}
# glued numbers of data the run does not have: not glued, so no sentence states them
NOT_GLUED = {"p1-baselines": {"p1-baselines-synthetic-k", "p1-baselines-f1-sparsifier",
                              "p1-baselines-admm-nnz-top"},
             "p1-sparsity": {"p1-synthetic-n", "p1-dense-synthetic-zero-min"},
             "beyond-p1": {"beyond-ablation-effects", "beyond-multiclass-optimum"}}
# the columns that name a dataset, and the names a run holds besides the asked datasets
DATASET_COLUMNS = ("dataset", "data", "name")
BESIDES = {"beyond-p2": {"linear", "logistic"}}  # P2's synthetic design, the chapter's own


def _shown(notebook: Path) -> tuple[set, list[str]]:
    """The glue keys of an executed notebook and the text of its outputs and glued values."""
    keys, texts = set(), []
    for cell in json.loads(notebook.read_text())["cells"]:
        for output in cell.get("outputs", []):
            name = output.get("metadata", {}).get("scrapbook", {}).get("name")
            if name:
                keys.add(name)
            texts += ["".join(v) if isinstance(v, list) else str(v)
                      for k, v in output.get("data", {}).items() if "text/" in k]
    return keys, texts


def _values(frame: pd.DataFrame, column: str) -> set:
    values = frame[column].dropna()
    return {float(v) for v in values} if pd.api.types.is_numeric_dtype(values) else set(values)


def test_every_notebook_has_a_rerun():
    assert set(RERUNS) == set(load_registry(ROOT).notebooks)


@pytest.mark.parametrize("notebook", sorted(RERUNS))
def test_a_rerun_with_one_changed_dataset_and_budget_holds_what_was_asked(notebook, tmp_path):
    tiny, changed, expected = RERUNS[notebook]
    (record,) = reproduce(load_registry(ROOT), [notebook], profile="ci",
                          overrides={**tiny, **changed}, out_dir=tmp_path)
    assert not record.skipped and all(record.parameters[k] == v for k, v in changed.items())
    for name, columns in expected.items():
        frame = pd.read_csv(tmp_path / notebook / name)
        assert len(frame), f"{name} is empty"
        for column, values in columns.items():
            want = ({float(v) for v in values} if column in ("epsilon", "epsilon_count", "seed",
                                                             "n", "epsilon1", "epsilon2")
                    else values)
            assert _values(frame, column) == want, (name, column)
    asked = set().union(*(v for columns in expected.values() for c, v in columns.items()
                          if c in DATASET_COLUMNS)) | BESIDES.get(notebook, set())
    for path in sorted((tmp_path / notebook).glob("*.csv")):
        frame = pd.read_csv(path)
        for column in set(DATASET_COLUMNS) & set(frame.columns):
            assert _values(frame, column) <= asked, (path.name, column)
    assert not {p.name for p in (tmp_path / notebook).iterdir()} & ABSENT.get(notebook, set())
    keys, texts = _shown(tmp_path / notebook / f"{notebook}.ipynb")
    assert not keys & NOT_GLUED.get(notebook, set())
    raw = [t for t in texts if re.search(r"\bnan\b|<NA>", t)]
    assert not raw, f"a raw nan shown: {raw[0][:300]}"  # a missing value shows as n/a



def test_a_custom_run_renders_as_a_standalone_page_beside_its_results(tmp_path, monkeypatch,
                                                                      capsys):
    monkeypatch.setenv("DPLASSO_ROOT", str(ROOT))
    tiny, changed, _ = RERUNS["p1-count-noise"]
    args = [f"-p{key}={value}" for key, value in {**tiny, **changed}.items()]
    assert cli_main(["reproduce", "p1-count-noise", "--profile", "ci", *args,
                     "--out", str(tmp_path), "--html"]) == 0
    page = tmp_path / "p1-count-noise" / "html" / "p1-count-noise.html"
    assert f"rendered -> {page}" in capsys.readouterr().out
    text = page.read_text()
    # the run's own settings, glued numbers and figure, with the book's offline math
    assert "banknote-authentication, all 200 draws per column" in text and "{glue" not in text
    assert "<img" in text and (page.parent / "_static").is_dir() and "mathjax" in text
    # each inline script once (a second `const THEBE_JS_URL` is a JavaScript error)
    assert text.count("const THEBE_JS_URL") <= 1
    # render again from the results folder: the page is rebuilt in place
    assert cli_main(["render", str(tmp_path / "p1-count-noise")]) == 0 and page.is_file()

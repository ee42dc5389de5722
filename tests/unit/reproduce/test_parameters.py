"""The parameter schema (``params/schema.yaml``): ``-p`` values checked before any kernel starts.

The schema, the notebooks' parameters cells and the two profiles must agree; every malformed
value is refused by the command line with exit 2 and one line naming the parameter, before
anything is written.
"""
import math
import re
import time
from pathlib import Path

import pytest
import yaml

from cli_process import CPU_LIMIT, run_cli
from dplasso.reproduce.parameters import (
    declaring,
    describe,
    load_relations,
    load_schema,
    parameter_defaults,
    parameters_cell,
    parse_overrides,
    resolve,
)
from dplasso.reproduce.registry import PROFILES, load_registry
from dplasso.reproduce.runner import plan

ROOT = Path(__file__).resolve().parents[3]
REGISTRY = load_registry(ROOT)
SCHEMA = load_schema(ROOT)
RELATIONS = load_relations(ROOT)


@pytest.mark.parametrize("notebook", sorted(REGISTRY.notebooks))
def test_schema_names_exactly_the_parameters_cell_and_fits_its_defaults(notebook):
    defaults = parameter_defaults(parameters_cell(REGISTRY.notebooks[notebook].source))
    assert set(SCHEMA[notebook]) == set(defaults)
    resolve(notebook, SCHEMA[notebook], defaults, {}, {})  # every default fits its spec
    assert all(spec.get("meaning") for spec in SCHEMA[notebook].values())


@pytest.mark.parametrize("notebook", sorted(REGISTRY.notebooks))
def test_papermill_reads_every_parameter_of_the_cell(notebook):
    """Papermill injects only the names it can parse in the cell (a line it cannot parse, such
    as a comment with `=` in it, is dropped with a warning, and a -p value of that name would
    then be ignored)."""
    import nbformat
    from papermill.translators import PythonTranslator

    cell = nbformat.v4.new_code_cell(parameters_cell(REGISTRY.notebooks[notebook].source))
    assert {p.name for p in PythonTranslator.inspect(cell)} == set(SCHEMA[notebook])


@pytest.mark.parametrize("profile", PROFILES)
def test_every_profile_value_fits_the_schema(profile):
    assert set(plan(REGISTRY, None, profile, {})) == set(REGISTRY.notebooks)


def test_yaml_numbers_in_exponent_form_are_numbers_and_keys_are_given_once():
    assert parse_overrides(["a=1e-3", "b=5E+2", "c=[1e-2, 0.5]", "d=x1e3"]) == {
        "a": 0.001, "b": 500.0, "c": [0.01, 0.5], "d": "x1e3"}
    with pytest.raises(ValueError, match="-p a is given twice"):
        parse_overrides(["a=1", "a=2"])


@pytest.mark.parametrize("text", ["[1, 2", "{a: 1", "a: b: c", "'open"])
def test_yaml_errors_are_one_line_naming_the_text(text):
    with pytest.raises(ValueError, match=r"^-p datasets: .* is not a YAML value") as err:
        parse_overrides([f"datasets={text}"])
    assert text in str(err.value) and "\n" not in str(err.value)


def test_a_profile_value_outside_the_run_is_narrowed_and_an_override_refused():
    specs = SCHEMA["p1-sparsity"]
    profile = {"datasets": ["synthetic", 44, 1510], "dense_datasets": [44, 1510],
               "splits_by_dataset": {"1458": 2, "44": 3}}
    narrowed = resolve("p1-sparsity", specs, {}, profile, {"datasets": [1510, 37]})
    assert narrowed["dense_datasets"] == [1510] and narrowed["splits_by_dataset"] == {}
    assert resolve("p1-sparsity", specs, {}, profile, {"datasets": [37]})["dense_datasets"] is None
    with pytest.raises(ValueError, match=r"rule_datasets names \[44\], which datasets does not"):
        resolve("p1-sparsity", specs, {}, profile, {"datasets": [37], "rule_datasets": [44]})


def test_describe_says_the_allowed_values_in_words():
    notebooks = SCHEMA
    assert describe(notebooks["p1-sparsity"]["epsilons"]) == "list of number >= 0.0001 and <= 1000"
    assert describe(notebooks["p1-sparsity"]["count_sensitivity"]) == (
        "max | integer >= 1 and <= 1000000")
    assert describe(notebooks["p1-sparsity"]["rule_datasets"]) == (
        "list of binary dataset ids or synthetic, within datasets, [] (no table) in a run "
        "whose -p sets datasets but not this | null")
    assert describe(notebooks["datasets"]["datasets"]) == "list of dataset ids or synthetic | all"
    assert describe(notebooks["beyond-p1"]["ablation_epsilons"]) == (
        "list of number >= 0.0001 and <= 1000, [] (no table) in a run whose -p sets datasets "
        "but not this, = epsilons in a run whose -p sets epsilons but not this")
    assert describe(notebooks["p2-screening"]["epsilons"]) == (
        "list of (number >= 0.0001 and <= 1000 | list of 2 number >= 0.0001 and <= 1000)")


def _ci(notebook, overrides):
    """``notebook``'s parameters at the ci profile with ``overrides``, as the runner resolves
    them."""
    defaults = parameter_defaults(parameters_cell(REGISTRY.notebooks[notebook].source))
    return resolve(notebook, SCHEMA[notebook], defaults, REGISTRY.params("ci")[notebook],
                   overrides, RELATIONS.get(notebook, ()))


def test_a_dataset_override_turns_the_side_tables_on_other_data_off_unless_asked():
    ci = _ci("beyond-p1", {})
    assert ci["multiclass_datasets"] == [28] and ci["ablation_epsilons"] == [1.0, 5.0]
    narrow = _ci("beyond-p1", {"datasets": [29]})
    assert narrow["multiclass_datasets"] == [] and narrow["ablation_epsilons"] == []
    assert narrow["multiclass_epsilons"] == ci["multiclass_epsilons"]  # no -p epsilons
    asked = _ci("beyond-p1", {"datasets": [29], "multiclass_datasets": [5],
                              "ablation_epsilons": [2.0]})
    assert asked["multiclass_datasets"] == [5] and asked["ablation_epsilons"] == [2.0]
    assert _ci("p1-sparsity", {"datasets": [29]})["rule_datasets"] == []
    assert _ci("p1-sparsity", {"datasets": [29], "rule_datasets": [29]})["rule_datasets"] == [29]
    assert _ci("p1-sparsity", {"epsilons": [2.0]})["rule_datasets"] == [44, 1510, 37]


def test_an_epsilon_override_sets_the_side_tables_budgets_unless_they_are_given():
    narrow = _ci("beyond-p1", {"epsilons": [2.0]})
    assert narrow["multiclass_epsilons"] == [2.0] and narrow["ablation_epsilons"] == [2.0]
    assert narrow["multiclass_datasets"] == [28]  # the datasets are the profile's
    given = _ci("beyond-p1", {"epsilons": [2.0], "multiclass_epsilons": [0.5]})
    assert given["multiclass_epsilons"] == [0.5] and given["ablation_epsilons"] == [2.0]
    both = _ci("beyond-p1", {"epsilons": [2.0], "datasets": [29]})
    assert both["ablation_epsilons"] == [] and both["multiclass_epsilons"] == [2.0]


def test_the_off_value_is_accepted_only_where_the_schema_has_one():
    assert _ci("beyond-p1", {"multiclass_datasets": []})["multiclass_datasets"] == []
    with pytest.raises(ValueError, match="-p multiclass_epsilons=\\[\\] .* must not be empty"):
        _ci("beyond-p1", {"multiclass_epsilons": []})


@pytest.mark.parametrize("tie, problem", [
    ({"off_with": "dataset"}, "off_with names 'dataset', not a parameter"),
    ({"same_as": "budgets"}, "same_as names 'budgets', not a parameter"),
    ({"off_with": "datasets", "min_items": 1}, "off_with needs a list or datasets spec with "
                                               "min_items: 0"),
])
def test_a_tie_to_a_parameter_the_notebook_lacks_or_an_off_value_the_spec_refuses_is_a_schema_error(
        tie, problem, tmp_path):
    (tmp_path / "params").mkdir()
    (tmp_path / "params" / "schema.yaml").write_text(yaml.safe_dump({"notebooks": {"nb": {
        "datasets": {"type": "datasets", "task": "binary"},
        "side": {"type": "list", "of": {"type": "int"}, "min_items": 0, **tie}}}}))
    with pytest.raises(ValueError, match=re.escape(f"nb.side: {problem}")):
        load_schema(tmp_path)


def test_a_run_that_names_no_notebook_runs_the_notebooks_that_declare_an_override():
    names = list(REGISTRY.notebooks)
    assert declaring(names, SCHEMA, {}) == names
    assert declaring(names, SCHEMA, {"dataset": 29}) == ["p1-count-noise"]
    assert set(declaring(names, SCHEMA, {"datasets": [29]})) == {
        "datasets", "p1-sparsity", "p1-multinomial", "p1-baselines", "p1-count-sensitivity",
        "beyond-p1", "beyond-p2"}
    assert declaring(names, SCHEMA, {"ns": [100, 200], "dataset": 29}) == [
        n for n in names if n in ("p1-rate", "p1-count-noise")]


BAD = [  # (notebook, -p value, what the one line must say)
    ("p1-count-noise", "n_draws=-5", "n_draws must be >= 2"),
    ("p1-count-noise", "n_fw_trials=0", "n_fw_trials must be >= 2"),
    ("p1-count-noise", "dataset=[44]", "dataset must be one dataset, not a list"),
    ("p1-count-noise", "dataset=28", r"28 \(optdigits\) is a multiclass dataset, not a binary one"),
    ("p1-count-noise", "epsilon_fw=0", "epsilon_fw must be >= 0.0001"),
    ("p1-count-noise", "epsilon_fw=1e300", "epsilon_fw must be >= 0.0001 and <= 1000"),
    ("p1-count-noise", "epsilons_count=[0.5, 0.5]", "epsilons_count lists 0.5 more than once"),
    ("p1-sparsity", "datasets=[]", "datasets must not be empty"),
    ("p1-sparsity", "datasets=[44, 44]", "datasets lists 44 more than once"),
    ("p1-sparsity", "datasets=[synthetc]", "'synthetc' is not an OpenML dataset id"),
    ("p1-sparsity", "datasets=44", "datasets must be a list of datasets, e.g. \\[40\\]"),
    ("p1-sparsity", "epsilons=[]", "epsilons must not be empty"),
    ("p1-sparsity", "epsilons=[0.5, -1]", "epsilons must be >= 0.0001"),
    ("p1-sparsity", "epsilons=[.inf]", "epsilons must be a finite number"),
    ("p1-sparsity", "epsilons=[abc]", "epsilons must be a finite number, got str 'abc'"),
    ("p1-sparsity", "n_trials=0", "n_trials must be >= 1"),
    ("p1-sparsity", "n_trials=2.5", "n_trials must be an integer, got float 2.5"),
    ("p1-sparsity", "n_trials=true", "n_trials must be an integer, got bool True"),
    ("p1-sparsity", "rule_trials=11", r"rule_trials must be at most n_trials \(10\)"),
    ("p1-sparsity", "lam=-1", "lam must be > 0"),
    ("p1-sparsity", "count_fraction=1", "count_fraction must be > 0 and <= 0.99"),
    ("p1-sparsity", "count_sensitivity=maxx", "count_sensitivity must be max | integer >= 1"),
    ("p1-sparsity", "count_sensitivity=0", "count_sensitivity must be max | integer >= 1"),
    ("p1-sparsity", "seed=-1", "seed must be >= 0"),
    ("p1-sparsity", "synthetic={n: 5}", r"synthetic\['n'\] must be >= 20"),
    ("p1-sparsity", "synthetic={m: 5}", "synthetic takes the keys"),
    ("p1-sparsity", "synthetic=[1]", "synthetic must be a mapping such as {n: ..."),
    ("p1-sparsity", "rule_datasets=[40]", r"rule_datasets names \[40\], which datasets"),
    ("p1-sparsity", "dense_datasets=[1485]", r"dense_datasets names \[1485\]"),
    ("p1-sparsity", "splits_by_dataset={40: 2}", r"splits_by_dataset names \[40\]"),
    ("p1-sparsity", "splits_by_dataset={44: 0}", r"splits_by_dataset\[44\] must be >= 1"),
    ("p1-sparsity", "profile=paper", "profile is set by the runner, not by -p \\(use --profile"),
    ("p1-sparsity", "cache_dir=/tmp/x", "cache_dir is set by the runner, not by -p \\(use --out"),
    ("datasets", "results_dir=/elsewhere", "results_dir is set by the runner"),
    ("datasets", "datasets=foo", "datasets must be a list of datasets or all"),
    ("p1-rate", "ns=[]", "ns must hold at least 2 items"),
    ("p1-rate", "ns=[1000]", "ns must hold at least 2 items"),
    ("p1-rate", "ns=[-5, 1000]", "ns must be >= 50"),
    ("p1-rate", "seeds=[]", "seeds must not be empty"),
    ("p1-rate", "k=30", r"k must be at most p \(20\)"),
    ("p1-multinomial", "datasets=[44]", r"44 \(spambase\) is a binary dataset, not a multiclass one"),
    ("p1-multinomial", "n_splits=30", r"n_splits must be at most n_trials"),
    ("p1-baselines", "threshold=maybe", "threshold must be one of \\['none', 'private'\\]"),
    ("p1-count-sensitivity", "datasets=[synthetic]", "'synthetic' is not an OpenML dataset id"),
    ("p2-screening", "delta1=0", "delta1 must be > 0"),
    ("p2-screening", "epsilons=[[1, 2, 3]]", r"epsilons must be number .* \| list of 2 number"),
    ("p2-screening", "epsilons=[[1, 0]]", r"epsilons must be number .* \| list of 2 number"),
    ("p2-screening", "epsilons=[]", "epsilons must not be empty"),
    ("beyond-p1", "ablation_epsilons=[0]", "ablation_epsilons must be >= 0.0001"),
    ("p2-screening", "delta2=1.5", "delta2 must be > 0 and <= 0.5"),
    ("p2-screening", "n=-3", "n must be >= 20"),
    ("p2-screening", "every=1", "every must be >= 2"),  # [1, every, None] must be distinct
    ("p2-screening", "every=500", r"every must be at most n_iter \(300\)"),
    ("p2-analysis", "dims=[100]", "dims must hold at least 2 items"),
    ("p2-analysis", "delta=0", "delta must be > 0"),
    ("proofs", "alpha=0.5", "alpha must be > 0 and <= 0.01"),
    ("proofs", "size_overrides={search_rows: 0}", r"size_overrides\['search_rows'\] must be >= 1"),
    ("proofs", "size_overrides={trials: 5}", "size_overrides takes the keys"),
    ("performance", "record_path=/no/such/file.json", "record_path must name an existing file"),
    ("beyond-p1", "scaling=minmax", "scaling must be one of \\['standard', 'max-abs'\\]"),
    ("beyond-p1", "multiclass_datasets=[44]", r"44 \(spambase\) is a binary dataset, not a multiclass one"),
    ("p1-sparsity", "datasets=[99999]", r"OpenML dataset 99999 cannot be read: .*not in the offline seed.*DPLASSO_OPENML_SEED"),
    ("p1-sparsity", "datasets=[0]", "0 is not an OpenML dataset id"),
    ("p1-sparsity", "datasets=[1462, 29, 5]", r"5 \(arrhythmia\) is a multiclass dataset, not a binary one"),
    ("p1-count-sensitivity", "n_random=-1", "n_random must be >= 0"),
    ("p1-count-sensitivity", "declared=0", "declared must be >= 1"),
    ("p1-count-noise", "n_draws=1:30", "n_draws must be an integer, got str '1:30'"),  # not 90
    ("p1-count-noise", "n_draws=1_000", "n_draws must be an integer, got str '1_000'"),
    ("p1-baselines", "threshold=no", r"threshold must be one of .*, got 'no'"),
    ("p1-sparsity", "epsilons=[" + ", ".join(f"{1 + i / 1000:g}" for i in range(5000)) + "]",
     r"-p epsilons=\[1, 1\.001, .*, \.\.\.\] \(5000 items\) .*epsilons must hold at most 100 "
     "items, got 5000$"),
    ("p1-sparsity", "datasets=[" + ", ".join(["44"] * 3000) + "]",
     "datasets must hold at most 100 items, got 3000$"),
    ("p1-sparsity", "datasets=[" + ", ".join(["44"] * 60) + "]",
     r"datasets lists 44 more than once: \[44, 44, .*, \.\.\.\] \(60 items\)$"),
    ("proofs", "size_overrides={fit_trials: 3}", r"size_overrides\['fit_trials'\] must be >= 4"),
]


@pytest.mark.parametrize("notebook, override, message", BAD)
def test_a_malformed_value_is_one_line_exit_2_within_a_second_and_writes_nothing(
        notebook, override, message, tmp_path):
    """Run as a user runs it (its own process): the answer comes before the heavy imports."""
    before = sorted((ROOT / "results").rglob("*")) if (ROOT / "results").exists() else []
    code, out, err, cpu = run_cli(["reproduce", notebook, "--profile", "ci", "-p", override,
                                   "--out", str(tmp_path / "out")], ROOT)
    name = override.split("=", 1)[0]
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert err.startswith(f"error: -p {name}=") and re.search(message, err), err
    assert len(err) < 600, f"a line of {len(err)} characters"
    assert cpu < CPU_LIMIT, f"{cpu:.2f} s of CPU"
    assert not (tmp_path / "out").exists()
    assert (sorted((ROOT / "results").rglob("*")) if (ROOT / "results").exists() else []) == before


def test_a_dataset_beyond_the_cell_bound_is_refused_naming_the_bound_and_how_to_lift_it(tmp_path):
    """bank-marketing (45,211 rows x 51 columns) against a bound of a million cells."""
    code, out, err, _ = run_cli(["reproduce", "p1-sparsity", "--profile", "ci", "-p",
                                 "datasets=[1461]", "--out", str(tmp_path / "out")], ROOT,
                                env={"DPLASSO_MAX_CELLS": "1000000"})
    assert code == 2 and err.count("\n") == 1, err
    assert "45211 rows x 51 columns = 2305761 cells" in err and "DPLASSO_MAX_CELLS" in err, err
    assert not (tmp_path / "out").exists()


def test_dplasso_list_says_how_a_narrow_run_turns_side_tables_off_and_how_to_ask(
        monkeypatch, capsys):
    from dplasso.cli import main as cli_main

    monkeypatch.setenv("DPLASSO_ROOT", str(ROOT))
    assert cli_main(["list", "--profile", "ci"]) == 0
    beyond = capsys.readouterr().out.split("\nbeyond-p1 ")[1].split("\nbeyond-p2 ")[0]
    assert ("a run with -p datasets=... turns off multiclass_datasets, ablation_epsilons "
            "(ask for one: -p name=[...])") in beyond
    assert ("a run with -p epsilons=... sets multiclass_epsilons, ablation_epsilons to the "
            "same value (unless given)") in beyond
    assert "  must hold: len(openml_ids(datasets)) >= 1 (the non-private ceiling" in beyond


def test_a_followed_value_that_does_not_fit_is_refused_naming_what_it_follows():
    specs = {"epsilons": {"type": "list", "of": {"type": "number", "min": 0.1}},
             "side": {"type": "list", "of": {"type": "number", "max": 1}, "same_as": "epsilons"}}
    assert resolve("nb", specs, {"epsilons": [0.5], "side": [0.5]}, {}, {"epsilons": [0.2]}
                   )["side"] == [0.2]
    with pytest.raises(ValueError, match=re.escape(
            "side=[5] (following -p epsilons) does not fit notebook 'nb': side must be <= 1")):
        resolve("nb", specs, {"epsilons": [0.5], "side": [0.5]}, {}, {"epsilons": [5]})


def test_yaml_1_2_reads_what_yaml_1_1_read_as_hidden_numbers_and_flags_as_text():
    assert parse_overrides(["a=1:30", "b=010", "c=1_000", "d=yes", "e=off", "f=0x10", "g=0o10",
                            "h=2024-01-01", "i=true", "j=.5", "k=-3", "l=null", "m=1."]) == {
        "a": "1:30", "b": 10, "c": "1_000", "d": "yes", "e": "off", "f": 16, "g": 8,
        "h": "2024-01-01", "i": True, "j": 0.5, "k": -3, "l": None, "m": 1.0}


def test_an_override_of_a_mapping_sets_only_the_keys_it_names():
    ci = _ci("p1-baselines", {})["synthetic"]
    assert _ci("p1-baselines", {"synthetic": {"k": 3}})["synthetic"] == {**ci, "k": 3}
    with pytest.raises(ValueError, match=re.escape(
            f"-p synthetic={{'k': 200}} does not fit notebook 'p1-baselines': synthetic.k <= "
            f"synthetic.p fails (here 200 <= {ci['p']})")):
        _ci("p1-baselines", {"synthetic": {"k": 200}})


def test_every_list_spec_takes_the_schemas_cap_unless_it_has_its_own():
    assert yaml.safe_load((ROOT / "params" / "schema.yaml").read_text())["max_items"] == 100
    assert SCHEMA["p1-sparsity"]["epsilons"]["max_items"] == 100
    assert SCHEMA["p1-sparsity"]["datasets"]["max_items"] == 100
    pair = SCHEMA["p2-screening"]["epsilons"]["of"]["of"][1]
    assert pair["max_items"] == 2  # its own


def test_the_audit_sizes_the_schema_takes_are_the_audits_own():
    from dplasso.audit import PROFILE_SIZES

    assert set(SCHEMA["proofs"]["size_overrides"]["keys"]) == set(PROFILE_SIZES["ci"])


RELATED = [  # (notebook, -p values, the relation they break, what the line says after "fails")
    ("p1-baselines", ["synthetic={p: 3, k: 10}"], "synthetic.k <= synthetic.p",
     r"\(here 10 <= 3\) with synthetic=\{'n': \d+, 'p': 3, 'k': 10, 'coef_value': 5\.0\}: P1's"),
    ("p1-baselines", ["wang_zhang={p: 3, k: 10}"], "wang_zhang.k <= wang_zhang.p",
     r"\(here 10 <= 3\)"),
    ("p1-sparsity", ["synthetic={k: 200}"], "synthetic.k <= synthetic.p", r"\(here 200 <= 100\)"),
    ("beyond-p1", ["synthetic={p: 4}"], "synthetic.k <= synthetic.p", r"\(here 5 <= 4\)"),
    ("beyond-p1", ["datasets=[synthetic]"], "len(openml_ids(datasets)) >= 1", r"\(here 0 >= 1\)"),
    ("p2-screening", ["n_pos=400", "n_neg=400"], "n_pos + n_neg <= p",
     r"\(here 800 <= 300\) with n_pos=400, n_neg=400, p=300 \(the profile's\): P2's design"),
    ("p2-screening", ["n_pos=0", "n_neg=0"], "n_pos + n_neg >= 1", r"\(here 0 >= 1\)"),
    ("p2-analysis", ["n_pos=200", "n_neg=200"], "n_pos + n_neg <= p", r"\(here 400 <= 300\)"),
    ("p2-analysis", ["n_pos=0", "n_neg=0"], "n_pos + n_neg >= 1", r"\(here 0 >= 1\)"),
    ("p2-analysis", ["dims=[50, 100]"], "min(dims) >= n_pos + n_neg", r"\(here 50 >= 70\)"),
    ("beyond-p2", ["p=60"], "n_pos + n_neg <= p", r"\(here 70 <= 60\)"),
    ("beyond-p2", ["n_pos=0", "n_neg=0"], "n_pos + n_neg >= 1", r"\(here 0 >= 1\)"),
    ("beyond-p2", ["everys=[1, 500]"], "max(everys) <= fw_steps(lam, n, p, epsilons)",
     r"\(here 500 <= \d+\)"),
    ("beyond-p2", ["epsilons=[0.01]"], "max(everys) <= fw_steps(lam, n, p, epsilons)",
     r"\(here 5 <= 1\)"),
    ("beyond-p2", ["datasets=[1458]"],  # arcene: 160 training rows, 10,000 columns
     "max(everys) <= openml_fw_steps(lam, datasets, epsilons)", r"\(here 5 <= 3\)"),
]


@pytest.mark.parametrize("notebook, overrides, check, rest", RELATED)
def test_values_that_break_a_relation_are_one_line_exit_2_within_5_s_and_write_nothing(
        notebook, overrides, check, rest, tmp_path):
    """Each of these passed the check before the relations, and failed inside the kernel
    after 24-44 s, leaving _failed/ and the unit cache behind."""
    before = sorted((ROOT / "results").rglob("*")) if (ROOT / "results").exists() else []
    started = time.monotonic()
    code, out, err, _ = run_cli(["reproduce", notebook, "--profile", "ci",
                                 *(word for value in overrides for word in ("-p", value)),
                                 "--out", str(tmp_path / "out")], ROOT,
                                env={"DPLASSO_UNIT_CACHE": str(tmp_path / "cache")})
    assert time.monotonic() - started < 5
    assert code == 2 and out == "" and err.count("\n") == 1, err
    names = " ".join(f"-p {value.split('=')[0]}=.+?" for value in overrides)
    assert re.match(f"error: {names} do(es)? not fit notebook '{notebook}': "
                    f"{re.escape(check)} fails {rest}", err), err
    assert not (tmp_path / "out").exists() and not (tmp_path / "cache").exists()
    assert (sorted((ROOT / "results").rglob("*")) if (ROOT / "results").exists() else []) == before


def test_every_relation_of_the_schema_has_a_case_that_breaks_it():
    checks = {(notebook, relation["check"]) for notebook, relations in RELATIONS.items()
              for relation in relations}
    assert checks == {(notebook, check) for notebook, _, check, _ in RELATED}


def test_long_values_are_cut_short_in_the_one_line():
    code, _, err, _ = run_cli(["reproduce", "p1-sparsity", "--profile", "ci", "-p",
                               "datasets=[" + ", ".join(["44"] * 3000) + "]"], ROOT)
    assert code == 2 and len(err) < 250, err  # the whole list was 18 kB


def test_the_steps_a_relation_counts_are_the_experiments_own():
    """fw_steps agrees with the check beyond-p2's experiments make, and a real dataset's
    training rows are those of the experiments' split."""
    from dplasso.experiments import beyond_p2
    from dplasso.experiments.p1 import _TEST_SIZE, stratified_splits
    from dplasso.data import load_dataset
    from dplasso.reproduce import parameters

    assert parameters.TEST_SHARE == _TEST_SIZE
    for lam, n, p, epsilons in ((5.0, 1500, 300, [1.0, 5.0]), (5.0, 300, 40, [0.1, 2.0]),
                                (1.0, 100, 10_000, [0.5])):
        steps = parameters._fw_steps(lam, n, p, epsilons)
        for every, fits in ((steps, True), (steps + 1, False)):
            try:
                beyond_p2._check_frequencies_fit([every], lam, n, p, epsilons, None, None)
            except ValueError:
                assert not fits
            else:
                assert fits
    data = load_dataset(1458, "standard")  # arcene: 200 rows
    train, _ = stratified_splits(data.y, 1, random_state=0)[0]
    assert parameters._openml_fw_steps(5.0, [1458, "synthetic"], [1.0]) == parameters._fw_steps(
        5.0, train.size, data.X.shape[1], [1.0]) == parameters._fw_steps(
        5.0, 200 - math.ceil(0.2 * 200), 10_000, [1.0])
    assert parameters._openml_fw_steps(5.0, ["synthetic"], [1.0]) == math.inf


@pytest.mark.parametrize("check, problem", [
    ("__import__('os').system('true')", "uses"),
    ("p.bit_length() > 0", "uses"),
    ("max(everys, key=abs) < 3", "uses"),
    ("[x for x in everys]", "uses"),
    ("everys[0] < 3", "uses"),
    ("lambda: 1", "uses"),
    ("q <= p", "names 'q', not a parameter"),
    ("p <=", "is not an expression"),
])
def test_a_relation_other_than_the_simple_expressions_is_a_schema_error(check, problem, tmp_path):
    (tmp_path / "params").mkdir()
    (tmp_path / "params" / "schema.yaml").write_text(yaml.safe_dump({
        "notebooks": {"nb": {"p": {"type": "int"}, "everys": {"type": "list", "of": {
            "type": "int"}}}},
        "relations": {"nb": [{"check": check, "meaning": "why"}]}}))
    with pytest.raises(ValueError, match=re.escape(f"relations of nb: {check!r} {problem}")):
        load_relations(tmp_path)


def test_a_relation_reading_a_derived_value_is_not_checked_and_others_are():
    specs = {"a": {"type": "int", "optional": True}, "b": {"type": "int"},
             "m": {"type": "mapping", "keys": {"k": {"type": "int"}, "p": {"type": "int"}}}}
    from dplasso.reproduce.parameters import _relation

    relations = [_relation({"check": "a < b or b == 0", "meaning": "a below b"}, specs, "t"),
                 _relation({"check": "not m.k > m.p", "meaning": "k within p"}, specs, "t")]
    assert resolve("nb", specs, {"a": None, "b": 1, "m": {"k": 1, "p": 2}}, {}, {"b": 0},
                   relations)["b"] == 0
    assert resolve("nb", specs, {"a": 5, "b": 1, "m": {"k": 1}}, {}, {"b": 0}, relations)
    with pytest.raises(ValueError, match=re.escape(
            "-p b=1 does not fit notebook 'nb': a < b or b == 0 fails with a=5 (the profile's), "
            "b=1: a below b")):
        resolve("nb", specs, {"b": 1, "m": {"k": 1, "p": 2}}, {"a": 5}, {"b": 1}, relations)
    with pytest.raises(ValueError, match=re.escape(
            "the profile's values do not fit notebook 'nb': not m.k > m.p fails with "
            "m={'k': 3, 'p': 2} (the profile's): k within p")):
        resolve("nb", specs, {"a": None, "b": 0}, {"m": {"k": 3, "p": 2}}, {}, relations)


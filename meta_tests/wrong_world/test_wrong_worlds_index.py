"""docs/wrong-worlds.md, the index of which claims have a wrong-world check, is current."""
import wrong_world_index
from spec_runner import ROOT


def test_the_committed_index_of_wrong_world_checks_is_current():
    page = ROOT / "docs" / "wrong-worlds.md"
    assert page.read_text(encoding="utf-8") == wrong_world_index.render(), (
        "docs/wrong-worlds.md is out of date: "
        "python meta_tests/wrong_world/wrong_world_index.py > docs/wrong-worlds.md")


def test_a_claim_named_by_a_wrong_world_test_counts_as_checked(tmp_path):
    (tmp_path / "test_wrong_world_x.py").write_text(
        'CASES = [("tests/test_nn_layers.py", "nn.dropout-train-eval")]\n'
        'PARAMS = [pytest.param("test_optim.py", "optim.sgd-update", id="sgd-climbs")]\n\n\n'
        "def test_through_params(case=PARAMS):\n    pass\n\n\n"
        "def test_in_the_body(run_spec):\n    assert_goes_red(run_spec(), 'autograd.detach-shared')\n\n\n"
        "def test_through_a_case_list(case=CASES):\n    pass\n\n\n"
        "def test_that_runs_no_spec():\n    assert 'loss.bce' in CASES\n\n\n"
        "def helper():\n    return 'optim.sgd-update'\n", encoding="utf-8")
    found = wrong_world_index.checks(tmp_path)
    assert found == {"autograd.detach-shared": ["test_wrong_world_x.py::test_in_the_body"],
                     "nn.dropout-train-eval": ["test_wrong_world_x.py::test_through_a_case_list"],
                     "optim.sgd-update": ["test_wrong_world_x.py::test_through_params[sgd-climbs]"]}, found

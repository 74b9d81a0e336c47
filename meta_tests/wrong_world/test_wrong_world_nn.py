"""Wrong-world checks for the nn claims: each patch makes torch behave as the claim's wrong version
would (for a refuted claim, as the note says it does), and the claim's tests must go red.

    dropout that does not rescale by 1/(1-p)              -> nn.dropout-train-eval red
    Conv2d / Linear with bias=False that register a zero bias -> nn.bias-none-without-bias red
    loss classes that are plain callables, not nn.Module subclasses
                                                          -> nn.module-base-class red
    add_module that takes dotted names (the note's loop copies nested convs)
                                                          -> nn.named-modules-add-module red
    an RNN whose h_n is output's last step for every layer and direction
                                                          -> nn.rnn-output-vs-hn red
    nn.Linear that ignores its bias, and an nn.ModuleList that keeps its layers unregistered
                                                          -> nn.linear-weight-orientation, nn.modulelist-registers red
    load_state_dict(strict=False) that refuses unexpected keys
                                                          -> nn.load-state-dict-strict-false red
    nn as the notes describe it: a .flops() method on every layer, a parameter .name that names its
      layer, a ModuleList assignable to a weight, batch norm keeping a running std, an RNN h_n with
      a time dimension, nn.Embedding with the note's two parameters (independent patches, one run,
      with lstm_with_the_notes_signature)                 -> nn.flops-method, nn.param-name-attr,
                                                             nn.modulelist-as-weight, nn.bn-params-vs-buffers,
                                                             nn.rnn-hidden-shape red; nn.embedding-shape and
                                                             nn.lstm-signature red on their left-out tests
    an RNN that drops after every layer, the last included, and takes any feature count
                                                          -> nn.rnn-defaults red on its left-out test,
                                                             nn.rnn-size-args red
    layers that refuse the device= keyword (torch before 1.9) -> nn.linear-device-kwarg red (its CPU
                                                             tests; its CUDA test needs a GPU, skips without one)
    the added cases, three worlds in one run: an F.max_pool2d whose stride defaults to 1 (nn.MaxPool2d
      passes the kernel size), a .bias assigned a Parameter left unregistered, an nn.RNN that builds at
      most two layers                                     -> nn.functional-vs-module, nn.parameter-assign red,
                                                             nn.rnn-defaults red on its holding half
                                                             (each on the added case alone)

The partly claims named-modules-add-module, rnn-output-vs-hn, embedding-shape, lstm-signature and
rnn-defaults must go red on their failing half (a left-out test among the red ones).

nn.lstm-signature and nn.load-state-dict-strict-false are also checked in test_wrong_world_autograd.py's
run of four worlds; nn.lstm-signature and nn.embedding-shape, as partly claims, in test_wrong_world_dtype.py.
"""
import pytest

from spec_runner import (
    assert_failing_half_goes_red,
    assert_goes_red,
    assert_holding_half_goes_red,
    claim_args,
    make_runner,
    red_tests,
)

PARTLY = {"nn.named-modules-add-module", "nn.rnn-output-vs-hn"}

CASES = [
    pytest.param("test_nn_dropout.py", "nn.dropout-train-eval", "dropout_without_rescale",
                 "Mismatched elements", id="dropout-without-rescale"),
    pytest.param("test_nn_modules.py", "nn.bias-none-without-bias", "layers_without_bias_get_a_zero_bias",
                 "expected None", id="zero-bias-without-bias"),
    pytest.param("test_nn_modules.py", "nn.module-base-class", "losses_outside_the_module_hierarchy",
                 "loss classes that are not nn.Module subclasses: ['", id="losses-outside-nn-module"),
    pytest.param("test_nn_modules.py", "nn.named-modules-add-module", "add_module_takes_dotted_names",
                 "DID NOT RAISE", id="add-module-takes-dotted-names"),
    pytest.param("test_nn_rnn.py", "nn.rnn-output-vs-hn", "rnn_h_n_is_the_last_output_step",
                 "layer 0's final state is not in output", id="h-n-is-the-last-output-step"),
    # a holds claim (it was partly): the note is wrong where strict=False refuses the unexpected key
    pytest.param("test_nn_modules.py", "nn.load-state-dict-strict-false", "strict_false_refuses_unexpected_keys",
                 "strict=False refuses them", id="strict-false-refuses-unexpected-keys"),
]


@pytest.mark.parametrize("test_file, claim, world, reason", CASES)
def test_claim_goes_red_in_the_wrong_world(run_spec, test_file, claim, world, reason):
    run = run_spec(f"tests/{test_file}", "--claim", claim, "-m", "cpu", world=world)
    # a partly claim in the world where the note is right: red on its failing half
    (assert_failing_half_goes_red if claim in PARTLY else assert_goes_red)(run, claim, reason)


def test_nn_claims_go_red_for_a_bias_free_linear_and_an_unregistering_modulelist(run_spec):
    run = run_spec(
        "--claim", "nn.linear-weight-orientation", "--claim", "nn.modulelist-registers",
        "-m", "cpu", "tests/test_nn_layers.py", "tests/test_nn_modules.py",
        world="linear_without_bias_and_unregistered_modulelist",
    )
    assert_goes_red(run, "nn.linear-weight-orientation", "Mismatched elements")
    assert_goes_red(run, "nn.modulelist-registers", "layers.0.weight")


NOTES_NN_CLAIMS = {
    "nn.flops-method": "DID NOT RAISE",
    "nn.param-name-attr": "['fc1', 'fc1', 'fc2', 'fc2'] == [None, None, None, None]",
    "nn.modulelist-as-weight": "DID NOT RAISE",
    "nn.bn-params-vs-buffers": "'running_std'",
    "nn.rnn-hidden-shape": "no time dimension, batch_first or not",
    "nn.embedding-shape": "parameters after the note's two: []",
    "nn.lstm-signature": "parameters after the note's six",
}
NOTES_NN_PARTLY = {"nn.embedding-shape", "nn.lstm-signature"}


@pytest.fixture(scope="module")
def notes_nn_run(tmp_path_factory):
    run = make_runner(tmp_path_factory.mktemp("nn-notes"))
    files = ["tests/test_nn_modules.py", "tests/test_nn_batchnorm.py", "tests/test_nn_rnn.py",
             "tests/test_nn_layers.py"]
    return run(*files, *claim_args(*NOTES_NN_CLAIMS), "-m", "cpu", "-p", "no:xdist",
               world=("nn_layers_as_the_notes_describe", "lstm_with_the_notes_signature"))


@pytest.mark.parametrize("cid", list(NOTES_NN_CLAIMS))
def test_nn_as_the_notes_describe_turns_the_refuted_nn_claims_red(notes_nn_run, cid):
    if cid in NOTES_NN_PARTLY:
        assert_failing_half_goes_red(notes_nn_run, cid, NOTES_NN_CLAIMS[cid])
    else:
        assert_goes_red(notes_nn_run, cid, NOTES_NN_CLAIMS[cid])


def test_an_rnn_that_drops_every_layer_and_takes_any_features_turns_rnn_claims_red(run_spec):
    run = run_spec("tests/test_nn_rnn.py", *claim_args("nn.rnn-defaults", "nn.rnn-size-args"), "-m", "cpu",
                   world="rnn_drops_every_layer_and_takes_any_feature_count")
    assert_failing_half_goes_red(run, "nn.rnn-defaults", "DID NOT WARN")
    assert_goes_red(run, "nn.rnn-size-args", "DID NOT RAISE")


def test_layers_without_a_device_keyword_turn_linear_device_kwarg_red_on_cpu(run_spec):
    # decided on a GPU, but its meta-device and cpu cases show the keyword at work on any machine
    run = run_spec("tests/test_nn_layers.py", "--claim", "nn.linear-device-kwarg", "-m", "cpu",
                   world="layers_without_a_device_keyword")
    assert_goes_red(run, "nn.linear-device-kwarg", "unexpected keyword argument 'device'")


@pytest.mark.needs(gpus=1)
def test_layers_without_a_device_keyword_turn_linear_device_kwarg_red_on_a_gpu(run_spec):
    run = run_spec("tests/test_nn_layers.py", "--claim", "nn.linear-device-kwarg", "-m", "gpu",
                   world="layers_without_a_device_keyword")
    assert_goes_red(run, "nn.linear-device-kwarg", "unexpected keyword argument 'device'")
    red = [t["nodeid"] for t in run.claim("nn.linear-device-kwarg")["tests"] if t["outcome"] == "failed"]
    assert any("[cuda]" in nodeid for nodeid in red), red


# the added case of each claim: (its test, what its failure says)
NN_ADDED_CASES = {
    "nn.functional-vs-module": ("test_other_layer_objects_equal_their_functional_given_the_layers_weights[max_pool2d]",
                                ("[max_pool2d]: call: AssertionError: max_pool2d",)),
    "nn.parameter-assign": ("test_assigning_a_bias_parameter_sets_it_and_trains_it_too",
                            ("assert [] == ['bias']",)),
    # the test's own getattr of the third layer's weights finds none
    "nn.rnn-defaults": ("test_each_of_num_layers_hidden_layers_has_hidden_size_neurons",
                        ("no attribute 'weight_hh_l2'",)),
}


def test_a_strided_f_max_pool2d_an_unregistered_bias_and_a_two_layer_rnn_turn_added_cases_red(run_spec):
    run = run_spec("tests/test_nn_layers.py", "tests/test_nn_modules.py", "tests/test_nn_rnn.py",
                   *claim_args(*NN_ADDED_CASES), "-m", "cpu",
                   world=("functional_max_pool2d_strides_by_one", "bias_assignment_left_unregistered",
                          "rnn_builds_at_most_two_layers"))
    for claim, (test, fragments) in NN_ADDED_CASES.items():
        # nn.rnn-defaults is partly: the world breaks the half that holds
        (assert_holding_half_goes_red if claim == "nn.rnn-defaults" else assert_goes_red)(run, claim, *fragments)
        # red on the added case alone: the claim's other tests pass in these worlds
        red = red_tests(run, claim)
        assert red == [test], f"{claim}: red tests {red}"

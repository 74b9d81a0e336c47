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

nn.lstm-signature and nn.load-state-dict-strict-false are checked in test_wrong_world_autograd.py's
run of four worlds where the note would be right and, as partly claims, in test_wrong_world_dtype.py;
nn.embedding-shape there too.
"""
import pytest

from spec_runner import assert_goes_red

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
]


@pytest.mark.parametrize("test_file, claim, world, reason", CASES)
def test_claim_goes_red_in_the_wrong_world(run_spec, test_file, claim, world, reason):
    run = run_spec(f"tests/{test_file}", "--claim", claim, "-m", "cpu", world=world)
    assert_goes_red(run, claim, reason)


def test_nn_claims_go_red_for_a_bias_free_linear_and_an_unregistering_modulelist(run_spec):
    run = run_spec(
        "--claim", "nn.linear-weight-orientation", "--claim", "nn.modulelist-registers",
        "-m", "cpu", "tests/test_nn_layers.py", "tests/test_nn_modules.py",
        world="linear_without_bias_and_unregistered_modulelist",
    )
    assert_goes_red(run, "nn.linear-weight-orientation", "Mismatched elements")
    assert_goes_red(run, "nn.modulelist-registers", "layers.0.weight")

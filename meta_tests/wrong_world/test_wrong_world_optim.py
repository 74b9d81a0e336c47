"""Wrong-world checks for the optim claims: each patch puts torch into a world where a claim's stated
behaviour is different (or, for a refuted claim, where the note would be right); the claim's tests
must go red there, for the reason their assertions give.

    Optimizer.zero_grad that does nothing                 -> optim.zero-grad-clears red
    Module.zero_grad that still zeros (set_to_none=False) -> optim.model-zero-grad-zeros red
    optimizers that hold copies of the parameters given   -> optim.param-groups-are-model-parameters red
    the note's world, where a gradient that is not cleared turns into random values, and a world
      where backward() overwrites .grad instead of adding to it
                                                          -> optim.no-zero-grad red
    SGD that climbs (x <- x + lr * grad)                  -> optim.sgd-update red
    optimizers with grad_zero as an alias of zero_grad    -> optim.grad-zero-typo red
      (both in the spec run shared with autograd and init: conftest.py, optim_autograd_init_run)
    two worlds in one spec run:
      the note's world for the yolov5 loop: model.modules() reaches every parameter as a weight or
        a bias (an LSTM's too)                            -> optim.yolo-param-groups red (failing half)
      SGD and Adam whose step() performs two iterations    -> optim.trainer-sgd-adam-step red
    four worlds in one spec run, each turning red only the case re-judging added to its claim:
      plain SGD that applies its update on the first step only
                                                          -> optim.sgd-update red (three steps, two parameters)
      Optimizer.zero_grad that clears only the first parameter group
                                                          -> optim.zero-grad-clears red (two groups)
      SGD (not nesterov) that forgets its momentum buffer between steps
                                                          -> optim.param-groups-lr red (the second step)
      an added group of params alone that steps without the inherited nesterov momentum
                                                          -> optim.add-param-group red (all three groups stepping)
"""
import pytest

from spec_runner import assert_failing_half_goes_red, assert_goes_red, red_tests

CASES = [
    pytest.param("test_optim_zero_grad.py", "optim.zero-grad-clears", "optimizer_zero_grad_does_nothing",
                 "grads left", id="zero-grad-noop"),
    pytest.param("test_optim_zero_grad.py", "optim.model-zero-grad-zeros", "module_zero_grad_still_zeros",
                 "set_to_none defaults to False, expected True", id="zero-grad-zeros"),
    pytest.param("test_optim_zero_grad.py", "optim.param-groups-are-model-parameters", "optimizer_holds_copies",
                 "the model's parameters() are", id="optimizer-holds-copies"),
]


@pytest.mark.parametrize("test_file, claim, world, reason", CASES)
def test_claim_goes_red_in_the_wrong_world(run_spec, test_file, claim, world, reason):
    run = run_spec(f"tests/{test_file}", "--claim", claim, "-m", "cpu", world=world)
    assert_goes_red(run, claim, reason)


def test_uncleared_gradients_turning_into_noise_turn_optim_no_zero_grad_red(run_spec):
    run = run_spec("tests/test_optim_zero_grad.py", "-m", "cpu", "--claim", "optim.no-zero-grad",
                   world="uncleared_grad_is_noise")
    assert_goes_red(run, "optim.no-zero-grad", "is not the previous .grad plus this step's own gradient")


def test_backward_overwriting_grad_turns_optim_no_zero_grad_red(run_spec):
    run = run_spec("tests/test_optim_zero_grad.py", "-m", "cpu", "--claim", "optim.no-zero-grad",
                   world="backward_overwrites_grad")
    assert_goes_red(run, "optim.no-zero-grad", "is not the previous .grad plus this step's own gradient")


def test_sgd_that_adds_lr_times_grad_turns_sgd_update_red(optim_autograd_init_run):
    assert_goes_red(optim_autograd_init_run, "optim.sgd-update", "Tensor-likes are not close")


def test_optimizers_with_grad_zero_turn_the_typo_test_red(optim_autograd_init_run):
    assert_goes_red(optim_autograd_init_run, "optim.grad-zero-typo", "DID NOT RAISE")


def test_every_parameter_grouped_and_a_step_that_iterates_twice_turn_yolo_and_trainer_claims_red(run_spec):
    run = run_spec("tests/test_optim.py", "-m", "cpu", "--claim", "optim.yolo-param-groups",
                   "--claim", "optim.trainer-sgd-adam-step",
                   world=("modules_reach_every_parameter_as_weight_or_bias", "optimizer_step_runs_two_iterations"))
    assert_failing_half_goes_red(run, "optim.yolo-param-groups",
                                 "Right contains 4 more items, first extra item: 'rnn.bias_hh_l0'")
    assert_goes_red(run, "optim.trainer-sgd-adam-step", "step 1, parameter 0")




# the cases re-judging added to four claims, each red in a world of its own; the worlds stack in one
# spec run because none reaches another's case (plain SGD, several groups, momentum without nesterov,
# nesterov SGD), and every case the claims had before stays green: the fragment is the added case's
ADDED_CASES = {  # claim: (world, fragment, the added test)
    "optim.sgd-update": ("sgd_steps_only_once", "step 1, parameter 0: Tensor-likes are not close",
                         "test_every_plain_sgd_step_subtracts_lr_times_that_steps_grad"),
    "optim.zero-grad-clears": ("zero_grad_clears_the_first_group_only", "group 1 kept its gradients",
                               "test_optimizer_zero_grad_clears_every_parameter_group"),
    "optim.param-groups-lr": ("sgd_forgets_momentum_between_steps", "step 2, conv1.weight: Tensor-likes are not close",
                              "test_finetune_groups_keep_their_lr_momentum_and_weight_decay_on_the_second_step"),
    "optim.add-param-group": ("added_groups_skip_nesterov_momentum", "step 1, conv1.bias: Tensor-likes are not close",
                              "test_every_added_group_steps_with_the_inherited_lr_and_nesterov_momentum_over_two_steps"),
}


@pytest.fixture(scope="module")
def added_cases_run(tmp_path_factory):
    from spec_runner import claim_args, make_runner

    run = make_runner(tmp_path_factory.mktemp("optim_added_cases"))
    return run("tests/test_optim.py", "tests/test_optim_zero_grad.py", *claim_args(*ADDED_CASES), "-m", "cpu",
               world=tuple(world for world, _, _ in ADDED_CASES.values()))


@pytest.mark.parametrize("cid", ADDED_CASES)
def test_the_case_added_to_an_optim_claim_goes_red_in_a_world_of_its_own(added_cases_run, cid):
    _, fragment, added = ADDED_CASES[cid]
    assert_goes_red(added_cases_run, cid, fragment)
    assert red_tests(added_cases_run, cid) == [added]

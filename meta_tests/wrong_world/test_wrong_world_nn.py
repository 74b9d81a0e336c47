"""Wrong-world checks for the nn claims: each patch makes torch behave as the claim's wrong version
would, and the claim's tests must go red.

    dropout that does not rescale by 1/(1-p)              -> nn.dropout-train-eval red
    nn.Linear that ignores its bias, and an nn.ModuleList that keeps its layers unregistered
                                                          -> nn.linear-weight-orientation, nn.modulelist-registers red

nn.lstm-signature and nn.load-state-dict-strict-false are checked in test_wrong_world_autograd.py's
run of four worlds where the note would be right and, as partly claims, in test_wrong_world_dtype.py;
nn.embedding-shape there too.
"""
import pytest

from spec_runner import assert_goes_red

DROPOUT_WITHOUT_RESCALE = """
import torch.nn.functional as F
_dropout = F.dropout
def dropout(input, p=0.5, training=True, inplace=False):
    out = _dropout(input, p, training, inplace)
    return out * (1 - p) if training else out
F.dropout = dropout
"""


CASES = [
    pytest.param("test_nn_dropout.py", "nn.dropout-train-eval", DROPOUT_WITHOUT_RESCALE,
                 "Mismatched elements", id="dropout-without-rescale"),
]


@pytest.mark.parametrize("test_file, claim, patch, reason", CASES)
def test_claim_goes_red_in_the_wrong_world(run_spec, test_file, claim, patch, reason):
    run = run_spec(f"tests/{test_file}", "--claim", claim, "-m", "cpu", patch=patch)
    assert_goes_red(run, claim, reason)


# nn.Linear that ignores its bias, and an nn.ModuleList that keeps its layers unregistered.
LINEAR_WITHOUT_BIAS_AND_UNREGISTERED_MODULELIST = """
import torch
import torch.nn.functional as F
_linear = F.linear
F.linear = lambda input, weight, bias=None: _linear(input, weight)

class ModuleList(torch.nn.Module):
    def __init__(self, modules=None):
        super().__init__()
        object.__setattr__(self, "_items", list(modules or []))
    def __iter__(self):
        return iter(self._items)
    def __getitem__(self, i):
        return self._items[i]
    def __len__(self):
        return len(self._items)
torch.nn.ModuleList = ModuleList
"""


def test_nn_claims_go_red_for_a_bias_free_linear_and_an_unregistering_modulelist(run_spec):
    run = run_spec(
        "--claim", "nn.linear-weight-orientation", "--claim", "nn.modulelist-registers",
        "-m", "cpu", "tests/test_nn_layers.py", "tests/test_nn_modules.py",
        patch=LINEAR_WITHOUT_BIAS_AND_UNREGISTERED_MODULELIST,
    )
    assert_goes_red(run, "nn.linear-weight-orientation", "Mismatched elements")
    assert_goes_red(run, "nn.modulelist-registers", "layers.0.weight")

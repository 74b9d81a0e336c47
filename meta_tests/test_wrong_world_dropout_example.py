"""Wrong-world check (example for the pattern): dropout that does not rescale survivors."""
from spec_runner import assert_goes_red

NO_RESCALE = """
import torch
import torch.nn.functional as F

_dropout = F.dropout

def dropout(input, p=0.5, training=True, inplace=False):
    out = _dropout(input, p, training, inplace)
    return out * (1 - p) if training else out

F.dropout = dropout
"""


def test_dropout_that_does_not_rescale_turns_nn_dropout_train_eval_red(run_spec):
    run = run_spec("--claim", "nn.dropout-train-eval", "-m", "cpu", patch=NO_RESCALE)
    assert_goes_red(run, "nn.dropout-train-eval", "Mismatched elements")

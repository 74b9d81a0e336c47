"""Dropout in training and evaluation mode.

Notes: 004_79576bb56bce5aea.txt › 杂录 (nn.Dropout example with p=0.3).
"""
import pytest
import torch
from torch import nn
from torch.testing import assert_close

P = 0.3


@pytest.mark.claim("nn.dropout-train-eval")
def test_dropout_train_zeroes_with_probability_p_and_rescales_survivors(device):
    x = torch.full((200_000,), 3.0, device=device)
    drop = nn.Dropout(P).train()
    y = drop(x)
    kept = y != 0
    # every survivor is scaled by exactly 1/(1-p); nothing else but 0 appears
    assert_close(y[kept], torch.full_like(y[kept], 3.0 / (1 - P)))
    zero_rate = 1 - kept.float().mean().item()
    # 200k Bernoulli draws: standard error ~0.001, so 0.01 separates p from any other rate
    assert abs(zero_rate - P) < 0.01, f"zeroed fraction {zero_rate:.4f}, expected p = {P}"
    # the rescaling keeps the expectation: mean stays at the input value
    assert abs(y.mean().item() - 3.0) < 0.03, f"mean after dropout {y.mean().item():.4f}, expected 3.0"


@pytest.mark.claim("nn.dropout-train-eval")
def test_dropout_eval_is_identity(device):
    x = torch.randn(1000, device=device)
    drop = nn.Dropout(P).eval()
    y = drop(x)
    assert torch.equal(y, x), "eval-mode dropout changed its input"


@pytest.mark.claim("nn.dropout-example-values")
def test_note_example_output_is_one_of_the_possible_training_outputs():
    x = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0])
    printed = torch.tensor([0.0000, 2.8571, 4.2857, 5.7143, 7.1429])
    drop = nn.Dropout(P)
    # the printed vector is "first element dropped, the rest divided by 0.7", to 4 decimals
    mask = printed != 0
    assert_close(printed[mask], x[mask] / (1 - P), atol=5e-5, rtol=0)
    # and training-mode dropout really produces it for some seed
    for seed in range(2000):
        torch.manual_seed(seed)
        if torch.equal(drop(x) != 0, mask):
            torch.manual_seed(seed)
            assert_close(drop(x), printed, atol=5e-5, rtol=0)
            break
    else:
        pytest.fail("no seed in 0..1999 produced the note's dropout mask")
    assert torch.equal(drop.eval()(x), x), "eval mode must print [1, 2, 3, 4, 5]"

"""BatchNorm: learnable parameters vs running-statistics buffers.

Notes: 000_03e1e7bc9bbd04f1.txt › 1. 模型 › 模型参数 (the BN special case of parameters()
vs state_dict()).
"""
import pytest
import torch
from torch import nn
from torch.testing import assert_close


@pytest.mark.claim("nn.bn-params-vs-buffers")
def test_bn_parameters_are_weight_and_bias_only(device):
    bn = nn.BatchNorm2d(3).to(device)
    assert [name for name, _ in bn.named_parameters()] == ["weight", "bias"]
    assert all(p.requires_grad for p in bn.parameters())


@pytest.mark.claim("nn.bn-params-vs-buffers", decides="wrong")
def test_bn_state_dict_adds_running_mean_and_running_var_buffers_not_std(device):
    bn = nn.BatchNorm2d(3).to(device)
    keys = list(bn.state_dict())
    assert keys == ["weight", "bias", "running_mean", "running_var", "num_batches_tracked"], keys
    assert {n for n, _ in bn.named_buffers()} == {"running_mean", "running_var", "num_batches_tracked"}
    assert not any(b.requires_grad for b in bn.buffers())
    assert "running_std" not in keys


@pytest.mark.claim("nn.bn-params-vs-buffers", decides="wrong")
def test_bn_running_var_tracks_the_variance_not_the_standard_deviation(device):
    bn = nn.BatchNorm1d(2, momentum=1.0).to(device)  # momentum 1: the buffers take the batch statistics
    x = torch.tensor([[0.0, 1.0], [2.0, 5.0], [4.0, 9.0]], device=device)
    bn.train()(x)
    assert_close(bn.running_mean, x.mean(0))
    assert_close(bn.running_var, x.var(0, unbiased=True))  # [4, 16]: variances
    assert not torch.allclose(bn.running_var, x.std(0, unbiased=True)), "running_var is not a std"
    assert bn.num_batches_tracked.item() == 1

"""nn.init: kaiming_normal_, constant_, xavier_normal_, xavier_uniform_, normal_.

Notes: 000_03e1e7bc9bbd04f1.txt › 1. 模型 and 002_d3afcdbaa9416717.txt › 模型权重初始化 (the
model.modules() init loop); 003_df07c2a5da61a567.txt › 4 torch 神经网络 (xavier_uniform_ and
normal_ on a weight or a bias).

Standard deviations are checked on tensors of tens of thousands of draws: the sample std then
has a relative standard error of 1/sqrt(2N) < 0.4 %, so a 3 % tolerance cannot be missed by
luck, while the shapes are chosen so that the formulas one might confuse (fan_in instead of
fan_out, a missing factor 2) are more than 9 % away.
"""
import math

import pytest
import torch
from torch import nn
from torch.testing import assert_close

STD_RTOL = 0.03


def _fans(shape):
    """fan_in, fan_out computed by hand: (out, in, *kernel) -> (in * k, out * k)."""
    receptive = math.prod(shape[2:])
    return shape[1] * receptive, shape[0] * receptive


def _assert_std(t: torch.Tensor, expected: float, *wrong: float):
    __tracebackhide__ = True
    n = t.numel()
    std = t.std().item()
    mean = t.mean().item()
    assert abs(std / expected - 1) < STD_RTOL, f"sample std {std:.5f}, expected {expected:.5f} (n={n})"
    assert abs(mean) < 5 * expected / math.sqrt(n), f"sample mean {mean:.5f}, expected 0"
    for other in wrong:  # the test would notice the confusable formula
        assert abs(other / expected - 1) > 3 * STD_RTOL, f"shape cannot tell {expected:.5f} from {other:.5f}"


def _note_init_loop(model):
    """The note's init loop over model.modules(), re-typed."""
    for layer in model.modules():
        if isinstance(layer, torch.nn.Conv2d):
            torch.nn.init.kaiming_normal_(layer.weight, mode="fan_out", nonlinearity="relu")
            if layer.bias is not None:
                torch.nn.init.constant_(layer.bias, val=0.0)
        elif isinstance(layer, torch.nn.BatchNorm2d):
            torch.nn.init.constant_(layer.weight, val=1.0)
            torch.nn.init.constant_(layer.bias, val=0.0)
        elif isinstance(layer, torch.nn.Linear):
            torch.nn.init.xavier_normal_(layer.weight)
            if layer.bias is not None:
                torch.nn.init.constant_(layer.bias, val=0.0)


def _model():
    return nn.Sequential(
        nn.Conv2d(32, 128, 3), nn.BatchNorm2d(128), nn.ReLU(), nn.Flatten(), nn.Linear(256, 1024)
    )


def _scramble(model):
    """Give BatchNorm non-default affine parameters, so setting 1 and 0 is visible."""
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.weight.normal_()
                m.bias.normal_()


@pytest.mark.claim("init.kaiming-conv")
def test_kaiming_normal_fan_out_relu_has_std_sqrt_2_over_fan_out():
    model = _model()
    _note_init_loop(model)
    w = model[0].weight
    fan_in, fan_out = _fans(w.shape)
    assert (fan_in, fan_out) == (32 * 9, 128 * 9)
    _assert_std(w, math.sqrt(2 / fan_out), math.sqrt(2 / fan_in), math.sqrt(1 / fan_out))
    assert torch.equal(model[0].bias, torch.zeros(128))


@pytest.mark.claim("init.kaiming-conv", decides="holds")
def test_the_note_loop_gives_every_conv_layer_its_own_fan_out_std():
    # the loop walks model.modules(): a second, nested Conv2d of another shape gets its own std
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(32, 128, 3), nn.ReLU(), nn.Sequential(nn.Conv2d(128, 48, 5), nn.ReLU()))
    _note_init_loop(model)
    for conv in (model[0], model[2][0]):
        fan_in, fan_out = _fans(conv.weight.shape)
        _assert_std(conv.weight, math.sqrt(2 / fan_out), math.sqrt(2 / fan_in), math.sqrt(1 / fan_out))
        assert torch.equal(conv.bias, torch.zeros_like(conv.bias))


@pytest.mark.claim("init.bn-constant")
def test_constant_sets_batchnorm_weight_to_one_and_bias_to_zero():
    model = _model()
    _scramble(model)
    bn = model[1]
    assert not torch.equal(bn.weight, torch.ones(128))
    _note_init_loop(model)
    assert torch.equal(bn.weight, torch.ones(128)), f"bn.weight after constant_(weight, 1.0): {bn.weight}"
    assert torch.equal(bn.bias, torch.zeros(128)), f"bn.bias after constant_(bias, 0.0): {bn.bias}"
    assert isinstance(bn.weight, nn.Parameter) and bn.weight.requires_grad, "init must keep a trainable Parameter"


@pytest.mark.claim("init.xavier-normal-linear")
def test_xavier_normal_on_linear_has_std_sqrt_2_over_fan_in_plus_fan_out():
    model = _model()
    _note_init_loop(model)
    w = model[4].weight  # Linear(256, 1024): weight (1024, 256)
    fan_in, fan_out = _fans(w.shape)
    assert (fan_in, fan_out) == (256, 1024)
    _assert_std(
        w,
        math.sqrt(2 / (fan_in + fan_out)),
        math.sqrt(2 / fan_out),  # kaiming-style on fan_out
        math.sqrt(1 / fan_out),
        math.sqrt(1 / fan_in),
    )
    assert torch.equal(model[4].bias, torch.zeros(1024))


@pytest.mark.claim("init.xavier-bias")
def test_xavier_uniform_initializes_a_weight_within_its_bound():
    layer = nn.Linear(300, 200)
    nn.init.xavier_uniform_(layer.weight)
    fan_in, fan_out = _fans(layer.weight.shape)
    bound = math.sqrt(6 / (fan_in + fan_out))
    assert layer.weight.abs().max().item() <= bound
    _assert_std(layer.weight, bound / math.sqrt(3))  # uniform(-a, a) has std a/sqrt(3)


@pytest.mark.claim("init.xavier-bias", decides="wrong")
def test_xavier_uniform_rejects_a_one_dimensional_bias():
    layer = nn.Linear(300, 200)
    before = layer.bias.detach().clone()
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        nn.init.xavier_uniform_(layer.bias)
    assert torch.equal(layer.bias, before)


MEAN, STD = 0.5, 2.0


@pytest.mark.claim("init.normal")
@pytest.mark.parametrize("which", ["weight", "bias"])
def test_normal_initializes_a_weight_or_a_bias_with_positional_mean_and_std(which):
    layer = nn.Linear(1, 100_000)  # weight (100000, 1) and bias (100000,): both large
    t = getattr(layer, which)
    nn.init.normal_(t, MEAN, STD)  # positional, as in the note: (tensor, mean, std)
    n = t.numel()
    assert abs(t.mean().item() - MEAN) < 5 * STD / math.sqrt(n), f"mean {t.mean().item():.4f}, expected {MEAN}"
    assert_close(t.std().item(), STD, rtol=STD_RTOL, atol=0)
    assert isinstance(t, nn.Parameter) and t.requires_grad


@pytest.mark.claim("init.constant-bias-zero", decides="holds")
@pytest.mark.parametrize("make", [lambda: nn.Conv2d(3, 8, 3), lambda: nn.Linear(4, 2)], ids=["conv2d", "linear"])
def test_constant_zero_sets_a_conv_or_linear_bias_to_zeros(make):
    layer = make()
    assert layer.bias.abs().sum() > 0, "the default init already zeroed the bias: the test would show nothing"
    nn.init.constant_(layer.bias, val=0.0)
    assert torch.equal(layer.bias, torch.zeros_like(layer.bias)), f"bias after constant_(bias, 0.0): {layer.bias}"

"""zero_grad: model vs optimizer, set-to-None vs zeros, and training without it.

Notes: 001_eaed12e493b64ab2.txt › loss.backward() 和 optimizer.step(),
› model.zero_grad() 与 optimizer.zero_grad(); 003_df07c2a5da61a567.txt › 4 torch 神经网络,
› 6 常见错误.
"""
import inspect

import pytest
import torch
from torch import nn
from torch.testing import assert_close

from fixtures.boundaries import SET_TO_NONE_DEFAULT_SINCE
from fixtures.versions import torch_at_least


def with_grads(*modules):
    for m in modules:
        m(torch.randn(2, m.in_features)).sum().backward()
    return modules


def grads(module):
    return [p.grad for p in module.parameters()]


def cleared(grad):
    """A gradient counts as cleared when it is None or all zeros."""
    return grad is None or not grad.any()


@pytest.mark.claim("optim.zero-grad-clears")
def test_optimizer_zero_grad_clears_exactly_the_parameters_it_optimizes():
    optimized, other = with_grads(nn.Linear(3, 2), nn.Linear(3, 2))
    opt = torch.optim.SGD(optimized.parameters(), lr=0.1)
    opt.zero_grad()
    assert all(cleared(g) for g in grads(optimized)), f"grads left: {grads(optimized)}"
    assert all(g is not None and g.any() for g in grads(other)), "a parameter outside the optimizer was cleared"


@pytest.mark.claim("optim.zero-grad-clears")
def test_zero_grad_before_backward_leaves_only_the_new_gradient():
    net = nn.Linear(3, 1)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    x = torch.randn(4, 3)
    net(torch.randn(4, 3)).sum().backward()  # a stale gradient from an earlier step
    opt.zero_grad()
    net(x).sum().backward()
    assert_close(net.weight.grad, x.sum(0, keepdim=True))


@pytest.mark.claim("optim.zero-grad-clears", decides="holds")
def test_optimizer_zero_grad_clears_every_parameter_group():
    first, second = with_grads(nn.Linear(3, 2), nn.Linear(3, 2))
    opt = torch.optim.SGD([{"params": first.parameters()}, {"params": second.parameters(), "lr": 0.01}], lr=0.1)
    opt.zero_grad()
    for i, module in enumerate((first, second)):
        assert all(cleared(g) for g in grads(module)), f"group {i} kept its gradients: {grads(module)}"


@pytest.mark.claim("optim.model-zero-grad-zeros", decides="by-version")
def test_model_zero_grad_default_matches_the_version_boundary():
    (net,) = with_grads(nn.Linear(3, 2))
    default = inspect.signature(nn.Module.zero_grad).parameters["set_to_none"].default
    net.zero_grad()
    if torch_at_least(SET_TO_NONE_DEFAULT_SINCE):
        assert default is True, f"set_to_none defaults to {default}, expected True"
        assert all(g is None for g in grads(net)), f"expected None grads, got {grads(net)}"
    else:
        assert default is False, f"set_to_none defaults to {default}, expected False"
        assert all(g is not None and not g.any() for g in grads(net)), f"expected zero grads, got {grads(net)}"
    # zeros are still one keyword away
    with_grads(net)
    net.zero_grad(set_to_none=False)
    assert all(g is not None and not g.any() for g in grads(net))


@pytest.mark.claim("optim.zero-grad-equivalent")
def test_model_and_optimizer_zero_grad_agree_when_the_optimizer_holds_all_parameters():
    a, b = with_grads(nn.Linear(3, 2), nn.Linear(3, 2))
    b.load_state_dict(a.state_dict())
    for p, q in zip(a.parameters(), b.parameters()):
        q.grad = p.grad.clone()
    a.zero_grad()
    torch.optim.SGD(b.parameters(), lr=0.1).zero_grad()
    for ga, gb in zip(grads(a), grads(b)):
        assert (ga is None) == (gb is None)
        if ga is not None:
            assert torch.equal(ga, gb)


@pytest.mark.claim("optim.zero-grad-multi-model")
def test_with_one_optimizer_over_two_models_model_zero_grad_clears_only_its_model():
    m1, m2 = with_grads(nn.Linear(3, 2), nn.Linear(3, 2))
    opt = torch.optim.SGD([*m1.parameters(), *m2.parameters()], lr=0.1)
    m1.zero_grad()
    assert all(cleared(g) for g in grads(m1))
    assert not any(cleared(g) for g in grads(m2)), "model.zero_grad() reached the other model"
    opt.zero_grad()
    assert all(cleared(g) for g in grads(m2)), "optimizer.zero_grad() clears both models"


@pytest.mark.claim("optim.zero-grad-multi-opt")
def test_with_two_optimizers_over_one_model_one_optimizer_clears_only_its_share():
    net = nn.Sequential(nn.Linear(3, 3), nn.Linear(3, 1))
    net(torch.randn(2, 3)).sum().backward()
    opt_first = torch.optim.SGD(net[0].parameters(), lr=0.1)
    torch.optim.SGD(net[1].parameters(), lr=0.1)
    opt_first.zero_grad()
    assert all(cleared(p.grad) for p in net[0].parameters())
    assert not any(cleared(p.grad) for p in net[1].parameters()), "one optimizer cleared the other's parameters"
    net.zero_grad()
    assert all(cleared(p.grad) for p in net.parameters())


def regression():
    """A least-squares problem, its Linear model and SGD (lr 0.05), all from seed 0."""
    torch.manual_seed(0)
    x = torch.randn(64, 3)
    y = x @ torch.tensor([[1.5], [-2.0], [0.5]])
    net = nn.Linear(3, 1)
    return x, y, net, torch.optim.SGD(net.parameters(), lr=0.05)


def train(steps, zero_grad):
    """Losses of `steps` SGD steps; without zero_grad, each backward() is checked on the way:
    the new .grad must be the old .grad plus this step's own gradient, which
    torch.autograd.grad computes beside it without reading or writing any .grad."""
    x, y, net, opt = regression()
    params = list(net.parameters())
    losses = []
    for step in range(steps):
        if zero_grad:
            opt.zero_grad()
        loss = nn.functional.mse_loss(net(x), y)
        own = torch.autograd.grad(loss, params, retain_graph=True)
        before = [None if p.grad is None else p.grad.clone() for p in params]
        loss.backward()
        for p, old, g in zip(params, before, own):
            expected = g if old is None else old + g
            assert_close(p.grad, expected, msg=lambda m: (
                f"step {step}: .grad is not the previous .grad plus this step's own gradient\n{m}"))
        losses.append(loss.item())
        opt.step()
    return losses


def running_sum_descent(steps):
    """The same problem stepped by hand, x <- x - lr * (sum of every gradient so far),
    with gradients from torch.autograd.grad: no .grad, no optimizer, nothing random."""
    x, y, net, _ = regression()
    params = list(net.parameters())
    running = [torch.zeros_like(p) for p in params]
    losses = []
    for _ in range(steps):
        loss = nn.functional.mse_loss(net(x), y)
        with torch.no_grad():
            for p, r, g in zip(params, running, torch.autograd.grad(loss, params)):
                r.add_(g)
                p.add_(r, alpha=-0.05)
        losses.append(loss.item())
    return losses


@pytest.mark.claim("optim.no-zero-grad", decides="wrong")
def test_without_zero_grad_each_backward_adds_its_gradient_to_the_old_one():
    # train() asserts, step by step, old .grad + own gradient == new .grad: an exact sum, no noise
    losses = train(40, zero_grad=False)
    # the whole run is reproduced by descending along the running sum of the gradients
    assert_close(losses, running_sum_descent(40), rtol=1e-5, atol=1e-6)


@pytest.mark.claim("optim.no-zero-grad", decides="holds")
@pytest.mark.claim("optim.zero-grad-loss-stays-high", decides="holds")
def test_the_running_sum_step_makes_the_loss_oscillate_far_above_the_cleared_run():
    # SGD without zero_grad (the run the test above ties to the running-sum descent) swings
    # back and forth instead of settling, far above the run that clears the gradients
    losses, clean = train(40, zero_grad=False), train(40, zero_grad=True)
    tail = losses[10:]
    turns = sum((b - a) * (c - b) < 0 for a, b, c in zip(tail, tail[1:], tail[2:]))
    assert min(tail) > 10 * clean[-1], f"loss without zero_grad {min(tail):.3g}, with it {clean[-1]:.3g}"
    assert turns >= 4, f"without zero_grad the loss should oscillate; it turned {turns} times: {tail}"


@pytest.mark.claim("optim.param-groups-are-model-parameters", decides="holds")
@pytest.mark.parametrize("optimizer_class", [torch.optim.SGD, torch.optim.Adam], ids=["SGD", "Adam"])
def test_an_optimizer_over_net_parameters_holds_exactly_the_models_parameters(optimizer_class):
    net = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    optimizer = optimizer_class(net.parameters(), lr=0.1)
    held = [p for group in optimizer.param_groups for p in group["params"]]
    model = list(net.parameters())
    assert len(optimizer.param_groups) == 1, f"{len(optimizer.param_groups)} groups, expected 1"
    assert len(held) == len(model) and all(a is b for a, b in zip(held, model)), (
        f"param_groups hold {[tuple(p.shape) for p in held]}, "
        f"the model's parameters() are {[tuple(p.shape) for p in model]}"
    )

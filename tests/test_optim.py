"""Optimizers: the SGD update, parameter groups, add_param_group, nesterov, the grad_zero typo.

Notes: 001_eaed12e493b64ab2.txt › loss.backward() 和 optimizer.step() (the SGD formula);
000_03e1e7bc9bbd04f1.txt and 002_d3afcdbaa9416717.txt › 以较大学习率微调全连接层，较小学习率微调卷积层
(parameter groups); 003_df07c2a5da61a567.txt › 4 torch 神经网络 (trainer.grad_zero());
004_79576bb56bce5aea.txt › 零碎记录 (the yolov5 optimizer recipe).

The zero_grad family is covered in test_optim_zero_grad.py.
"""
import pytest
import torch
from torch import nn
from torch.testing import assert_close

# yolov5's hyperparameters (data/hyps/hyp.scratch-low.yaml)
HYP = {"lr0": 0.01, "momentum": 0.937, "weight_decay": 0.0005}


class _FineTuneNet(nn.Module):
    """A tiny stand-in for resnet18: convolutions, batch norm and a `fc` head."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 4, 3)
        self.bn1 = nn.BatchNorm2d(4)
        self.fc = nn.Linear(4, 2)


def _with_unit_grads(params):
    for p in params:
        p.grad = torch.ones_like(p)


# --- the SGD update --------------------------------------------------------------------------


@pytest.mark.claim("optim.sgd-update")
@pytest.mark.parametrize("lr", [0.1, 0.5])
def test_plain_sgd_step_subtracts_lr_times_grad(lr):
    x = nn.Parameter(torch.tensor([1.0, -2.0, 3.0]))
    loss = (x**2).sum()
    loss.backward()
    before, grad = x.detach().clone(), x.grad.clone()
    torch.optim.SGD([x], lr=lr).step()
    assert_close(x.detach(), before - lr * grad)
    assert torch.equal(x.grad, grad), "step() must not touch the gradient"


@pytest.mark.claim("optim.sgd-update", decides="holds")
def test_every_plain_sgd_step_subtracts_lr_times_that_steps_grad():
    lr = 0.1
    params = [nn.Parameter(torch.tensor([1.0, -2.0, 3.0])), nn.Parameter(torch.tensor([[0.5, -1.5]]))]
    opt = torch.optim.SGD(params, lr=lr)
    for step in range(3):  # the formula holds at every step, for every parameter, not only the first
        opt.zero_grad()
        sum(((p - step) ** 3).sum() for p in params).backward()
        before = [(p.detach().clone(), p.grad.clone()) for p in params]
        opt.step()
        for i, (p, (old, grad)) in enumerate(zip(params, before)):
            expected = old - lr * grad
            assert_close(p.detach(), expected, msg=lambda m, s=step, i=i: f"step {s}, parameter {i}: {m}")


# --- parameter groups ---------------------------------------------------------------------


NOTE_FINETUNE_GROUPS = """\
finetuned_parameters = list(map(id, model.fc.parameters()))
conv_parameters = (p for p in model.parameters() if id(p) not in finetuned_parameters)
parameters = [{'params': conv_parameters, 'lr': 1e-3},
              {'params': model.fc.parameters()}]
optimizer = torch.optim.SGD(parameters, lr=1e-2, momentum=0.9, weight_decay=1e-4)
"""


@pytest.mark.claim("optim.param-groups-lr")
def test_finetune_groups_get_their_own_lr_and_share_momentum_and_weight_decay():
    model = _FineTuneNet()
    ns = {"model": model, "torch": torch}
    exec(compile(NOTE_FINETUNE_GROUPS, "<note>", "exec"), ns)
    conv_group, fc_group = ns["optimizer"].param_groups
    assert [id(p) for p in fc_group["params"]] == [id(p) for p in model.fc.parameters()]
    assert len(conv_group["params"]) == len(list(model.parameters())) - 2
    assert (conv_group["lr"], fc_group["lr"]) == (1e-3, 1e-2)
    for group in (conv_group, fc_group):
        assert (group["momentum"], group["weight_decay"]) == (0.9, 1e-4)

    # the effect of the first step: p <- p - lr * (grad + weight_decay * p), per group
    params = list(model.parameters())
    before = {id(p): p.detach().clone() for p in params}
    _with_unit_grads(params)
    ns["optimizer"].step()
    for group, lr in ((conv_group, 1e-3), (fc_group, 1e-2)):
        for p in group["params"]:
            old = before[id(p)]
            assert_close(p.detach(), old - lr * (1 + 1e-4 * old))


@pytest.mark.claim("optim.param-groups-lr", decides="holds")
def test_finetune_groups_keep_their_lr_momentum_and_weight_decay_on_the_second_step():
    torch.manual_seed(0)
    model = _FineTuneNet()
    ns = {"model": model, "torch": torch}
    exec(compile(NOTE_FINETUNE_GROUPS, "<note>", "exec"), ns)
    optimizer = ns["optimizer"]
    conv_group, fc_group = optimizer.param_groups
    m, wd = 0.9, 1e-4
    expected = {id(p): p.detach().clone() for p in model.parameters()}
    buf = {}
    for step in range(2):  # momentum only shows from the second step: buf = m * buf + (grad + wd * p)
        _with_unit_grads(model.parameters())
        for group, lr in ((conv_group, 1e-3), (fc_group, 1e-2)):
            for p in group["params"]:
                d = 1 + wd * expected[id(p)]
                buf[id(p)] = d if step == 0 else m * buf[id(p)] + d
                expected[id(p)] = expected[id(p)] - lr * buf[id(p)]
        optimizer.step()
        for name, p in model.named_parameters():
            assert_close(p.detach(), expected[id(p)], msg=lambda msg, s=step, n=name: f"step {s + 1}, {n}: {msg}")


@pytest.mark.claim("optim.trainer-sgd-adam-step", decides="holds")
@pytest.mark.parametrize("name", ["SGD", "Adam"])
def test_trainer_step_performs_one_iteration_over_the_nets_parameters(name):
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(3, 2), nn.ReLU(), nn.Linear(2, 1))
    lr = 0.1
    trainer = getattr(torch.optim, name)(net.parameters(), lr=lr)
    assert [p for g in trainer.param_groups for p in g["params"]] == list(net.parameters())
    x = torch.randn(8, 3)
    for step in range(2):  # each step() is one update, the second one too
        trainer.zero_grad()
        net(x).pow(2).mean().backward()
        before = [p.detach().clone() for p in net.parameters()]
        grads = [p.grad.clone() for p in net.parameters()]
        trainer.step()
        for i, (p, old, g) in enumerate(zip(net.parameters(), before, grads, strict=True)):
            if name == "SGD":
                assert_close(p.detach(), old - lr * g, msg=f"SGD step {step + 1}, parameter {i}")
            elif step == 0:  # Adam's first step moves each entry by lr * g / (|g| + eps)
                assert_close(p.detach(), old - lr * g / (g.abs() + 1e-8), msg=f"Adam step 1, parameter {i}")
            else:
                assert not torch.equal(p.detach(), old), f"Adam step {step + 1}, parameter {i} did not move"


@pytest.mark.claim("optim.grad-zero-typo", decides="wrong")
@pytest.mark.parametrize("optimizer_class", [torch.optim.SGD, torch.optim.Adam], ids=["SGD", "Adam"])
def test_grad_zero_is_not_an_optimizer_method(optimizer_class):
    p = nn.Parameter(torch.ones(2))
    trainer = optimizer_class([p], lr=0.1)
    p.grad = torch.ones(2)
    with pytest.raises(AttributeError, match=f"'{optimizer_class.__name__}' object has no attribute 'grad_zero'"):
        exec(compile("trainer.grad_zero()", "<note>", "exec"), {"trainer": trainer})
    assert torch.equal(p.grad, torch.ones(2)), "the gradient was touched"


# --- the yolov5 recipe ----------------------------------------------------------------------


NOTE_YOLO_GROUPS = """\
# model is a instanse of torch.nn.Module
g0, g1, g2 = [], [], []  # optimizer parameter groups
for v in model.modules():
    if hasattr(v, 'bias') and isinstance(v.bias, nn.Parameter):
        g2.append(v.bias)
    if isinstance(v, nn.BatchNorm2d):
        g0.append(v.weight)
    elif hasattr(v, 'weight') and isinstance(v.weight, nn.Parameter):
        g1.append(v.weight)
"""


def _note_yolo_groups(model):
    ns = {"model": model, "nn": nn}
    exec(compile(NOTE_YOLO_GROUPS, "<note>", "exec"), ns)
    return ns["g0"], ns["g1"], ns["g2"]


def _names(model, params):
    by_id = {id(p): name for name, p in model.named_parameters()}
    return sorted(by_id.get(id(p), "<not the model's>") for p in params)


@pytest.mark.claim("optim.yolo-param-groups", decides="holds")
def test_the_yolo_loop_sorts_every_parameter_of_a_conv_bn_model_into_one_group():
    def conv(c1, c2):  # yolov5's Conv: a bias-free convolution, BatchNorm2d, SiLU
        return nn.Sequential(nn.Conv2d(c1, c2, 3, bias=False), nn.BatchNorm2d(c2), nn.SiLU())

    model = nn.Sequential(conv(3, 4), nn.Sequential(conv(4, 4), conv(4, 8)), nn.Conv2d(8, 6, 1),
                          nn.Flatten(), nn.Linear(6, 2))
    g0, g1, g2 = _note_yolo_groups(model)
    names = {n for n, _ in model.named_parameters()}
    bn = {n for n in names if n.endswith("weight") and isinstance(model.get_submodule(n.rsplit(".", 1)[0]),
                                                                  nn.BatchNorm2d)}
    assert _names(model, g0) == sorted(bn), f"g0 {_names(model, g0)}, BatchNorm2d weights {sorted(bn)}"
    assert _names(model, g1) == sorted(n for n in names if n.endswith("weight") and n not in bn)
    assert _names(model, g2) == sorted(n for n in names if n.endswith("bias"))
    grouped = [id(p) for p in g0 + g1 + g2]
    assert len(grouped) == len(set(grouped)) == len(names), (
        f"{len(grouped)} grouped ({len(set(grouped))} distinct) for {len(names)} parameters")


@pytest.mark.claim("optim.yolo-param-groups", decides="left-out")
def test_the_yolo_loop_leaves_parameters_not_named_weight_or_bias_out_of_every_group():
    model = nn.Module()  # conv features read by an LSTM
    model.conv, model.bn = nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4)
    model.rnn = nn.LSTM(4, 4)  # an nn.Module too, with parameters named weight_ih_l0, bias_hh_l0, ...
    g0, g1, g2 = _note_yolo_groups(model)
    grouped = {id(p) for p in g0 + g1 + g2}
    missing = sorted(n for n, p in model.named_parameters() if id(p) not in grouped)
    assert missing == ["rnn.bias_hh_l0", "rnn.bias_ih_l0", "rnn.weight_hh_l0", "rnn.weight_ih_l0"], missing
    # the optimizer the recipe builds from the groups never trains them
    optimizer = torch.optim.SGD(g0, lr=0.1, momentum=0.9, nesterov=True)
    optimizer.add_param_group({"params": g1, "weight_decay": 5e-4})
    optimizer.add_param_group({"params": g2})
    before = model.rnn.weight_ih_l0.detach().clone()
    features = model.bn(model.conv(torch.randn(1, 3, 5, 5)))
    out, _ = model.rnn(features.flatten(2).permute(2, 0, 1))  # (sequence 9, batch 1, 4 features)
    out.sum().backward()
    optimizer.step()
    assert model.rnn.weight_ih_l0.grad is not None and torch.equal(model.rnn.weight_ih_l0, before), (
        "an LSTM weight with a gradient was stepped although it is in no group")


def _yolo_groups(model):
    """The note's split into BatchNorm weights (g0), other weights (g1) and biases (g2)."""
    g0, g1, g2 = [], [], []
    for v in model.modules():
        if hasattr(v, "bias") and isinstance(v.bias, nn.Parameter):
            g2.append(v.bias)
        if isinstance(v, nn.BatchNorm2d):
            g0.append(v.weight)
        elif hasattr(v, "weight") and isinstance(v.weight, nn.Parameter):
            g1.append(v.weight)
    return g0, g1, g2


def _yolo_optimizer(model, adam):
    g0, g1, g2 = _yolo_groups(model)
    if adam:
        optimizer = torch.optim.Adam(g0, lr=HYP["lr0"], betas=(HYP["momentum"], 0.999))
    else:
        optimizer = torch.optim.SGD(g0, lr=HYP["lr0"], momentum=HYP["momentum"], nesterov=True)
    optimizer.add_param_group({"params": g1, "weight_decay": HYP["weight_decay"]})
    optimizer.add_param_group({"params": g2})
    return optimizer, (g0, g1, g2)


@pytest.mark.claim("optim.add-param-group")
@pytest.mark.parametrize("adam", [False, True], ids=["SGD nesterov", "Adam"])
def test_added_groups_inherit_defaults_except_explicit_keys(adam):
    optimizer, groups = _yolo_optimizer(_FineTuneNet(), adam)
    assert [len(g["params"]) for g in optimizer.param_groups] == [len(g) for g in groups]
    inherited = ["lr", "betas"] if adam else ["lr", "momentum", "nesterov"]
    for group in optimizer.param_groups[1:]:
        for key in inherited:
            assert group[key] == optimizer.defaults[key], f"{key}: {group[key]} != default {optimizer.defaults[key]}"
    assert optimizer.param_groups[1]["weight_decay"] == HYP["weight_decay"]
    assert optimizer.param_groups[0]["weight_decay"] == optimizer.param_groups[2]["weight_decay"] == 0


@pytest.mark.claim("optim.add-param-group")
def test_only_the_weight_group_decays_when_gradients_are_zero():
    model = _FineTuneNet()
    optimizer, (g0, g1, g2) = _yolo_optimizer(model, adam=False)
    before = {id(p): p.detach().clone() for p in model.parameters()}
    for p in model.parameters():
        p.grad = torch.zeros_like(p)
    optimizer.step()
    m, lr, wd = HYP["momentum"], HYP["lr0"], HYP["weight_decay"]
    for p in g1:  # d = wd * p, buf = d, nesterov: p -= lr * (d + m * buf)
        old = before[id(p)]
        assert_close(p.detach(), old - lr * (1 + m) * wd * old)
    for p in g0 + g2:
        assert torch.equal(p, before[id(p)]), "a group without weight_decay moved on a zero gradient"


@pytest.mark.claim("optim.add-param-group", decides="holds")
def test_every_added_group_steps_with_the_inherited_lr_and_nesterov_momentum_over_two_steps():
    torch.manual_seed(0)
    model = _FineTuneNet()
    optimizer, (g0, g1, g2) = _yolo_optimizer(model, adam=False)
    m, lr = HYP["momentum"], HYP["lr0"]
    expected = {id(p): p.detach().clone() for p in model.parameters()}
    buf = {}
    for step in range(2):  # nesterov: d = grad + wd * p, buf = m * buf + d, p -= lr * (d + m * buf)
        _with_unit_grads(model.parameters())
        for group, wd in ((g0, 0.0), (g1, HYP["weight_decay"]), (g2, 0.0)):
            for p in group:
                d = 1 + wd * expected[id(p)]
                buf[id(p)] = d if step == 0 else m * buf[id(p)] + d
                expected[id(p)] = expected[id(p)] - lr * (d + m * buf[id(p)])
        optimizer.step()
        for name, p in model.named_parameters():
            assert_close(p.detach(), expected[id(p)], msg=lambda msg, s=step, n=name: f"step {s + 1}, {n}: {msg}")


@pytest.mark.claim("optim.sgd-nesterov")
def test_sgd_nesterov_follows_the_nesterov_update():
    m, lr = HYP["momentum"], HYP["lr0"]
    x = nn.Parameter(torch.tensor([1.0, -2.0], dtype=torch.float64))
    opt = torch.optim.SGD([x], lr=lr, momentum=m, nesterov=True)
    expected, buf = x.detach().clone(), torch.zeros(2, dtype=torch.float64)
    for _ in range(3):
        opt.zero_grad()
        (x**3).sum().backward()
        g = 3 * expected**2
        buf = m * buf + g
        expected = expected - lr * (g + m * buf)
        opt.step()
        assert_close(x.detach(), expected)


@pytest.mark.claim("optim.sgd-nesterov")
def test_sgd_nesterov_needs_momentum_and_adam_accepts_momentum_as_beta1():
    p = nn.Parameter(torch.ones(2))
    with pytest.raises(ValueError, match="Nesterov momentum requires a momentum and zero dampening"):
        torch.optim.SGD([p], lr=0.1, nesterov=True)
    adam = torch.optim.Adam([p], lr=HYP["lr0"], betas=(HYP["momentum"], 0.999))
    assert adam.defaults["betas"] == (HYP["momentum"], 0.999)

"""GradScaler: the numbers and the READY -> UNSCALED -> STEPPED state machine.

Notes: 004_79576bb56bce5aea.txt › torch.cuda.amp.GradScaler, › what is it really
(the x=[1,2], z=[2,3] walk-through), › 自动混合精度训练 (Automatic Mixed Precision).

The note runs on CUDA; every test runs the same body on CPU (torch.amp.GradScaler("cpu"),
which exists from torch 2.3) and on CUDA.
"""
import inspect
import warnings

import pytest
import torch
from torch.testing import assert_close

from fixtures.amp import CPU_GRADSCALER_SINCE, make_scaler
from fixtures.boundaries import CUDA_AMP_DEPRECATED_SINCE
from fixtures.needs import device_params
from fixtures.versions import torch_at_least

DEVICES = device_params(cpu=pytest.mark.needs(min_torch=CPU_GRADSCALER_SINCE))
INIT_SCALE = 65536.0  # 2**16, GradScaler's default init_scale


def opt_state_enum():
    if hasattr(torch.amp, "grad_scaler"):
        return torch.amp.grad_scaler.OptState
    return torch.cuda.amp.grad_scaler.OptState


def stage(scaler, opt):
    """The scaler's recorded stage for `opt` (private, but it is what the claim is about)."""
    return scaler._per_optimizer_states[id(opt)]["stage"]


def note_setup(device):
    """The note's example: y = sum(x) + sum(z), x=[1,2], z=[2,3], SGD lr=0.001."""
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=device)
    z = torch.tensor([2.0, 3.0], requires_grad=True, device=device)
    y = torch.sum(x) + torch.sum(z)
    opt = torch.optim.SGD([x, z], lr=0.001)
    return x, z, y, opt


@pytest.mark.claim("amp.scale-equals-multiply")
@pytest.mark.parametrize("device", DEVICES)
def test_scaled_backward_equals_backward_of_loss_times_scale(device):
    def grads(scaled):
        torch.manual_seed(0)
        net = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Tanh(), torch.nn.Linear(3, 1)).to(device)
        loss = net(torch.randn(5, 4, device=device)).pow(2).mean()
        scaler = make_scaler(device, init_scale=1024.0)
        (scaler.scale(loss) if scaled else loss * scaler.get_scale()).backward()
        return [p.grad.clone() for p in net.parameters()]

    for with_scaler, by_hand in zip(grads(True), grads(False)):
        # multiplying by a power of two is exact, so the two must agree bit for bit
        assert torch.equal(with_scaler, by_hand), f"{with_scaler} != {by_hand}"


@pytest.mark.claim("amp.default-scale-grad", decides="holds")
@pytest.mark.parametrize("device", DEVICES)
def test_fresh_scaler_multiplies_gradients_by_65536(device):
    scaler = make_scaler(device)
    x, z, y, opt = note_setup(device)
    scaler.scale(y).backward()
    assert scaler.get_scale() == INIT_SCALE
    assert torch.equal(x.grad, torch.full_like(x, INIT_SCALE)), f"x.grad = {x.grad}, expected [65536, 65536]"
    assert y.item() == 8.0, f"y = {y.item()}, expected 8"


@pytest.mark.claim("amp.default-scale-grad", decides="left-out")
@pytest.mark.needs(min_torch=CUDA_AMP_DEPRECATED_SINCE)
def test_the_notes_torch_cuda_amp_gradscaler_warns_future_deprecation_from_2_4():
    # the note's `scaler = torch.cuda.amp.GradScaler()`; enabled=False only keeps a GPU-less run quiet
    with pytest.warns(FutureWarning, match=r"torch\.cuda\.amp\.GradScaler.*deprecated.*torch\.amp\.GradScaler\('cuda'"):
        torch.cuda.amp.GradScaler(enabled=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        torch.amp.GradScaler("cuda", enabled=False)
    # the replacement starts at the same 2**16
    for cls in (torch.cuda.amp.GradScaler, torch.amp.GradScaler):
        assert inspect.signature(cls).parameters["init_scale"].default == INIT_SCALE, cls


@pytest.mark.claim("amp.get-scale-after-unscale", decides="wrong")
@pytest.mark.parametrize("device", DEVICES)
def test_unscale_restores_true_grads_and_leaves_the_scale_at_65536(device):
    scaler = make_scaler(device)
    x, z, y, opt = note_setup(device)
    scaler.scale(y).backward()
    scaler.unscale_(opt)
    assert torch.equal(x.grad, torch.ones_like(x)), f"x.grad = {x.grad}, expected [1, 1]"
    # the note prints 65535; unscale_ divides the grads but never touches the scale
    assert scaler.get_scale() == INIT_SCALE, f"get_scale() = {scaler.get_scale()}, the note says 65535"


@pytest.mark.claim("amp.direct-step-uses-scaled")
@pytest.mark.parametrize("device", DEVICES)
def test_plain_opt_step_after_scaled_backward_applies_the_scaled_gradient(device):
    scaler = make_scaler(device)
    x, z, y, opt = note_setup(device)
    scaler.scale(y).backward()
    opt.step()  # bypassing the scaler
    assert torch.equal(x.grad, torch.full_like(x, INIT_SCALE)), "x.grad should still be scaled"
    expected = torch.tensor([1.0, 2.0], device=device) - 0.001 * INIT_SCALE
    assert_close(x.detach(), expected)  # a step 65536 times too large: x moves by 65.5, not 0.001


@pytest.mark.claim("amp.clip-joint-vs-separate")
@pytest.mark.parametrize("device", DEVICES)
def test_clipping_x_and_z_jointly_gives_half_separately_one_over_sqrt2(device):
    results = {}
    for mode in ("joint", "separate"):
        scaler = make_scaler(device)
        x, z, y, opt = note_setup(device)
        scaler.scale(y).backward()
        scaler.unscale_(opt)
        if mode == "joint":
            torch.nn.utils.clip_grad_norm_([x, z], 1.0)  # total norm of four ones is 2
        else:
            torch.nn.utils.clip_grad_norm_(x, 1.0)  # norm of [1, 1] is sqrt(2)
            torch.nn.utils.clip_grad_norm_(z, 1.0)
        results[mode] = x.grad
    assert_close(results["joint"], torch.full((2,), 0.5, device=device), rtol=1e-5, atol=1e-6)
    assert_close(results["separate"], torch.full((2,), 2**-0.5, device=device), rtol=1e-5, atol=1e-6)
    assert round(results["separate"][0].item(), 1) == 0.7  # the note's "[0.7, 0.7]"


@pytest.mark.claim("amp.step-result")
@pytest.mark.parametrize("device", DEVICES)
def test_note_sequence_ends_with_x_close_to_0_9993_and_1_9993(device):
    scaler = make_scaler(device)
    x, z, y, opt = note_setup(device)
    scaler.scale(y).backward()
    scaler.unscale_(opt)
    torch.nn.utils.clip_grad_norm_(x, 1.0)
    torch.nn.utils.clip_grad_norm_(z, 1.0)
    scaler.step(opt)
    scaler.update()
    # printed to 4 decimals: 1 - 0.001/sqrt(2) = 0.99929...
    assert_close(x.detach(), torch.tensor([0.9993, 1.9993], device=device), atol=5e-5, rtol=0)


@pytest.mark.claim("amp.step-unscales")
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("unscale_first", [False, True], ids=["step-alone", "unscale_-then-step"])
def test_step_unscales_once_then_steps_like_a_plain_unscaled_step(device, unscale_first):
    def run(with_scaler):
        torch.manual_seed(0)
        net = torch.nn.Linear(3, 2).to(device)
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        loss = net(torch.randn(4, 3, device=device)).sum()
        if with_scaler:
            scaler = make_scaler(device)
            scaler.scale(loss).backward()
            if unscale_first:  # called by hand: step() must not unscale a second time
                scaler.unscale_(opt)
            assert stage(scaler, opt).name == ("UNSCALED" if unscale_first else "READY")
            scaler.step(opt)
            assert stage(scaler, opt).name == "STEPPED"
        else:
            loss.backward()
            opt.step()
        return [p.detach().clone() for p in net.parameters()], [p.grad.clone() for p in net.parameters()]

    (p_scaled, g_scaled), (p_plain, g_plain) = run(True), run(False)
    for a, b in zip(g_scaled, g_plain):
        assert_close(a, b)  # the grads were unscaled in place before the step
    for a, b in zip(p_scaled, p_plain):
        assert_close(a, b)


@pytest.mark.claim("amp.update-adjusts-scale")
@pytest.mark.parametrize("device", DEVICES)
def test_update_grows_after_clean_steps_and_backs_off_after_inf(device):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=device)
    opt = torch.optim.SGD([x], lr=0.1)
    scaler = make_scaler(device, init_scale=8.0, growth_interval=1)

    scaler.scale(x.sum()).backward()
    scaler.step(opt)
    scaler.update()
    assert scaler.get_scale() == 16.0, f"after a clean step the scale is {scaler.get_scale()}, expected 8 * 2"

    opt.zero_grad()
    before = x.detach().clone()
    scaler.scale(x.sum() * float("inf")).backward()
    scaler.step(opt)  # skipped: the grads hold inf
    scaler.update()
    assert scaler.get_scale() == 8.0, f"after an inf step the scale is {scaler.get_scale()}, expected 16 * 0.5"
    assert torch.equal(x.detach(), before), "a step with inf gradients must be skipped"


@pytest.mark.claim("amp.optstate-enum")
def test_optstate_enum_is_ready_0_unscaled_1_stepped_2():
    members = {m.name: m.value for m in opt_state_enum()}
    assert members == {"READY": 0, "UNSCALED": 1, "STEPPED": 2}


@pytest.mark.claim("amp.unscale-twice-error")
@pytest.mark.parametrize("device", DEVICES)
def test_unscale_raises_when_already_unscaled_or_stepped_until_update(device):
    scaler = make_scaler(device)
    x, z, y, opt = note_setup(device)
    scaler.scale(y).backward()
    scaler.unscale_(opt)
    with pytest.raises(RuntimeError, match=r"unscale_\(\) has already been called on this optimizer"):
        scaler.unscale_(opt)
    scaler.step(opt)
    with pytest.raises(RuntimeError, match=r"unscale_\(\) is being called after step\(\)"):
        scaler.unscale_(opt)
    scaler.update()
    opt.zero_grad()
    scaler.scale(torch.sum(x) + torch.sum(z)).backward()
    scaler.unscale_(opt)  # allowed again after update()
    assert torch.equal(x.grad, torch.ones_like(x))


@pytest.mark.claim("amp.state-transitions", decides="holds")
@pytest.mark.parametrize("device", DEVICES)
def test_stages_move_ready_unscaled_stepped_and_update_resets(device):
    scaler = make_scaler(device)
    x, z, y, opt = note_setup(device)
    scaler.scale(y).backward()
    assert stage(scaler, opt).name == "READY"
    scaler.unscale_(opt)
    assert stage(scaler, opt).name == "UNSCALED"
    scaler.step(opt)
    assert stage(scaler, opt).name == "STEPPED"
    with pytest.raises(RuntimeError, match=r"step\(\) has already been called since the last update"):
        scaler.step(opt)
    scaler.update()
    assert stage(scaler, opt).name == "READY"
    # and step() straight from READY is allowed (it unscales by itself)
    opt.zero_grad()
    scaler.scale(torch.sum(x) + torch.sum(z)).backward()
    scaler.step(opt)
    assert stage(scaler, opt).name == "STEPPED"


@pytest.mark.claim("amp.state-transitions", decides="holds")
@pytest.mark.parametrize("device", DEVICES)
def test_update_from_unscaled_returns_to_ready_and_keeps_the_scale(device):
    scaler = make_scaler(device)
    x, z, y, opt = note_setup(device)
    scaler.scale(y).backward()
    scaler.unscale_(opt)
    assert stage(scaler, opt).name == "UNSCALED"
    scaler.update()  # no step: the note's UNSCALED -> READY
    assert stage(scaler, opt).name == "READY"
    assert scaler.get_scale() == INIT_SCALE, "finite grads: the scale stays until growth_interval steps"


@pytest.mark.claim("amp.state-transitions", decides="left-out")
@pytest.mark.parametrize("device", DEVICES)
def test_update_from_ready_raises_unless_another_optimizer_was_unscaled_or_stepped(device):
    scaler = make_scaler(device)
    x, z, y, opt = note_setup(device)
    scaler.scale(y).backward()
    assert stage(scaler, opt).name == "READY"
    # the note's READY -> READY: with its one optimizer, update() has no inf check to read
    with pytest.raises(AssertionError, match="No inf checks were recorded prior to update"):
        scaler.update()
    # READY -> READY works only beside an optimizer that was stepped
    w = torch.ones(2, requires_grad=True, device=device)
    other = torch.optim.SGD([w], lr=0.1)
    scaler.scale(w.sum()).backward()
    scaler.step(other)
    assert (stage(scaler, opt).name, stage(scaler, other).name) == ("READY", "STEPPED")
    scaler.update()
    assert (stage(scaler, opt).name, stage(scaler, other).name) == ("READY", "READY")


@pytest.mark.claim("amp.cpu-gradscaler", decides="by-version")
def test_a_cpu_gradscaler_exists_exactly_from_torch_2_3():
    available = hasattr(torch.amp, "GradScaler")
    assert available == torch_at_least(CPU_GRADSCALER_SINCE), (
        f"torch.amp.GradScaler present: {available}; expected only from torch {CPU_GRADSCALER_SINCE}"
    )
    if available:
        scaler = torch.amp.GradScaler("cpu")
        x = torch.tensor([1.0], requires_grad=True)
        scaler.scale(x.sum()).backward()
        assert x.grad.item() == INIT_SCALE

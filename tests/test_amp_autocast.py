"""Autocast: the dtypes it computes in per device, enabled=False as a no-op, torch.cuda.amp vs
torch.amp, and when the unscale_ / clip_grad_norm_ pair is needed.

Notes: 004_79576bb56bce5aea.txt › 自动混合精度训练(Automatic Mixed Precision), › 通常用法;
000_03e1e7bc9bbd04f1.txt › 2. torch.cuda.amp (FloatTensor & HalfTensor).

Version boundaries:
- torch 1.10: torch.autocast(device_type) with a CPU backend computing in bfloat16.
- torch 2.3: the device-generic torch.amp.GradScaler, and with it a CPU GradScaler.
- torch 2.4: torch.cuda.amp.autocast(...) and torch.cuda.amp.GradScaler(...) warn FutureWarning.
The GradScaler state machine itself is covered in test_amp_gradscaler.py.
"""
import warnings

import pytest
import torch
from torch import nn
from torch.testing import assert_close

from fixtures.amp import CPU_GRADSCALER_SINCE, make_scaler
from fixtures.boundaries import CUDA_AMP_DEPRECATED_SINCE
from fixtures.needs import device_params
from fixtures.versions import torch_at_least

AUTOCAST_DTYPE = {"cpu": torch.bfloat16, "cuda": torch.float16}
WITH_REAL_SCALER = device_params(cpu=pytest.mark.needs(min_torch=CPU_GRADSCALER_SINCE))

# The note's usual loop (› 通常用法), re-typed with use_amp as a parameter. Note its names:
# the optimizer is built on `model`, the forward pass calls `net`, and the last line says `opt`.
NOTE_LOOP = """
use_amp = {use_amp}
optimizer = torch.optim.SGD(model.parameters(), lr=0.001)
scaler = torch.cuda.amp.GradScaler(enabled=use_amp)

for epoch in range(epochs):
    for input, target in zip(data, targets):
        with torch.cuda.amp.autocast(enabled=use_amp):
            output = net(input)
            loss = loss_fn(output, target)
        scaler.scale(loss).backward()
        # scaler.unscale_(optimizer)
        # torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
        scaler.step(optimizer)
        scaler.update()
        opt.zero_grad()
"""


def small_problem(device):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1)).to(device)
    data = torch.randn(5, 4, 8, device=device)
    targets = torch.randn(5, 4, 1, device=device)
    return model, data, targets


def params_of(model):
    return [p.detach().clone() for p in model.parameters()]


def train(device, *, autocast, scaler_enabled=None, lr=0.1):
    """The note's loop (typo fixed); scaler_enabled=None trains without any scaler."""
    model, data, targets = small_problem(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    scaler = None if scaler_enabled is None else make_scaler(device, enabled=scaler_enabled)
    for x, y in zip(data, targets):
        with torch.autocast(device, enabled=autocast):
            loss = nn.functional.mse_loss(model(x), y)
        if scaler is None:
            loss.backward()
            optimizer.step()
        else:
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        optimizer.zero_grad()
    return params_of(model)


# --- amp.gpu-only -------------------------------------------------------------------------


@pytest.mark.claim("amp.gpu-only", decides="wrong")
def test_cpu_autocast_computes_linear_in_bfloat16_and_keeps_float32_weights():
    model, data, targets = small_problem("cpu")
    x, y = data[0], targets[0]
    with torch.autocast("cpu"):
        out = model(x)
        loss = nn.functional.mse_loss(out, y)
    assert out.dtype == torch.bfloat16, f"CPU autocast left the linear layer in {out.dtype}"
    assert loss.dtype == torch.float32, f"mse_loss is on autocast's float32 list, got {loss.dtype}"
    loss.backward()
    for p in model.parameters():
        assert p.dtype == torch.float32 and p.grad.dtype == torch.float32, "weights and grads stay float32"
    # same numbers as full precision, to bfloat16's 8 significant bits
    assert_close(out.float(), model(x), rtol=2e-2, atol=2e-2)


@pytest.mark.claim("amp.gpu-only", decides="wrong")
@pytest.mark.needs(min_torch=CPU_GRADSCALER_SINCE)
def test_a_full_amp_step_with_a_gradscaler_runs_on_cpu():
    model, data, targets = small_problem("cpu")
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu")
    before = params_of(model)
    with torch.autocast("cpu"):
        loss = nn.functional.mse_loss(model(data[0]), targets[0])
    scaler.scale(loss).backward()
    scaled = [p.grad.clone() for p in model.parameters()]
    scaler.step(optimizer)
    scaler.update()
    for p, g, b in zip(model.parameters(), scaled, before):
        assert_close(g, p.grad * 65536.0)  # step() unscaled the 2**16-scaled grads in place
        assert not torch.equal(p.detach(), b), "the optimizer step did not happen"
    assert scaler.get_scale() == 65536.0, "a finite step keeps the scale until growth_interval steps"


# --- amp.float16-half ---------------------------------------------------------------------


@pytest.mark.claim("amp.float16-half")
@pytest.mark.needs(gpus=1)
def test_cuda_autocast_mixes_float16_matmuls_with_float32_reductions(cuda_device):
    model, data, targets = small_problem(cuda_device)
    a = torch.randn(32, 32, device=cuda_device)
    with torch.autocast("cuda"):
        out = model(data[0])
        product = a @ a
        probs = torch.softmax(product, dim=-1)
        loss = nn.functional.mse_loss(out, targets[0])
    assert out.dtype == torch.float16 and product.dtype == torch.float16, (out.dtype, product.dtype)
    assert probs.dtype == torch.float32 and loss.dtype == torch.float32, (probs.dtype, loss.dtype)
    loss.backward()
    assert all(p.dtype == torch.float32 and p.grad.dtype == torch.float32 for p in model.parameters())


@pytest.mark.claim("amp.cuda-amp-namespace", "amp.float16-half", decides="holds")
@pytest.mark.needs(gpus=1)
@pytest.mark.filterwarnings("ignore:.*torch.cuda.amp.*deprecated:FutureWarning")
def test_cuda_amp_autocast_and_torch_autocast_cuda_compute_the_same(cuda_device):
    model, data, _ = small_problem(cuda_device)
    with torch.cuda.amp.autocast():
        old = model(data[0])
    with torch.autocast("cuda"):
        new = model(data[0])
    assert old.dtype == new.dtype == torch.float16
    assert torch.equal(old, new)


@pytest.mark.claim("amp.float16-half", decides="left-out")
@pytest.mark.needs(min_torch=CUDA_AMP_DEPRECATED_SINCE)
def test_note_000s_torch_cuda_amp_autocast_warns_future_deprecation_from_2_4():
    # note 000 names the torch.cuda.amp namespace; its autocast is deprecated from 2.4
    with pytest.warns(FutureWarning, match=r"torch\.cuda\.amp\.autocast.*deprecated.*torch\.amp\.autocast\('cuda'"):
        old = torch.cuda.amp.autocast(dtype=torch.float16, enabled=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        new = torch.amp.autocast("cuda", dtype=torch.float16, enabled=False)
    assert (old.device, old.fast_dtype) == (new.device, new.fast_dtype) == ("cuda", torch.float16)


@pytest.mark.claim("amp.float16-half", decides="left-out")
@pytest.mark.needs(gpus=1, min_torch=CUDA_AMP_DEPRECATED_SINCE)
def test_note_000s_torch_cuda_amp_autocast_warns_on_the_gpu_it_runs_on(cuda_device):
    # the failing half where a GPU decides the claim: 000's torch.cuda.amp.autocast still casts to
    # float16 on the GPU, and warns that it is deprecated for torch.amp.autocast('cuda')
    model, data, _ = small_problem(cuda_device)
    with pytest.warns(FutureWarning, match=r"torch\.cuda\.amp\.autocast.*deprecated"), torch.cuda.amp.autocast():
        out = model(data[0])
    assert out.dtype == torch.float16, out.dtype


# --- amp.cuda-amp-namespace ---------------------------------------------------------------


@pytest.mark.claim("amp.cuda-amp-namespace", half="holding")
def test_cuda_amp_autocast_is_torch_autocast_bound_to_cuda():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # from 2.4 on; asserted below
        ctx = torch.cuda.amp.autocast(enabled=False)
        scaler = torch.cuda.amp.GradScaler(enabled=False)
    assert isinstance(ctx, torch.autocast) and ctx.device == "cuda"
    if torch_at_least(CPU_GRADSCALER_SINCE):  # the CUDA scaler is the generic one for "cuda" from 2.3
        assert isinstance(scaler, torch.amp.GradScaler)


@pytest.mark.claim("amp.cuda-amp-namespace", half="failing")
@pytest.mark.needs(min_torch=CUDA_AMP_DEPRECATED_SINCE)
def test_cuda_amp_names_warn_future_deprecation_and_torch_amp_names_do_not():
    with pytest.warns(FutureWarning, match=r"torch\.cuda\.amp\.autocast.*deprecated.*torch\.amp\.autocast\('cuda'"):
        torch.cuda.amp.autocast(enabled=False)
    with pytest.warns(FutureWarning, match=r"torch\.cuda\.amp\.GradScaler.*deprecated.*torch\.amp\.GradScaler\('cuda'"):
        torch.cuda.amp.GradScaler(enabled=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        torch.amp.autocast("cuda", enabled=False)
        torch.amp.GradScaler("cuda", enabled=False)


@pytest.mark.claim("amp.cuda-amp-namespace", half="holding")
@pytest.mark.needs(max_torch=CUDA_AMP_DEPRECATED_SINCE)
def test_cuda_amp_names_are_not_deprecated_before_2_4():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.cuda.amp.autocast(enabled=False)
        torch.cuda.amp.GradScaler(enabled=False)
    deprecations = [str(w.message) for w in caught if issubclass(w.category, (FutureWarning, DeprecationWarning))]
    assert not deprecations, deprecations


# --- amp.enabled-false-noop ---------------------------------------------------------------


@pytest.mark.claim("amp.enabled-false-noop", "amp.unscale-clip-pair", decides="holds")
@pytest.mark.filterwarnings("ignore:.*torch.cuda.amp.*deprecated:FutureWarning")
def test_note_loop_as_written_does_one_plain_step_then_stops_at_the_opt_typo():
    model, data, targets = small_problem("cpu")
    start = params_of(model)
    namespace = {"torch": torch, "model": model, "net": model, "epochs": 1, "data": data,
                 "targets": targets, "loss_fn": nn.functional.mse_loss}
    with pytest.raises(NameError, match="name 'opt' is not defined"):
        exec(NOTE_LOOP.format(use_amp=False), namespace)
    # up to the typo the disabled-AMP loop did exactly one ordinary SGD step
    reference, _, _ = small_problem("cpu")
    nn.functional.mse_loss(reference(data[0]), targets[0]).backward()
    torch.optim.SGD(reference.parameters(), lr=0.001).step()
    assert any(not torch.equal(a, b) for a, b in zip(start, params_of(model))), "no step was taken"
    for got, want in zip(params_of(model), params_of(reference)):
        assert torch.equal(got, want), "enabled=False changed the first step"


@pytest.mark.claim("amp.enabled-false-noop", decides="holds")
def test_loop_with_enabled_false_matches_plain_training_bit_for_bit(device):
    plain = train(device, autocast=False)
    disabled = train(device, autocast=False, scaler_enabled=False)
    for a, b in zip(plain, disabled):
        assert torch.equal(a, b), f"enabled=False training differs from plain training by {(a - b).abs().max()}"
    # the comparison can see autocast: enabled, it moves the result (to low-precision accuracy)
    mixed = train(device, autocast=True, scaler_enabled=False)
    assert any(not torch.equal(a, b) for a, b in zip(plain, mixed)), "autocast enabled changed nothing"
    for a, b in zip(plain, mixed):
        assert_close(b, a, rtol=5e-2, atol=5e-2)


@pytest.mark.claim("amp.enabled-false-noop", decides="left-out")
@pytest.mark.needs(min_torch=CUDA_AMP_DEPRECATED_SINCE)
def test_note_loop_with_use_amp_false_warns_future_deprecation_where_torch_amp_does_not():
    def run(loop):
        model, data, targets = small_problem("cpu")
        namespace = {"torch": torch, "model": model, "net": model, "epochs": 2, "data": data,
                     "targets": targets, "loss_fn": nn.functional.mse_loss, "opt": None}
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            exec(loop.format(use_amp=False).replace("opt.zero_grad()", "optimizer.zero_grad()"), namespace)
        deprecations = sorted({str(w.message).split("(")[0] for w in caught if issubclass(w.category, FutureWarning)})
        return params_of(model), deprecations

    note_params, note_warnings = run(NOTE_LOOP)
    replaced = NOTE_LOOP.replace("torch.cuda.amp.GradScaler(", "torch.amp.GradScaler('cuda', ")
    replaced = replaced.replace("torch.cuda.amp.autocast(", "torch.amp.autocast('cuda', ")
    new_params, new_warnings = run(replaced)
    # the note's spelling warns, enabled or not; the torch.amp spelling trains the same without it
    assert note_warnings == ["`torch.cuda.amp.GradScaler", "`torch.cuda.amp.autocast"], note_warnings
    assert new_warnings == [], new_warnings
    for a, b in zip(note_params, new_params):
        assert torch.equal(a, b), "the torch.amp spelling trained differently"


# --- amp.unscale-clip-pair ----------------------------------------------------------------


def scaled_step(device, *, unscale, clip, max_norm):
    model, data, targets = small_problem(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = make_scaler(device)
    scaler.scale(nn.functional.mse_loss(model(data[0]), targets[0])).backward()
    if unscale:
        scaler.unscale_(optimizer)
    if clip:
        nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)  # unscales now unless unscale_ already did
    scaler.update()
    return params_of(model), [p.grad.clone() for p in model.parameters()]


def plain_step(device, *, clip, max_norm):
    model, data, targets = small_problem(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    nn.functional.mse_loss(model(data[0]), targets[0]).backward()
    if clip:
        nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    optimizer.step()
    return params_of(model), [p.grad.clone() for p in model.parameters()]


@pytest.mark.claim("amp.unscale-clip-pair")
@pytest.mark.parametrize("device", WITH_REAL_SCALER)
def test_unscale_alone_changes_nothing(device):
    without, _ = scaled_step(device, unscale=False, clip=False, max_norm=None)
    with_unscale, _ = scaled_step(device, unscale=True, clip=False, max_norm=None)
    for a, b in zip(without, with_unscale):
        assert torch.equal(a, b), "an extra unscale_ without clipping changed the step"


@pytest.mark.claim("amp.unscale-clip-pair")
@pytest.mark.parametrize("device", WITH_REAL_SCALER)
def test_clipping_is_right_only_after_unscale(device):
    max_norm = 1e-3  # far below the gradient norm: clipping is active
    ref_params, ref_grads = plain_step(device, clip=True, max_norm=max_norm)
    pair_params, pair_grads = scaled_step(device, unscale=True, clip=True, max_norm=max_norm)
    for a, b in zip(ref_params, pair_params):
        assert_close(b, a)
    # clip without unscale_ clips the 2**16-scaled grads to max_norm; step() then divides
    # them by 2**16 again, so the update is 65536 times too small
    _, lone_grads = scaled_step(device, unscale=False, clip=True, max_norm=max_norm)
    for ref, lone in zip(ref_grads, lone_grads):
        assert_close(lone * 65536.0, ref)

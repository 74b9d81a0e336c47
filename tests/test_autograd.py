"""Autograd bookkeeping: .data, in-place checks, retain_graph, no_grad, eval, frozen tensors, clipping.

Notes: 001_eaed12e493b64ab2.txt › detach() 和 data(), › @torch.no_grad() 和 model.eval(),
› 3. 工具函数 (clip_grad_norm_); 003_df07c2a5da61a567.txt › 4 torch 神经网络 (backward on a
loss, require_grad, requires_grad=False), › 6 常见错误 (requires_grad_(False) on a layer used as
weights, retain_graph=True).

The detach/clone family and gradient accumulation live in test_autograd_detach_clone.py; the
no_grad speed-and-memory claim is decided by its benchmark (test_benchmarks_cpu.py), the
activation check here is supporting evidence.
"""
import pytest
import torch
from torch import nn
from torch.testing import assert_close

from fixtures.tensors import SavedTensorBytes, storage_ptr

INPLACE_ERROR = "modified by an inplace operation"
SECOND_BACKWARD_ERROR = "Trying to backward through the graph a second time"


def _sigmoid_graph():
    """a -> sigmoid(a); SigmoidBackward saves its *output* for the backward pass."""
    a = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
    return a, torch.sigmoid(a)


def _mlp():
    return nn.Sequential(*[m for _ in range(6) for m in (nn.Linear(64, 64), nn.Tanh())])


# --- .data ---------------------------------------------------------------------------


@pytest.mark.claim("autograd.data-unsafe")
def test_data_is_a_detached_alias_like_detach():
    a, b = _sigmoid_graph()
    for alias in (b.data, b.detach()):
        assert storage_ptr(alias) == storage_ptr(b), "alias does not share the source's storage"
        assert alias.grad_fn is None and not alias.requires_grad


@pytest.mark.claim("autograd.data-unsafe")
def test_inplace_write_through_data_escapes_the_check_and_gives_a_wrong_gradient():
    # through detach(): the shared version counter catches the write
    a, b = _sigmoid_graph()
    b.detach().mul_(0)
    with pytest.raises(RuntimeError, match=INPLACE_ERROR):
        b.sum().backward()

    # through .data: the same write goes unnoticed ...
    a, b = _sigmoid_graph()
    version_before = b._version
    b.data.mul_(0)
    assert b._version == version_before, ".data bumped the version counter: autograd would notice"
    b.sum().backward()
    # ... and the gradient is silently wrong: SigmoidBackward used the zeroed output
    true_grad = torch.sigmoid(a.detach()) * (1 - torch.sigmoid(a.detach()))
    assert torch.equal(a.grad, torch.zeros(3)), f"expected the corrupted gradient 0, got {a.grad}"
    assert (true_grad > 0.1).all(), "the true gradient should be clearly non-zero"


@pytest.mark.claim("autograd.data-is-function", decides="wrong")
def test_data_is_an_attribute_and_calling_it_raises():
    t = torch.ones(3, requires_grad=True)
    assert isinstance(t.data, torch.Tensor), "t.data (no call) should already be the tensor"
    with pytest.raises(TypeError, match="'Tensor' object is not callable"):
        t.data()


# --- in-place correctness check --------------------------------------------------------


def _modify_saved_output_directly(b):
    b.mul_(2)


def _modify_saved_output_through_a_view(b):
    b[1:].mul_(2)


@pytest.mark.claim("autograd.inplace-check", half="holding")
@pytest.mark.parametrize(
    "modify",
    [
        pytest.param(_modify_saved_output_directly, id="in-place on the saved tensor"),
        pytest.param(_modify_saved_output_through_a_view, id="in-place on a view of it"),
    ],
)
def test_inplace_change_of_a_saved_tensor_makes_backward_raise(modify):
    a, b = _sigmoid_graph()
    modify(b)
    with pytest.raises(RuntimeError, match=INPLACE_ERROR):
        b.sum().backward()


@pytest.mark.claim("autograd.inplace-check", half="holding")
def test_inplace_input_of_mul_saved_for_backward_raises():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1  # a non-leaf copy that mul will save
    w = torch.tensor([4.0, 5.0, 6.0], requires_grad=True)
    out = y * w  # saves y (for w's grad) and w (for y's grad)
    y.add_(1)
    with pytest.raises(RuntimeError, match=INPLACE_ERROR):
        out.sum().backward()


@pytest.mark.claim("autograd.inplace-check", half="failing")
def test_write_through_numpy_of_a_detached_alias_escapes_the_check_and_corrupts_the_gradient():
    # reference: the same sigmoid graph with an honest in-place write through detach()
    a, b = _sigmoid_graph()
    b.detach().zero_()
    with pytest.raises(RuntimeError, match=INPLACE_ERROR):
        b.sum().backward()

    # the same write made by numpy on the shared memory: no version bump, backward completes ...
    a, b = _sigmoid_graph()
    true_grad = torch.sigmoid(a.detach()) * (1 - torch.sigmoid(a.detach()))
    version_before = b._version
    b.detach().numpy()[:] = 0
    assert torch.equal(b.detach(), torch.zeros(3)), "the numpy write did not reach the saved output"
    assert b._version == version_before, f"version counter {version_before} -> {b._version}: the write was seen"
    b.sum().backward()
    # ... with a wrong gradient: SigmoidBackward computed y * (1 - y) from the zeroed output
    assert (true_grad > 0.1).all(), f"the true gradient {true_grad} should be clearly non-zero"
    assert torch.equal(a.grad, torch.zeros(3)), f"gradient {a.grad}, expected the corrupted 0 (true: {true_grad})"


@pytest.mark.claim("autograd.inplace-check", half="holding")
def test_inplace_op_that_backward_does_not_need_completes_with_the_right_gradient():
    a = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
    b = a + 1  # AddBackward saves no tensor
    b.mul_(3)  # so modifying b in place is allowed
    (b * b).sum().backward()
    in_place_grad = a.grad.clone()

    a.grad = None
    c = (a + 1) * 3  # the same computation without in-place ops
    (c * c).sum().backward()
    assert torch.equal(in_place_grad, a.grad), f"in-place {in_place_grad} vs out-of-place {a.grad}"


# --- retain_graph, backward on a loss -----------------------------------------------------


@pytest.mark.claim("autograd.retain-graph")
def test_second_backward_through_a_freed_graph_raises_and_asks_for_retain_graph():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match=SECOND_BACKWARD_ERROR) as excinfo:
        y.backward()
    assert "retain_graph=True" in str(excinfo.value)


@pytest.mark.claim("autograd.retain-graph")
def test_saved_tensors_are_freed_by_backward_unless_retain_graph():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * x
    assert torch.equal(y.grad_fn._saved_self, x), "mul should save its input"
    y.sum().backward()
    with pytest.raises(RuntimeError, match="after they have already been freed"):
        y.grad_fn._saved_self


@pytest.mark.claim("autograd.retain-graph")
def test_retain_graph_true_allows_a_second_backward():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert_close(x.grad, 2 * (2 * x.detach()))  # two backward passes, accumulated


@pytest.mark.claim("autograd.backward-scalar-reduction")
@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_loss_with_a_reducing_reduction_backpropagates_without_sum(reduction):
    y_hat = torch.tensor([[0.5, -1.0], [2.0, 0.0]], requires_grad=True)
    y = torch.tensor([[1.0, 1.0], [1.0, 1.0]])
    loss = nn.MSELoss(reduction=reduction)(y_hat, y)
    assert loss.dim() == 0, f"reduction={reduction!r} gave shape {tuple(loss.shape)}"
    loss.backward()
    scale = 1 / y.numel() if reduction == "mean" else 1.0
    assert_close(y_hat.grad, 2 * (y_hat.detach() - y) * scale)


@pytest.mark.claim("autograd.backward-scalar-reduction")
def test_loss_without_reduction_needs_an_explicit_reduction_before_backward():
    y_hat = torch.tensor([0.5, -1.0], requires_grad=True)
    loss = nn.MSELoss(reduction="none")(y_hat, torch.ones(2))
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        loss.backward()


# --- no_grad --------------------------------------------------------------------------------


@pytest.mark.claim("autograd.no-grad")
def test_no_grad_records_nothing_and_restores_grad_mode():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    layer = nn.Linear(2, 2)
    outside = layer(w * 3)
    assert outside.requires_grad and outside.grad_fn is not None
    with torch.no_grad():
        assert not torch.is_grad_enabled()
        inside = layer(w * 3)
        with SavedTensorBytes() as saved:
            layer(w * 3)
    assert not inside.requires_grad and inside.grad_fn is None
    assert saved.count == 0, f"{saved.count} tensors were saved for backward under no_grad"
    assert w.requires_grad, "no_grad must not change the leaf's own flag"
    assert torch.is_grad_enabled(), "grad mode not restored after the with block"


@pytest.mark.claim("autograd.no-grad-decorator")
def test_no_grad_works_as_a_function_decorator():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    seen = {}

    @torch.no_grad()
    def predict(x):
        seen["grad_enabled"] = torch.is_grad_enabled()
        return x * w

    out = predict(torch.ones(2))
    assert seen["grad_enabled"] is False
    assert not out.requires_grad and out.grad_fn is None
    assert torch.is_grad_enabled(), "grad mode not restored after the decorated call"
    assert (torch.ones(2) * w).requires_grad, "outside the decorated function autograd records again"


@pytest.mark.claim("autograd.no-grad-speed-memory")
def test_no_grad_keeps_no_activations_alive():
    net = _mlp()
    x = torch.randn(32, 64)
    params = list(net.parameters())
    with SavedTensorBytes(exclude=params + [x]) as with_grad:
        out = net(x)
    with torch.no_grad(), SavedTensorBytes(exclude=params + [x]) as without_grad:
        net(x)
    # six Linear+Tanh blocks keep at least one 32x64 float32 activation each alive
    assert with_grad.bytes >= 6 * 32 * 64 * 4, f"graph keeps {with_grad.bytes} bytes of activations"
    assert without_grad.count == 0 and without_grad.bytes == 0
    assert out.grad_fn is not None


GPU_ACT = 1024 * 512 * 4  # one float32 activation of the GPU net, 2 MiB: the allocator counts it exactly


@pytest.mark.claim("autograd.no-grad-speed-memory")
@pytest.mark.needs(gpus=1)
def test_no_grad_keeps_no_activations_in_gpu_memory(cuda_device, claim_figure):
    """The note's 显存: the GPU memory a forward pass holds, torch.cuda.max_memory_allocated with
    the peak reset before each side (supporting: the claim is decided by the CPU benchmark)."""
    torch.manual_seed(0)
    net = nn.Sequential(*[m for _ in range(6) for m in (nn.Linear(512, 512), nn.Tanh())]).to(cuda_device)
    x = torch.randn(1024, 512, device=cuda_device)
    net(x).sum().backward()  # cuBLAS workspace and gradients exist before either side is measured

    def side(grad_mode):
        torch.cuda.synchronize(cuda_device)
        base = torch.cuda.memory_allocated(cuda_device)
        torch.cuda.reset_peak_memory_stats(cuda_device)
        with torch.set_grad_enabled(grad_mode):
            out = net(x)
        torch.cuda.synchronize(cuda_device)
        kept = torch.cuda.memory_allocated(cuda_device) - base  # the output and what the graph saved
        peak = torch.cuda.max_memory_allocated(cuda_device) - base
        del out
        return kept, peak

    kept_grad, peak_grad = side(True)
    kept_no_grad, peak_no_grad = side(False)
    for name, value in (("kept after forward, recording", kept_grad), ("kept after forward, no_grad", kept_no_grad),
                        ("peak during forward, recording", peak_grad), ("peak during forward, no_grad", peak_no_grad)):
        claim_figure(f"GPU memory {name} (6 x Linear(512)+Tanh, batch 1024)", value / 2**20, unit="MiB")
    # no_grad keeps only the output; recording keeps every Tanh output for backward (six, the last the output)
    assert kept_no_grad == GPU_ACT, f"no_grad kept {kept_no_grad} bytes, expected the output's {GPU_ACT}"
    assert kept_grad >= 6 * GPU_ACT, f"recording kept {kept_grad} bytes, expected at least {6 * GPU_ACT}"
    assert peak_no_grad < peak_grad, f"peak under no_grad {peak_no_grad} bytes, recording {peak_grad}"


# --- eval, frozen tensors --------------------------------------------------------------------


@pytest.mark.claim("autograd.eval-still-grads")
def test_eval_mode_changes_dropout_and_batchnorm_but_gradients_and_updates_go_on():
    model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.Dropout(0.5), nn.Linear(8, 1))
    x = torch.randn(16, 4)
    assert not torch.equal(model(x), model(x)), "train-mode dropout should differ between calls"
    model.eval()
    running_mean = model[1].running_mean.clone()
    out = model(x)
    # eval changed the layers: dropout is the identity, batch norm does not update its statistics
    assert torch.equal(out, model(x)), "eval forward is not deterministic: dropout still active"
    assert torch.equal(model[1].running_mean, running_mean), "eval forward updated running_mean"
    # ... but autograd still records and the weights still train
    assert out.grad_fn is not None
    out.sum().backward()
    for name, p in model.named_parameters():
        assert p.grad is not None and p.grad.abs().sum() > 0, f"{name} got no gradient in eval mode"
    before = [p.detach().clone() for p in model.parameters()]
    torch.optim.SGD(model.parameters(), lr=0.1).step()
    for (name, p), old in zip(model.named_parameters(), before):
        assert not torch.equal(p, old), f"{name} was not updated in eval mode"


NOTE_REQUIRE_GRAD_TYPO = "t.require_grad = False"


@pytest.mark.claim("autograd.require-grad-typo", decides="wrong")
def test_require_grad_typo_sets_a_plain_attribute_and_the_tensor_keeps_training():
    layer = nn.Linear(3, 1)
    t = layer.weight
    exec(compile(NOTE_REQUIRE_GRAD_TYPO, "<note>", "exec"), {"t": t})
    assert t.require_grad is False, "the typo'd name became an ordinary Python attribute"
    assert t.requires_grad is True, "the real flag did not change"
    before = t.detach().clone()
    layer(torch.ones(2, 3)).sum().backward()
    torch.optim.SGD(layer.parameters(), lr=0.1).step()
    assert t.grad is not None and not torch.equal(t, before), "the 'frozen' weight was not trained"


@pytest.mark.claim("autograd.require-grad-typo")
def test_the_correct_spelling_requires_grad_does_freeze():
    layer = nn.Linear(3, 1)
    layer.weight.requires_grad = False
    before = layer.weight.detach().clone()
    layer(torch.ones(2, 3)).sum().backward()
    torch.optim.SGD(layer.parameters(), lr=0.1).step()
    assert layer.weight.grad is None and torch.equal(layer.weight, before)


@pytest.mark.claim("autograd.requires-grad-false-semantics", half="holding")
def test_frozen_weight_still_takes_part_in_backward_but_step_leaves_it_unchanged():
    net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))
    reference = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))
    reference.load_state_dict(net.state_dict())
    x = torch.randn(5, 4)

    frozen = net[2].weight
    frozen.requires_grad = False
    with SavedTensorBytes() as saved:
        out = net(x)
    # the forward pass recorded the frozen weight: the first layer's gradient needs it
    assert storage_ptr(frozen) in saved.storages, "the frozen weight was not saved for backward"
    out.sum().backward()
    reference(x).sum().backward()
    assert_close(net[0].weight.grad, reference[0].weight.grad)  # flows *through* the frozen layer
    assert frozen.grad is None

    before = frozen.detach().clone()
    torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9, weight_decay=0.1).step()
    assert torch.equal(frozen, before), "step() changed a requires_grad=False parameter"
    assert not torch.equal(net[0].weight, reference[0].weight), "the trainable layer did not move"


@pytest.mark.claim("autograd.requires-grad-false-semantics", half="failing")
def test_a_frozen_first_layer_records_nothing_for_the_backward_pass():
    net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))
    x = torch.randn(5, 4)
    with SavedTensorBytes() as trainable:
        hidden = net[1](net[0](x))
    # control: a trainable first layer is recorded and saves its input for the weight's gradient
    assert hidden.grad_fn is not None and storage_ptr(x) in trainable.storages

    net[0].requires_grad_(False)  # nothing before or in the first layer requires grad now
    with SavedTensorBytes() as saved:
        hidden = net[1](net[0](x))
        out = net[2](hidden)
    assert hidden.grad_fn is None and not hidden.requires_grad, "the frozen layer's output was recorded"
    for name, t in (("input", x), ("frozen weight", net[0].weight), ("frozen bias", net[0].bias)):
        assert storage_ptr(t) not in saved.storages, f"the {name} of the frozen layer was saved for backward"
    out.sum().backward()
    assert net[0].weight.grad is None and net[2].weight.grad is not None


@pytest.mark.claim("autograd.layer-requires-grad-false", decides="wrong")
def test_a_layer_used_as_weights_computed_each_step_trains_without_freezing_or_retain_graph():
    torch.manual_seed(0)
    weight_maker, p = nn.Linear(3, 4), nn.Parameter(torch.randn(4))
    before = [t.detach().clone() for t in weight_maker.parameters()]
    opt = torch.optim.SGD([p], lr=0.1)
    x = torch.randn(2, 3)
    for _ in range(2):  # not frozen, a fresh graph each step: no retain_graph needed
        opt.zero_grad()
        (weight_maker(x) @ p).pow(2).sum().backward()
        opt.step()
    assert weight_maker.weight.grad is not None, "backward did reach the layer (it only fills .grad)"
    assert all(torch.equal(a, b) for a, b in zip(before, weight_maker.parameters())), "the layer's weights changed"


@pytest.mark.claim("autograd.layer-requires-grad-false", decides="wrong")
def test_freezing_the_layer_does_not_help_when_its_input_comes_from_a_trainable_layer():
    torch.manual_seed(0)
    trainable, weight_maker = nn.Linear(3, 3), nn.Linear(3, 4).requires_grad_(False)
    fixed_weights = weight_maker(trainable(torch.randn(2, 3)))  # frozen as advised, computed once, reused
    p = nn.Parameter(torch.randn(4))
    (fixed_weights @ p).pow(2).sum().backward()
    with pytest.raises(RuntimeError, match=SECOND_BACKWARD_ERROR):
        (fixed_weights @ p).pow(2).sum().backward()


@pytest.mark.claim("autograd.layer-requires-grad-false")
def test_layer_output_reused_as_weights_needs_requires_grad_false_on_the_layer():
    def train_two_steps(freeze):
        torch.manual_seed(0)
        weight_maker = nn.Linear(3, 4)
        if freeze:
            weight_maker.requires_grad_(False)
        fixed_weights = weight_maker(torch.randn(2, 3))  # computed once, reused every step
        p = nn.Parameter(torch.randn(4))
        opt = torch.optim.SGD([p], lr=0.1)
        for _ in range(2):
            opt.zero_grad()
            loss = (fixed_weights @ p).pow(2).sum()
            loss.backward()
            opt.step()
        return fixed_weights

    with pytest.raises(RuntimeError, match=SECOND_BACKWARD_ERROR) as excinfo:
        train_two_steps(freeze=False)
    assert "retain_graph=True" in str(excinfo.value)
    assert train_two_steps(freeze=True).grad_fn is None, "a frozen layer's output still has a graph"


# --- clip_grad_norm_ ------------------------------------------------------------------------


MAX_NORM = 1.0


@pytest.mark.claim("autograd.clip-grad-norm-explode-only")
@pytest.mark.parametrize(
    "total_norm",
    [
        pytest.param(1e-4, id="vanishing norm 1e-4 is not scaled up"),
        pytest.param(0.5, id="norm 0.5 below max is left alone"),
        pytest.param(3.0, id="norm 3 is scaled down to max"),
        pytest.param(1e4, id="exploding norm 1e4 is scaled down to max"),
    ],
)
def test_clip_grad_norm_only_scales_down(total_norm):
    params = [nn.Parameter(torch.zeros(3)), nn.Parameter(torch.zeros(2, 2))]
    direction = [torch.tensor([1.0, -2.0, 2.0]), torch.tensor([[0.0, 4.0], [-2.0, 1.0]])]
    unit = torch.cat([d.flatten() for d in direction]).norm()
    for p, d in zip(params, direction):
        p.grad = d / unit * total_norm
    grads_before = [p.grad.clone() for p in params]

    returned = torch.nn.utils.clip_grad_norm_(params, max_norm=MAX_NORM)

    assert_close(returned, torch.tensor(total_norm), msg="clip_grad_norm_ returns the norm before clipping")
    new_norm = torch.cat([p.grad.flatten() for p in params]).norm()
    if total_norm <= MAX_NORM:
        for p, g in zip(params, grads_before):
            assert torch.equal(p.grad, g), f"norm {total_norm} <= max_norm, yet the gradient changed"
    else:
        assert_close(new_norm, torch.tensor(MAX_NORM), rtol=1e-5, atol=0)
        for p, g in zip(params, grads_before):  # same direction, shorter
            assert_close(p.grad, g * (MAX_NORM / total_norm), rtol=1e-5, atol=1e-12)

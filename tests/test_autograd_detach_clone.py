"""detach / clone / backward accumulation.

Notes: 000_03e1e7bc9bbd04f1.txt › 4. 张量 › 张量基本操作 (clone / detach table);
002_d3afcdbaa9416717.txt › 复制张量; 001_eaed12e493b64ab2.txt › detach() 和 data(),
› loss.backward() 和 optimizer.step(); 003_df07c2a5da61a567.txt › 4 torch 神经网络,
› 6 常见错误.

Memory sharing is checked twice: by storage pointer and by the visible effect of an
in-place write. Graph membership is checked by grad_fn and by running backward.
"""
import pytest
import torch
from torch import nn
from torch.testing import assert_close

from fixtures.tensors import storage_ptr


def source(device):
    leaf = torch.tensor([1.0, 2.0, 3.0], requires_grad=True, device=device)
    return leaf, leaf * 2  # a non-leaf in the graph


@pytest.mark.claim("autograd.clone-in-graph")
def test_clone_copies_memory_and_passes_gradients_back(device):
    leaf, t = source(device)
    c = t.clone()
    assert storage_ptr(c) != storage_ptr(t), "clone() must allocate new storage"
    with torch.no_grad():
        c[0] = 100.0
    assert t[0].item() == 2.0, "writing into the clone changed the source"
    assert c.grad_fn is not None and c.requires_grad
    (c * torch.tensor([1.0, 2.0, 3.0], device=device)).sum().backward()
    assert_close(leaf.grad, torch.tensor([2.0, 4.0, 6.0], device=device))  # d/dleaf of sum(w * 2 * leaf)


@pytest.mark.claim("autograd.clone-in-graph", "autograd.detach-shared", "autograd.detach-clone")
@pytest.mark.needs(gpus=1)
def test_detach_takes_no_gpu_memory_and_clone_takes_a_copy(cuda_device, claim_figure):
    """GPU memory figures (torch.cuda.max_memory_allocated, the peak reset before each call):
    supporting evidence of the CPU-decided storage claims."""
    x = torch.randn(1024, 1024, device=cuda_device, requires_grad=True)  # 4 MiB: counted exactly

    def new_bytes(fn):
        torch.cuda.synchronize(cuda_device)
        base = torch.cuda.memory_allocated(cuda_device)
        torch.cuda.reset_peak_memory_stats(cuda_device)
        out = fn()
        torch.cuda.synchronize(cuda_device)
        peak = torch.cuda.max_memory_allocated(cuda_device) - base
        kept = torch.cuda.memory_allocated(cuda_device) - base
        del out
        return peak, kept

    figures = {name: new_bytes(fn) for name, fn in (("detach()", x.detach), ("clone()", x.clone),
                                                    ("detach().clone()", lambda: x.detach().clone()))}
    for name, (peak, _) in figures.items():
        claim_figure(f"GPU memory allocated by x.{name}, x 1024x1024 float32", peak / 2**20, unit="MiB")
    size = x.nbytes
    assert figures["detach()"] == (0, 0), f"detach allocated {figures['detach()']} (peak, kept) bytes"
    assert figures["clone()"] == (size, size), f"clone: {figures['clone()']} bytes, expected a copy of {size}"
    assert figures["detach().clone()"] == (size, size), f"detach().clone(): {figures['detach().clone()']} bytes"


@pytest.mark.claim("autograd.detach-shared")
def test_detach_shares_storage_and_leaves_the_graph(device):
    leaf, t = source(device)
    d = t.detach()
    assert storage_ptr(d) == storage_ptr(t), "detach() must share the source's storage"
    d[0] = 100.0
    assert t[0].item() == 100.0, "an in-place write through the detached tensor must show in the source"
    assert d.grad_fn is None and d.requires_grad is False


@pytest.mark.claim("autograd.detach-clone-typo", decides="wrong")
def test_note_spelling_detach_dot_clone_call_call_raises_attribute_error():
    t = torch.ones(3, requires_grad=True)
    # the note writes tensor.detach.clone()(): `detach` is a bound builtin method with no .clone
    with pytest.raises(AttributeError, match="'builtin_function_or_method' object has no attribute 'clone'"):
        t.detach.clone()()


@pytest.mark.claim("autograd.detach-clone")
def test_detach_clone_copies_memory_outside_the_graph(device):
    leaf, t = source(device)
    dc = t.detach().clone()
    assert storage_ptr(dc) != storage_ptr(t)
    dc[0] = 100.0
    assert t[0].item() == 2.0, "writing into detach().clone() changed the source"
    assert dc.grad_fn is None and dc.requires_grad is False


@pytest.mark.claim("autograd.detach-never-grad", decides="wrong")
def test_detached_tensor_with_requires_grad_set_again_does_get_a_grad(device):
    leaf, t = source(device)
    d = t.detach()
    d.requires_grad_(True)  # d is now a leaf of a new graph
    (d * 3).sum().backward()
    assert d.grad is not None, "the note says a detached tensor never gets .grad"
    assert_close(d.grad, torch.full_like(d, 3.0))
    assert leaf.grad is None, "nothing flows back to the original graph"


@pytest.mark.claim("autograd.detach-inplace-error")
def test_inplace_write_through_detached_alias_breaks_a_later_backward(device):
    a = torch.randn(3, requires_grad=True, device=device)
    out = a.sigmoid()  # sigmoid saves its output for backward
    before = out.detach().clone()
    out.detach().zero_()
    assert torch.equal(out.detach(), torch.zeros_like(before)), "the zeroing must show in the original tensor"
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


@pytest.mark.claim("autograd.backward-accumulates")
def test_backward_adds_the_new_gradient_to_the_stored_one(device):
    w = torch.tensor([1.0, -2.0], requires_grad=True, device=device)
    x1, x2 = torch.tensor([3.0, 4.0], device=device), torch.tensor([-1.0, 5.0], device=device)
    (w * x1).sum().backward()
    first = w.grad.clone()
    (w * x2).sum().backward()
    assert_close(first, x1)
    assert_close(w.grad, x1 + x2)  # previous + new, not new alone


@pytest.mark.claim("autograd.backward-twice-same-graph", decides="wrong")
def test_second_backward_on_the_same_output_needs_retain_graph_then_accumulates():
    net = nn.Linear(3, 2)
    out = net(torch.randn(4, 3))
    out.sum().backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        out.sum().backward()

    net.zero_grad()
    out = net(torch.randn(4, 3))
    out.sum().backward(retain_graph=True)
    once = net.weight.grad.clone()
    out.sum().backward()
    assert_close(net.weight.grad, 2 * once)


@pytest.mark.claim("autograd.detach-blocks-upstream")
def test_feeding_detached_features_to_a_second_net_stops_gradient_to_the_first():
    first, second = nn.Linear(4, 3), nn.Linear(3, 1)
    x = torch.randn(5, 4)
    second(first(x).detach()).sum().backward()
    assert first.weight.grad is None and first.bias.grad is None
    assert second.weight.grad is not None
    # control: without detach the first net does get a gradient
    second(first(x)).sum().backward()
    assert first.weight.grad is not None and first.weight.grad.abs().sum() > 0


@pytest.mark.claim("autograd.detach-in-forward", decides="wrong")
def test_detach_in_forward_only_cuts_the_layers_before_it():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.before, self.after = nn.Linear(4, 4), nn.Linear(4, 1)

        def forward(self, x):
            return self.after(self.before(x).detach())

    net = Net()
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    x, y = torch.randn(8, 4), torch.randn(8, 1)
    w_after = net.after.weight.detach().clone()
    nn.functional.mse_loss(net(x), y).backward()
    opt.step()
    assert net.before.weight.grad is None, "the layer before detach() gets no gradient"
    assert not torch.equal(net.after.weight, w_after), "the layer after detach() still trains"
    # only when the detach cuts everything (no parameter after it) does backward refuse to run
    with pytest.raises(RuntimeError, match="does not require grad"):
        nn.functional.mse_loss(net.before(x).detach(), torch.randn(8, 4)).backward()


@pytest.mark.claim("autograd.clone-in-loop")
def test_appending_an_inplace_modified_tensor_in_a_loop_needs_clone():
    t = torch.zeros(2)
    aliased, cloned = [], []
    for step in range(3):
        t.add_(1)
        aliased.append(t)
        cloned.append(t.clone())
    assert [v.tolist() for v in aliased] == [[3.0, 3.0]] * 3, "every appended alias shows the last value"
    assert [v.tolist() for v in cloned] == [[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]]


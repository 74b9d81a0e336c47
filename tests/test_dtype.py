"""dtype and device conversions, numpy interop, creation options, one-hot.

Notes: 000_03e1e7bc9bbd04f1.txt › 4. 张量 › 数据类型转换 (set_default_tensor_type,
.cuda()/.cpu(), .float()/.long(), byte()/char(), numpy round trip,
from_numpy(ndarray.copy())); 002_d3afcdbaa9416717.txt › 数据类型转换;
003_df07c2a5da61a567.txt › 2 tensor 使用 GPU (torch.device, get_device),
› 3 tensor 数据类型 (arange/tensor options, Tensor.to(device, NON-BLOCKING),
type(torch.float64), F.one_hot).

The image conversions of the same sections (PIL <-> tensor) are in another module; the float
vs double speed claim is a benchmark (test_benchmarks_cpu.py).
"""
import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given
from hypothesis import strategies as st
from torch.utils._python_dispatch import TorchDispatchMode

from fixtures.boundaries import DEFAULT_TENSOR_TYPE_DEPRECATED
from fixtures.strategies import SPACE
from fixtures.tensors import storage_ptr
from fixtures.versions import torch_at_least


def array_ptr(a):
    return a.__array_interface__["data"][0]


@pytest.fixture
def warn_always():
    """Make torch's warn-once C++ warnings fire every time: earlier tests may have used them up."""
    before = torch.is_warn_always_enabled()
    torch.set_warn_always(True)
    yield
    torch.set_warn_always(before)


# -- default tensor type -----------------------------------------------------------------


def set_double_then_float():
    """set_default_tensor_type(DoubleTensor), then back to FloatTensor: (warnings, default dtype
    while DoubleTensor was set, dtype of torch.tensor([1.5]) then, default dtype after)."""
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            torch.set_default_tensor_type(torch.DoubleTensor)
        during = torch.get_default_dtype(), torch.tensor([1.5]).dtype
    finally:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.set_default_tensor_type(torch.FloatTensor)
    return caught, during, torch.get_default_dtype()


@pytest.mark.claim("dtype.set-default-tensor-type", half="holding")
def test_set_default_tensor_type_changes_the_default_dtype(warn_always):
    caught, during, after = set_double_then_float()
    assert during == (torch.float64, torch.float64), during
    assert after == torch.float32, after
    if not torch_at_least(DEFAULT_TENSOR_TYPE_DEPRECATED):
        deprecations = [str(w.message) for w in caught if "deprecated" in str(w.message)]
        assert not deprecations, f"deprecation warning before {DEFAULT_TENSOR_TYPE_DEPRECATED}: {deprecations}"


@pytest.mark.claim("dtype.set-default-tensor-type", half="failing")
@pytest.mark.needs(min_torch=DEFAULT_TENSOR_TYPE_DEPRECATED)
def test_set_default_tensor_type_warns_that_it_is_deprecated_since_2_1(warn_always):
    caught, _, _ = set_double_then_float()
    deprecations = [w for w in caught if "set_default_tensor_type() is deprecated" in str(w.message)]
    assert deprecations, f"no deprecation warning; got {[str(w.message) for w in caught]}"
    assert deprecations[0].category is UserWarning, deprecations[0].category
    assert "set_default_dtype" in str(deprecations[0].message), str(deprecations[0].message)


@pytest.mark.claim("dtype.set-default-tensor-type", half="failing")
def test_the_replacement_set_default_dtype_does_the_same_without_warning(warn_always):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # any warning fails the test
            torch.set_default_dtype(torch.float64)
        assert torch.tensor([1.5]).dtype == torch.float64
        assert torch.zeros(1).type() == "torch.DoubleTensor"
    finally:
        torch.set_default_dtype(torch.float32)
    # FloatTensor / float32 is already the default: the note's call changes nothing
    assert torch.tensor([1.5]).type() == "torch.FloatTensor"


# -- conversion methods ------------------------------------------------------------------

SOURCES = [
    pytest.param(torch.float64, id="from-float64"),
    pytest.param(torch.float16, id="from-float16"),
    pytest.param(torch.int32, id="from-int32"),
    pytest.param(torch.uint8, id="from-uint8"),
    pytest.param(torch.bool, id="from-bool"),
]


@pytest.mark.claim("dtype.float-long-conversion")
@pytest.mark.parametrize("source", SOURCES)
def test_float_gives_float32_and_long_gives_int64(source):
    t = torch.tensor([0, 1, 1, 0, 1], dtype=source)
    assert t.float().dtype == torch.float32
    assert t.long().dtype == torch.int64
    assert t.float().tolist() == t.long().tolist() == [0, 1, 1, 0, 1]


@pytest.mark.claim("dtype.float-long-conversion")
def test_long_truncates_toward_zero_and_float_of_float32_is_the_same_tensor():
    assert torch.tensor([-2.7, -0.5, 0.5, 2.7]).long().tolist() == [-2, 0, 0, 2]
    t = torch.rand(3)
    assert t.float() is t, "float() on a float32 tensor returns it unchanged (no copy)"
    assert t.double().float() is not t


@pytest.mark.claim("dtype.byte-char")
def test_byte_gives_uint8_and_char_gives_int8():
    t = torch.tensor([0, 5, 100, 127])
    assert t.byte().dtype == torch.uint8 and t.byte().tolist() == [0, 5, 100, 127]
    assert t.char().dtype == torch.int8 and t.char().tolist() == [0, 5, 100, 127]
    # integers outside the range wrap around (two's complement), they are not clamped
    assert torch.tensor([-1, 256, 300]).byte().tolist() == [255, 0, 44]
    assert torch.tensor([200, -129]).char().tolist() == [-56, 127]


@pytest.mark.claim("dtype.type-float64")
@pytest.mark.parametrize("source", [torch.float32, torch.int64, torch.bool], ids=str)
def test_type_float64_converts_like_numpy_astype_float(source):
    t = torch.tensor([0, 1, 3], dtype=source) if source is not torch.bool else torch.tensor([False, True, True])
    converted = t.type(torch.float64)
    assert converted.dtype == torch.float64
    as_numpy = t.numpy().astype("float")
    assert as_numpy.dtype == np.float64, "numpy's astype('float') is float64 too"
    np.testing.assert_array_equal(converted.numpy(), as_numpy)
    assert t.type(torch.float64).dtype == t.type("torch.DoubleTensor").dtype == torch.float64


# -- CPU / CUDA ----------------------------------------------------------------------------


@pytest.mark.claim("dtype.cuda-cpu-mix", half="holding")
@pytest.mark.needs(gpus=1)
def test_cuda_tensors_do_not_mix_with_cpu_tensors():
    g, c = torch.ones(3, device="cuda"), torch.ones(3)
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        g + c
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        torch.mm(torch.ones(2, 2, device="cuda"), torch.ones(2, 2))


@pytest.mark.claim("dtype.cuda-cpu-mix", half="failing")
@pytest.mark.needs(gpus=1)
def test_a_0_dim_cpu_tensor_combines_with_a_cuda_tensor_as_a_scalar():
    g = torch.ones(3, device="cuda")
    out = g + torch.tensor(2.0)
    assert out.device.type == "cuda"
    assert torch.equal(out.cpu(), torch.full((3,), 3.0))


@pytest.mark.claim("dtype.cuda-cpu-methods")
@pytest.mark.needs(gpus=1)
def test_cuda_gives_a_gpu_copy_and_cpu_brings_it_back(cuda_device):
    t = torch.arange(6.0).reshape(2, 3)
    g = t.cuda()
    assert g.device == cuda_device, f"cuda() put the tensor on {g.device}, expected the current GPU {cuda_device}"
    g.add_(1)  # a copy: the CPU tensor is untouched
    assert t[0, 0].item() == 0.0
    back = g.cpu()
    assert back.device.type == "cpu" and back.dtype == t.dtype and torch.equal(back, t + 1)
    assert g.cuda() is g and t.cpu() is t, "already there: the same tensor comes back"
    # both are differentiable copies: a gradient flows back through them
    w = torch.ones(3, requires_grad=True)
    (w.cuda().cpu() * 2).sum().backward()
    assert torch.equal(w.grad, torch.full((3,), 2.0))


# -- numpy -----------------------------------------------------------------------------


@pytest.mark.claim("dtype.numpy-roundtrip", half="holding")
def test_cpu_numpy_and_from_numpy_round_trip_sharing_memory():
    t = torch.arange(6.0).reshape(2, 3)
    a = t.cpu().numpy()
    assert array_ptr(a) == storage_ptr(t), "numpy() of a CPU tensor should share its memory"
    back = torch.from_numpy(a)
    assert storage_ptr(back) == storage_ptr(t), "from_numpy(a) does not share a's memory"
    a[0, 0] = 100.0  # one write, seen through all three
    assert t[0, 0].item() == back[0, 0].item() == 100.0
    assert back.dtype == t.dtype and back.shape == t.shape


@pytest.mark.claim("dtype.numpy-roundtrip", half="failing")
def test_numpy_conversion_is_not_free_for_grad_tensors_bfloat16_or_negative_strides():
    w = torch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"Can't call numpy\(\) on Tensor that requires grad"):
        w.cpu().numpy()
    assert w.detach().numpy().tolist() == [1.0, 1.0, 1.0]
    with pytest.raises(TypeError, match="unsupported ScalarType BFloat16"):
        torch.ones(3, dtype=torch.bfloat16).numpy()
    with pytest.raises(ValueError, match="negative"):
        torch.from_numpy(np.arange(3.0)[::-1])


@pytest.mark.claim("dtype.from-numpy-copy")
def test_from_numpy_float_shares_memory_for_a_float32_array():
    nd = np.zeros(4, dtype=np.float32)
    shared = torch.from_numpy(nd).float()  # float() is a no-op here: still nd's memory
    independent = torch.from_numpy(nd.copy()).float()
    assert storage_ptr(shared) == array_ptr(nd), "from_numpy(nd).float() does not share nd's memory"
    assert storage_ptr(independent) != array_ptr(nd), "from_numpy(nd.copy()).float() shares nd's memory"
    nd[1] = 7.0
    assert shared[1].item() == 7.0, "the tensor did not see the write to nd"
    assert independent[1].item() == 0.0, "the tensor made from nd.copy() saw the write to nd"


@pytest.mark.claim("dtype.from-numpy-copy")
def test_from_numpy_float_copies_anyway_when_the_array_is_not_float32():
    nd = np.zeros(4, dtype=np.float64)
    assert storage_ptr(torch.from_numpy(nd)) == array_ptr(nd), "from_numpy itself always shares"
    converted = torch.from_numpy(nd).float()  # the dtype change makes a new tensor
    assert storage_ptr(converted) != array_ptr(nd), "float() of a float64 tensor kept nd's memory"
    nd[1] = 7.0
    assert converted[1].item() == 0.0, "the float32 copy saw the write to nd"


# -- devices ---------------------------------------------------------------------------


@pytest.mark.claim("dtype.get-device")
def test_get_device_is_minus_1_on_cpu_and_the_gpu_index_on_cuda(device):
    t = torch.ones(2, device=device)
    expected = -1 if device == "cpu" else torch.cuda.current_device()
    assert t.get_device() == expected, f"get_device() = {t.get_device()} on {t.device}"


DEVICE_SELECT = "torch.device('cuda:0' if torch.cuda.is_available() else 'cpu')"  # the note's line


@pytest.mark.claim("dtype.device-select")
def test_device_expression_picks_the_cpu_when_no_gpu_is_visible(no_gpu_python):
    picked = no_gpu_python(f"import torch\nd = {DEVICE_SELECT}\n"
                           "result = [d.type, d.index, torch.ones(1, device=d).device.type]")
    assert picked == ["cpu", None, "cpu"], picked


@pytest.mark.claim("dtype.device-select")
@pytest.mark.needs(gpus=1)
def test_device_expression_picks_cuda_0_when_cuda_is_available():
    dev = eval(DEVICE_SELECT)
    assert (dev.type, dev.index) == ("cuda", 0), dev
    assert torch.ones(1, device=dev).device == torch.device("cuda", 0)


# -- creation options ------------------------------------------------------------------


@pytest.mark.claim("dtype.arange-requires-grad", decides="wrong")
def test_arange_of_integers_cannot_require_grad():
    with pytest.raises(RuntimeError, match="Only Tensors of floating point and complex dtype can require gradients"):
        torch.arange(5, requires_grad=True)


@pytest.mark.claim("dtype.arange-requires-grad", decides="wrong")
def test_float_arange_requires_grad_but_allocates_no_gradient_until_backward():
    x = torch.arange(5.0, requires_grad=True)
    assert x.requires_grad and x.is_leaf
    assert x.grad is None, "requires_grad only marks the tensor; nothing is allocated yet"
    (x * x).sum().backward()
    assert torch.equal(x.grad, 2 * x.detach())


@pytest.mark.claim("dtype.arange-device")
def test_arange_with_device_lives_on_that_device(device):
    t = torch.arange(5, device=device)
    assert t.device.type == device
    assert t.cpu().tolist() == [0, 1, 2, 3, 4]


@pytest.mark.claim("dtype.arange-device")
def test_arange_with_device_is_one_op_on_that_device_with_no_copy():
    from torch.utils._python_dispatch import TorchDispatchMode

    class Record(TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.calls = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.calls.append((str(func), (kwargs or {}).get("device")))
            return func(*args, **(kwargs or {}))

    with Record() as record:
        t = torch.arange(5, device="meta")
    assert t.device.type == "meta"
    # one arange kernel, told the target device; no CPU tensor is made and copied over
    assert record.calls and all(name.startswith("aten.arange") for name, _ in record.calls), f"ops run: {record.calls}"
    assert record.calls[0][1] == torch.device("meta"), f"ops run: {record.calls}"


@pytest.mark.claim("dtype.tensor-positional-args", decides="holds")
def test_tensor_takes_requires_grad_and_device_only_by_keyword(device):
    with pytest.raises(TypeError, match="takes 1 positional argument but 3 were given"):
        torch.tensor([1.0, 2.0], True, device)
    t = torch.tensor([1.0, 2.0], requires_grad=True, device=device)  # the note's CPU or GPU
    assert t.requires_grad and t.device.type == device
    assert t.tolist() == [1.0, 2.0] and t.dtype == torch.float32


@pytest.mark.claim("dtype.tensor-requires-grad", decides="wrong")
def test_tensor_with_requires_grad_allocates_no_gradient_until_backward():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    assert x.requires_grad and x.is_leaf
    assert x.grad is None, f"requires_grad only marks the tensor; .grad is {x.grad}, expected None"
    (x * x).sum().backward()
    assert torch.equal(x.grad, 2 * x.detach()), x.grad


@pytest.mark.claim("dtype.tensor-requires-grad", decides="wrong")
def test_tensor_of_integers_cannot_require_grad():
    with pytest.raises(RuntimeError, match="Only Tensors of floating point and complex dtype can require gradients"):
        torch.tensor([1, 2, 3], requires_grad=True)


# -- Tensor.to and non_blocking --------------------------------------------------------


class _CopyArguments(TorchDispatchMode):
    """Records the non_blocking that each copy Tensor.to makes receives (the operator's own
    default where the call leaves it out)."""

    def __init__(self):
        super().__init__()
        self.non_blocking = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func is torch.ops.aten._to_copy.default:
            default = {a.name: a.default_value for a in func._schema.arguments}["non_blocking"]
            self.non_blocking.append(kwargs.get("non_blocking", default))
        return func(*args, **kwargs)


@pytest.mark.claim("dtype.to-non-blocking-default")
def test_tensor_to_copies_with_non_blocking_false_unless_asked():
    t = torch.ones(2)
    with _CopyArguments() as seen:
        t.to(torch.float64)
        t.to("cpu", torch.float64)
        t.to(torch.float64, non_blocking=True)  # control: the recorder sees what the call asks for
    assert seen.non_blocking == [False, False, True], f"non_blocking of the copies: {seen.non_blocking}"


@pytest.mark.claim("dtype.to-non-blocking-default")
@pytest.mark.needs(gpus=1, async_launch=True)
def test_default_device_to_host_copy_waits_for_queued_work():
    # an ordering check, not a timing: other xdist workers' kernels can only lengthen the sleep
    x = torch.randn(1 << 16, device="cuda")
    torch.cuda._sleep(100_000_000)  # keep the stream busy for tens of milliseconds
    assert not torch.cuda.current_stream().query(), "the sleep was over before the copy: nothing to wait for"
    y = x.to("cpu")
    assert torch.cuda.current_stream().query(), "to('cpu') returned before the stream was done"
    assert torch.equal(y, x.cpu())


@pytest.mark.claim("dtype.to-non-blocking-semantics", decides="wrong")
@pytest.mark.needs(gpus=1, async_launch=True)
def test_non_blocking_copy_returns_early_and_later_work_waits_for_all_the_data():
    # 256 MiB from pinned memory: milliseconds on the bus, so the copy is caught while it runs. The
    # consumer is queued at once, nothing ahead of the copy. The copy lands in a block that held NaN
    # just before (the caching allocator hands a freed block of the same size straight back), so a
    # consumer that started on partly arrived data would sum NaN: exact sums in float64 otherwise.
    # The consumer's kernel runs once first: its first launch loads it (CUDA lazy loading), which
    # can wait for the whole device and so hide a consumer that does not wait for the copy
    src = torch.arange(1 << 25, dtype=torch.float64).pin_memory()
    expected = src.sum().item()
    poison = torch.full_like(src, float("nan"), device="cuda")
    poison.sum()
    poisoned_block = poison.data_ptr()
    del poison
    copied = torch.cuda.Event()
    torch.cuda.synchronize()
    dst = src.to("cuda", non_blocking=True)
    copied.record()
    returned_early = not copied.query()
    total = dst.sum()  # queued right behind the copy on the same stream
    torch.cuda.synchronize()
    assert dst.data_ptr() == poisoned_block, (
        "the copy did not land in the NaN block: a consumer that ran early would not show")
    assert total.item() == expected, (
        f"the consumer summed {total.item()}, the data sums to {expected}: it started on partly arrived data")
    assert returned_early, "to(non_blocking=True) returned after the copy had finished"


@pytest.mark.claim("dtype.to-non-blocking-positional", decides="holds")
def test_to_device_then_bool_is_not_the_non_blocking_form():
    t = torch.ones(2)
    # the second positional slot after a device is dtype, and a bool is not a dtype
    with pytest.raises(TypeError, match=r"to\(\) received an invalid combination of arguments - got \(str, bool\)"):
        t.to("cpu", True)
    # the keyword form, and the positional form after a dtype, are accepted
    assert torch.equal(t.to("cpu", non_blocking=True), t)
    assert torch.equal(t.to("cpu", torch.float32, True), t)


# -- one-hot ---------------------------------------------------------------------------


@pytest.mark.claim("dtype.one-hot-default", decides="wrong")
@SPACE
@given(labels=st.lists(st.integers(0, 9), min_size=1, max_size=8))
def test_one_hot_default_num_classes_is_max_plus_one(labels):
    out = F.one_hot(torch.tensor(labels))
    assert out.shape[-1] == max(labels) + 1, f"one_hot({labels}) has {out.shape[-1]} classes, max is {max(labels)}"
    assert out[torch.arange(len(labels)), torch.tensor(labels)].eq(1).all()


@pytest.mark.claim("dtype.one-hot-default")
def test_one_hot_cannot_infer_num_classes_from_an_empty_tensor():
    with pytest.raises(RuntimeError, match="Can not infer total number of classes from empty tensor"):
        F.one_hot(torch.zeros(0, dtype=torch.long))


@pytest.mark.claim("dtype.one-hot-shape")
@SPACE
@given(shape=st.lists(st.integers(0, 3), max_size=3).map(tuple), num_classes=st.integers(1, 5))
def test_one_hot_appends_a_num_classes_axis(shape, num_classes):
    g = torch.Generator().manual_seed(0)
    t = torch.randint(0, num_classes, shape, generator=g)
    out = F.one_hot(t, num_classes)
    assert out.shape == shape + (num_classes,), f"one_hot of {shape} gave {tuple(out.shape)}"
    assert out.dtype == torch.int64
    assert torch.equal(out.sum(-1), torch.ones(shape, dtype=torch.int64))
    if t.numel():
        assert torch.equal(out.argmax(-1), t)


@pytest.mark.claim("dtype.one-hot-shape")
def test_one_hot_refuses_classes_at_or_above_num_classes():
    with pytest.raises(RuntimeError, match="Class values must be smaller than num_classes"):
        F.one_hot(torch.tensor([0, 3]), 3)

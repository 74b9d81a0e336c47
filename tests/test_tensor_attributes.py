"""Basic tensor attributes, scalar extraction, conversion methods, image layout.

Notes: 000_03e1e7bc9bbd04f1.txt › 4. 张量 › 基本属性, › 数据类型转换 (`.item()`);
002_d3afcdbaa9416717.txt › 张量的基本信息, › 从只包含一个值的张量提取出数值, › 与PIL.Image转换
(NCHW and [0, 1] convention); 001_eaed12e493b64ab2.txt › .item();
003_df07c2a5da61a567.txt › 3 tensor 数据类型 (`torch.numpy()`, `torch.tolist()`, `Torch.item()`).
"""
import numpy as np
import pytest
import torch
from torch import nn

from fixtures.boundaries import ITEM_RAISES_RUNTIME_ERROR
from fixtures.versions import torch_at_least

TYPE_NAMES = [
    pytest.param(torch.float32, "FloatTensor", id="float32->FloatTensor"),
    pytest.param(torch.float64, "DoubleTensor", id="float64->DoubleTensor"),
    pytest.param(torch.float16, "HalfTensor", id="float16->HalfTensor"),
    pytest.param(torch.int64, "LongTensor", id="int64->LongTensor"),
    pytest.param(torch.int32, "IntTensor", id="int32->IntTensor"),
    pytest.param(torch.int8, "CharTensor", id="int8->CharTensor"),
    pytest.param(torch.uint8, "ByteTensor", id="uint8->ByteTensor"),
    pytest.param(torch.bool, "BoolTensor", id="bool->BoolTensor"),
]


@pytest.mark.claim("tensor.type-string")
@pytest.mark.parametrize("dtype, name", TYPE_NAMES)
def test_type_without_arguments_returns_the_legacy_type_name(device, dtype, name):
    t = torch.zeros(3, 4, 5, dtype=dtype, device=device)
    expected = f"torch.cuda.{name}" if t.is_cuda else f"torch.{name}"
    assert isinstance(t.type(), str)
    assert t.type() == expected, f"type() gave {t.type()!r}, expected {expected!r}"


@pytest.mark.claim("tensor.size-is-tuple")
def test_size_is_a_tuple_of_ints():
    t = torch.randn(3, 4, 5)
    size = t.size()
    assert isinstance(size, tuple), f"size() is {type(size).__name__}, not a tuple subclass"
    assert type(size) is torch.Size
    assert size == (3, 4, 5) and tuple(size) == (3, 4, 5)
    assert all(type(n) is int for n in size)
    # size(d) is one entry of the tuple, negative d counting from the end
    assert (t.size(0), t.size(-1)) == (3, 5)


@pytest.mark.claim("tensor.shape-equals-size")
@pytest.mark.parametrize("shape", [(3, 4, 5), (0,), (), (1, 0, 2)], ids=str)
def test_shape_attribute_equals_size_call(shape):
    t = torch.zeros(shape)
    assert t.shape == t.size() == shape
    assert type(t.shape) is type(t.size()) is torch.Size


@pytest.mark.claim("tensor.dim-count")
@pytest.mark.parametrize("shape", [(), (7,), (3, 4), (3, 4, 5), (2, 0, 1, 3)], ids=str)
def test_dim_counts_the_axes(shape):
    t = torch.zeros(shape)
    assert t.dim() == len(shape), f"dim() = {t.dim()} for shape {shape}"
    assert t.dim() == t.ndim


@pytest.mark.claim("tensor.item-scalar")
@pytest.mark.claim("tensor.item-single-element", decides="holds")
@pytest.mark.parametrize(
    "value, dtype, kind",
    [
        pytest.param(3.5, torch.float32, float, id="float32->float"),
        pytest.param(-2.25, torch.float64, float, id="float64->float"),
        pytest.param(7, torch.int64, int, id="int64->int"),
        pytest.param(200, torch.uint8, int, id="uint8->int"),
        pytest.param(True, torch.bool, bool, id="bool->bool"),
    ],
)
def test_item_returns_a_plain_python_number(value, dtype, kind):
    for shape in [(), (1,), (1, 1, 1)]:  # any one-element tensor, whatever its rank
        t = torch.full(shape, value, dtype=dtype)
        got = t.item()
        assert type(got) is kind, f"item() on {dtype} gave {type(got).__name__}, expected {kind.__name__}"
        assert got == value


@pytest.mark.claim("tensor.item-scalar")
@pytest.mark.parametrize("numel", [0, 2, 12], ids=lambda n: f"{n}-elements")
def test_item_refuses_tensors_without_exactly_one_element(numel):
    if torch_at_least(ITEM_RAISES_RUNTIME_ERROR):
        with pytest.raises(RuntimeError, match=f"a Tensor with {numel} elements cannot be converted to Scalar"):
            torch.zeros(numel).item()
    else:
        with pytest.raises(ValueError, match="only one element tensors can be converted to Python scalars"):
            torch.zeros(numel).item()


@pytest.mark.claim("tensor.numpy-tolist-methods", decides="holds")
@pytest.mark.parametrize(
    "values, dtype, np_dtype, kind",
    [
        pytest.param([[1.5, 2.0], [3.0, 4.5]], torch.float32, np.float32, float, id="float32"),
        pytest.param([[1, -2], [3, 40]], torch.int64, np.int64, int, id="int64"),
    ],
)
def test_numpy_and_tolist_give_a_numpy_array_and_a_python_list(values, dtype, np_dtype, kind):
    # Notation (rule 1): 003's signature-style "torch.numpy()" / "torch.tolist()" are the Tensor methods
    # (the same listing's "Torch.item()" is read as Tensor.item); there is no torch.numpy function
    t = torch.tensor(values, dtype=dtype)
    array = t.numpy()
    assert isinstance(array, np.ndarray), f"numpy() gave {type(array).__name__}"
    assert array.dtype == np_dtype and array.shape == (2, 2), f"numpy() gave {array.dtype} {array.shape}"
    np.testing.assert_array_equal(array, values)
    listed = t.tolist()
    assert type(listed) is list and all(type(row) is list for row in listed), f"tolist() gave {listed!r}"
    assert listed == values
    assert type(listed[0][0]) is kind, f"tolist() entries are {type(listed[0][0]).__name__}, expected {kind.__name__}"


@pytest.mark.claim("tensor.from-numpy", decides="holds")
@pytest.mark.parametrize("np_dtype", [np.float32, np.float64, np.int64, np.uint8, np.bool_], ids=lambda d: d.__name__)
def test_from_numpy_creates_a_tensor_from_an_ndarray(np_dtype):
    rng = np.random.default_rng(0)
    array = (rng.integers(0, 2 if np_dtype is np.bool_ else 100, size=(2, 3, 4))).astype(np_dtype)
    t = torch.from_numpy(array)
    assert isinstance(t, torch.Tensor), f"from_numpy gave {type(t).__name__}"
    assert t.shape == array.shape, f"shape {tuple(t.shape)}, expected {array.shape}"
    assert t.numpy().dtype == array.dtype, f"dtype {t.dtype} for an array of {array.dtype}"
    np.testing.assert_array_equal(t.numpy(), array)


@pytest.mark.claim("tensor.image-layout-convention", decides="holds")
def test_image_layers_read_channels_from_dim_1():
    conv = nn.Conv2d(3, 8, kernel_size=3)
    assert conv(torch.rand(2, 3, 5, 5)).shape == (2, 8, 3, 3)
    # N×H×W×C is not understood: the channel count is read from dim 1
    with pytest.raises(RuntimeError, match="to have 3 channels"):
        conv(torch.rand(2, 5, 5, 3))
    # channels_last is a memory layout only; the logical shape stays N×C×H×W
    x = torch.rand(2, 3, 5, 5).to(memory_format=torch.channels_last)
    assert x.shape == (2, 3, 5, 5)


@pytest.mark.claim("tensor.image-layout-convention", decides="holds")
@pytest.mark.needs(libs=["torchvision", "PIL"])
def test_note_image_conversions_give_channels_first_floats_in_0_1(tmp_path):
    import PIL.Image
    import torchvision

    pixels = np.random.default_rng(0).integers(0, 256, size=(4, 5, 3), dtype=np.uint8)  # H=4, W=5, C=3
    pixels[0, 0] = (0, 0, 0)
    pixels[0, 1] = (255, 255, 255)  # both ends of the range present
    path = tmp_path / "image.png"
    PIL.Image.fromarray(pixels).save(path)
    # the note's two lines (002:101-102; the second with its '/' typo written as '.')
    by_hand = torch.from_numpy(np.asarray(PIL.Image.open(path))).permute(2, 0, 1).float() / 255
    by_to_tensor = torchvision.transforms.functional.to_tensor(PIL.Image.open(path))
    for name, tensor in [("permute / 255", by_hand), ("to_tensor", by_to_tensor)]:
        assert tensor.shape == (3, 4, 5), f"{name}: shape {tuple(tensor.shape)}, expected C×H×W (3, 4, 5)"
        assert tensor.dtype == torch.float32, f"{name}: dtype {tensor.dtype}"
        low, high = tensor.min().item(), tensor.max().item()
        assert (low, high) == (0.0, 1.0), f"{name}: values span [{low}, {high}], expected [0, 1]"
    torch.testing.assert_close(by_hand, by_to_tensor)
    # batched, they are N×C×H×W, the layout a conv layer reads
    batch = torch.stack([by_hand, by_to_tensor])
    assert nn.Conv2d(3, 2, kernel_size=3)(batch).shape == (2, 2, 2, 3)


@pytest.mark.claim("tensor.image-layout-convention", decides="left-out")
@pytest.mark.needs(libs=["torchvision", "PIL"])
def test_value_range_depends_on_the_converter_float_0_1_or_uint8_0_255():
    from PIL import Image
    from torchvision.transforms import functional as TF

    pixels = np.array([[[0, 128, 255], [10, 20, 30]]], dtype=np.uint8)  # H=1, W=2, C=3
    image = Image.fromarray(pixels)

    as_float = TF.to_tensor(image)
    assert as_float.shape == (3, 1, 2) and as_float.dtype == torch.float32
    assert 0.0 <= as_float.min().item() and as_float.max().item() == 1.0

    as_uint8 = TF.pil_to_tensor(image)
    assert as_uint8.shape == (3, 1, 2) and as_uint8.dtype == torch.uint8
    assert as_uint8.max().item() == 255, "uint8 images keep the 0..255 range"
    assert torch.equal(as_uint8, torch.from_numpy(pixels).permute(2, 0, 1))
    torch.testing.assert_close(as_float, as_uint8.float() / 255)

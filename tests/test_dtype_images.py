"""Tensor <-> PIL.Image / numpy conversions, by hand and with torchvision's helpers.

Notes: 000_03e1e7bc9bbd04f1.txt › 4. 张量 › 数据类型转换 and 002_d3afcdbaa9416717.txt
› 与PIL.Image转换 (the same four lines: fromarray recipe, to_pil_image, the np.asarray
recipe, to_tensor; 002 writes the last one with a `/` instead of a `.`).

Images come from fixtures/images.py: an 80 (wide) x 48 (high) RGB image as a uint8 array,
a PNG file under tmp_path, and a float C x H x W tensor in [0, 1].

Only values in [0, 1] go through to_pil_image: it casts value * 255 to uint8 without
clamping, and a float -> uint8 cast of a value outside the uint8 range is undefined (numpy
warns; x86 wraps, ARM saturates), so no test asserts what it gives there.
"""
import numpy as np
import PIL.Image
import pytest
import torch

from fixtures.images import IMAGE_H, IMAGE_W, make_float_image
from fixtures.needs import loads

# torchvision imported only where it loads with this torch; else the tests of its helpers (marked
# needs torchvision) read not-run with the import's error, and the by-hand recipes still run
if loads("torchvision"):
    import torchvision
    import torchvision.transforms.functional as TF
else:
    torchvision = TF = None

# The note's lines, re-typed as written (002 › 与PIL.Image转换).
TENSOR_TO_PIL = ("image = PIL.Image.fromarray("
                 "torch.clamp(tensor * 255, min=0, max=255).byte().permute(1, 2, 0).cpu().numpy())")
PIL_TO_TENSOR = "tensor = torch.from_numpy(np.asarray(PIL.Image.open(path))).permute(2, 0, 1).float() / 255"
SLASH_TYPO = "tensor = torchvision.transforms/functional.to_tensor(PIL.Image.open(path))"


def _run(line, **names):
    """Execute one of the note's lines with the modules it uses; return its namespace."""
    namespace = {"torch": torch, "np": np, "PIL": PIL, "torchvision": torchvision, **names}
    exec(compile(line, "<note 002 › 与PIL.Image转换>", "exec"), namespace)
    return namespace


# --- dtype.pil-from-tensor -------------------------------------------------------------


@pytest.mark.claim("dtype.pil-from-tensor", half="holding")
def test_fromarray_recipe_gives_an_rgb_image_of_size_w_by_h(float_image):
    image = _run(TENSOR_TO_PIL, tensor=float_image)["image"]
    assert image.mode == "RGB"
    assert image.size == (IMAGE_W, IMAGE_H), f"PIL size {image.size}, expected (W, H) = ({IMAGE_W}, {IMAGE_H})"
    pixels = np.asarray(image)
    # byte() truncates: pixel = floor(v * 255), channel c of the tensor is the last axis of the image
    expected = (float_image * 255).floor().to(torch.uint8).permute(1, 2, 0).numpy()
    assert np.array_equal(pixels, expected)


@pytest.mark.claim("dtype.pil-from-tensor", half="holding")
def test_fromarray_recipe_clamps_out_of_range_values(float_image):
    stretched = float_image * 3 - 1  # values in [-1, 2]
    pixels = np.asarray(_run(TENSOR_TO_PIL, tensor=stretched)["image"])
    expected = (stretched * 255).clamp(0, 255).to(torch.uint8).permute(1, 2, 0).numpy()
    assert np.array_equal(pixels, expected)
    assert pixels[0, 0].tolist() == [0, 0, 0] and pixels[-1, -1].tolist() == [255, 255, 255]


@pytest.mark.claim("dtype.pil-from-tensor", half="failing")
def test_fromarray_recipe_gives_rgb_only_for_three_channels_and_fails_on_one():
    four = _run(TENSOR_TO_PIL, tensor=make_float_image(channels=4))["image"]
    assert four.mode == "RGBA", f"4 channels gave mode {four.mode}"
    # one channel: the recipe hands fromarray an H x W x 1 uint8 array, which is no PIL mode
    with pytest.raises(TypeError, match="Cannot handle this data type"):
        _run(TENSOR_TO_PIL, tensor=make_float_image(channels=1))


# --- dtype.to-pil-image-equivalence ----------------------------------------------------


@pytest.mark.claim("dtype.to-pil-image-equivalence", half="holding")
@pytest.mark.needs(libs=["torchvision"])
@pytest.mark.parametrize("channels, mode", [(3, "RGB"), (4, "RGBA")], ids=["3 channels", "4 channels"])
def test_to_pil_image_matches_the_fromarray_recipe_for_values_in_0_1(channels, mode):
    t = make_float_image(channels=channels)
    by_hand = _run(TENSOR_TO_PIL, tensor=t)["image"]
    helper = TF.to_pil_image(t)
    assert helper.mode == by_hand.mode == mode and helper.size == by_hand.size
    assert np.array_equal(np.asarray(helper), np.asarray(by_hand))


@pytest.mark.claim("dtype.to-pil-image-equivalence", half="failing")
@pytest.mark.needs(libs=["torchvision"])
def test_with_one_channel_to_pil_image_gives_mode_l_where_the_recipe_raises():
    t = make_float_image(channels=1)
    helper = TF.to_pil_image(t)
    assert helper.mode == "L" and helper.size == (IMAGE_W, IMAGE_H)
    assert np.array_equal(np.asarray(helper), (t[0] * 255).floor().to(torch.uint8).numpy())
    with pytest.raises(TypeError, match="Cannot handle this data type"):
        _run(TENSOR_TO_PIL, tensor=t)
    # a 2-D H x W tensor: to_pil_image adds the channel, the recipe's permute(1, 2, 0) cannot
    assert TF.to_pil_image(t[0]).mode == "L"
    with pytest.raises(RuntimeError, match="number of dim"):
        _run(TENSOR_TO_PIL, tensor=t[0])


# --- dtype.pil-to-tensor-manual --------------------------------------------------------


@pytest.mark.claim("dtype.pil-to-tensor-manual", half="holding")
@pytest.mark.needs(libs=["torchvision"])
@pytest.mark.filterwarnings("ignore:The given NumPy array is not writable:UserWarning")
@pytest.mark.parametrize("mode, channels", [("RGB", 3), ("RGBA", 4)], ids=["RGB", "RGBA"])
def test_asarray_recipe_equals_to_tensor_bit_for_bit(tmp_path, rgb_image, mode, channels):
    path = tmp_path / f"{mode}.png"
    rgb_image.convert(mode).save(path)
    array = np.asarray(PIL.Image.open(path))
    by_hand = _run(PIL_TO_TENSOR, path=path)["tensor"]
    helper = TF.to_tensor(PIL.Image.open(path))
    assert by_hand.shape == (channels, IMAGE_H, IMAGE_W) and by_hand.dtype == torch.float32
    assert torch.equal(by_hand, helper), "the recipe and to_tensor disagree"
    assert torch.equal(by_hand, torch.from_numpy(array.copy()).permute(2, 0, 1).float() / 255)
    assert by_hand.min().item() == 0.0 and by_hand.max().item() == 1.0


@pytest.mark.claim("dtype.pil-to-tensor-manual", half="failing")
@pytest.mark.needs(libs=["torchvision"])
@pytest.mark.parametrize("mode", ["L", "P"], ids=["grayscale", "palette"])
def test_asarray_recipe_fails_on_images_without_a_channel_axis(tmp_path, rgb_image, mode):
    path = tmp_path / f"{mode}.png"
    rgb_image.convert(mode).save(path)  # np.asarray of an L or P image is H x W: no channel axis
    assert np.asarray(PIL.Image.open(path)).shape == (IMAGE_H, IMAGE_W)
    with pytest.raises(RuntimeError, match="number of dim"):
        _run(PIL_TO_TENSOR, path=path)
    assert TF.to_tensor(PIL.Image.open(path)).shape == (1, IMAGE_H, IMAGE_W), "to_tensor adds the channel"


# --- dtype.to-tensor-func --------------------------------------------------------------


@pytest.mark.claim("dtype.to-tensor-func", half="holding")
@pytest.mark.needs(libs=["torchvision"])
@pytest.mark.parametrize("mode, channels", [("RGB", 3), ("RGBA", 4), ("L", 1), ("P", 1)],
                         ids=["RGB", "RGBA", "grayscale", "palette"])
def test_to_tensor_gives_c_h_w_float_scaled_into_0_1(tmp_path, rgb_image, mode, channels):
    path = tmp_path / f"{mode}.png"
    rgb_image.convert(mode).save(path)  # 8-bit images of each kind
    array = np.asarray(PIL.Image.open(path)).reshape(IMAGE_H, IMAGE_W, channels)
    t = TF.to_tensor(PIL.Image.open(path))
    assert t.shape == (channels, IMAGE_H, IMAGE_W) and t.dtype == torch.float32, (tuple(t.shape), t.dtype)
    assert 0.0 <= t.min().item() and t.max().item() <= 1.0
    assert torch.equal(t, torch.from_numpy(array.copy()).permute(2, 0, 1).float() / 255), "not the 8-bit values / 255"


@pytest.mark.claim("dtype.to-tensor-func", half="failing")
@pytest.mark.needs(libs=["torchvision"])
def test_to_tensor_scales_only_8_bit_images_not_16_bit_or_float_ones(tmp_path):
    values = np.arange(IMAGE_H * IMAGE_W, dtype=np.uint16).reshape(IMAGE_H, IMAGE_W) * 7 % 30000
    path = tmp_path / "depth16.png"
    PIL.Image.fromarray(values).save(path)  # a 16-bit grayscale PNG (mode I;16)
    image = PIL.Image.open(path)
    assert image.mode == "I;16"
    t = TF.to_tensor(image)
    assert t.shape == (1, IMAGE_H, IMAGE_W)
    assert not t.is_floating_point(), f"a 16-bit image gave {t.dtype}: expected an unscaled integer tensor"
    assert t.max().item() == values.max() > 255, f"max {t.max().item()}, expected the raw {values.max()}"
    as_float = TF.to_tensor(PIL.Image.fromarray(values.astype(np.float32)))  # mode F
    assert as_float.dtype == torch.float32 and as_float.max().item() == values.max(), "a float image was rescaled"


# --- dtype.to-tensor-slash-typo --------------------------------------------------------


@pytest.mark.claim("dtype.to-tensor-slash-typo", decides="wrong")
@pytest.mark.needs(libs=["torchvision"])
def test_slash_typo_is_a_division_that_fails_on_the_name_functional(rgb_png):
    compile(SLASH_TYPO, "<note>", "exec")  # valid syntax: `transforms / functional.to_tensor(...)`
    with pytest.raises(NameError, match="name 'functional' is not defined"):
        _run(SLASH_TYPO, path=rgb_png)


@pytest.mark.claim("dtype.to-tensor-slash-typo", decides="wrong")
@pytest.mark.needs(libs=["torchvision"])
def test_slash_typo_with_functional_in_scope_divides_a_module_by_a_tensor(rgb_png):
    with pytest.raises(TypeError, match="unsupported operand type\\(s\\) for /: 'module' and 'Tensor'"):
        _run(SLASH_TYPO, path=rgb_png, functional=TF)

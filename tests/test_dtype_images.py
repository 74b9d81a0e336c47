"""Tensor <-> PIL.Image / numpy conversions, by hand and with torchvision's helpers.

Notes: 000_03e1e7bc9bbd04f1.txt › 4. 张量 › 数据类型转换 and 002_d3afcdbaa9416717.txt
› 与PIL.Image转换 (the same four lines: fromarray recipe, to_pil_image, the np.asarray
recipe, to_tensor; 002 writes the last one with a `/` instead of a `.`).

Images come from fixtures/images.py: an 80 (wide) x 48 (high) RGB image as a uint8 array,
a PNG file under tmp_path, and a float 3 x H x W tensor in [0, 1].
"""
import numpy as np
import PIL.Image
import pytest
import torch
import torchvision
import torchvision.transforms.functional as TF

from fixtures.images import IMAGE_H, IMAGE_W

# The note's lines, re-typed as written (002 › 与PIL.Image转换).
TENSOR_TO_PIL = "image = PIL.Image.fromarray(torch.clamp(tensor * 255, min=0, max=255).byte().permute(1, 2, 0).cpu().numpy())"
PIL_TO_TENSOR = "tensor = torch.from_numpy(np.asarray(PIL.Image.open(path))).permute(2, 0, 1).float() / 255"
SLASH_TYPO = "tensor = torchvision.transforms/functional.to_tensor(PIL.Image.open(path))"


def _run(line, **names):
    """Execute one of the note's lines with the modules it uses; return its namespace."""
    namespace = {"torch": torch, "np": np, "PIL": PIL, "torchvision": torchvision, **names}
    exec(compile(line, "<note 002 › 与PIL.Image转换>", "exec"), namespace)
    return namespace


# --- dtype.pil-from-tensor -------------------------------------------------------------


@pytest.mark.claim("dtype.pil-from-tensor")
def test_fromarray_recipe_gives_an_rgb_image_of_size_w_by_h(float_image):
    image = _run(TENSOR_TO_PIL, tensor=float_image)["image"]
    assert image.mode == "RGB"
    assert image.size == (IMAGE_W, IMAGE_H), f"PIL size {image.size}, expected (W, H) = ({IMAGE_W}, {IMAGE_H})"
    pixels = np.asarray(image)
    # byte() truncates: pixel = floor(v * 255), channel c of the tensor is the last axis of the image
    expected = (float_image * 255).floor().to(torch.uint8).permute(1, 2, 0).numpy()
    assert np.array_equal(pixels, expected)


@pytest.mark.claim("dtype.pil-from-tensor")
def test_fromarray_recipe_clamps_out_of_range_values(float_image):
    stretched = float_image * 3 - 1  # values in [-1, 2]
    pixels = np.asarray(_run(TENSOR_TO_PIL, tensor=stretched)["image"])
    expected = (stretched * 255).clamp(0, 255).to(torch.uint8).permute(1, 2, 0).numpy()
    assert np.array_equal(pixels, expected)
    assert pixels[0, 0].tolist() == [0, 0, 0] and pixels[-1, -1].tolist() == [255, 255, 255]


# --- dtype.to-pil-image-equivalence ----------------------------------------------------


@pytest.mark.claim("dtype.to-pil-image-equivalence")
def test_to_pil_image_matches_the_fromarray_recipe_for_values_in_0_1(float_image):
    by_hand = _run(TENSOR_TO_PIL, tensor=float_image)["image"]
    helper = TF.to_pil_image(float_image)
    assert helper.mode == by_hand.mode == "RGB" and helper.size == by_hand.size
    assert np.array_equal(np.asarray(helper), np.asarray(by_hand))


@pytest.mark.claim("dtype.to-pil-image-equivalence")
@pytest.mark.filterwarnings("ignore:invalid value encountered in cast:RuntimeWarning")
def test_outside_0_1_only_the_recipe_clamps():
    t = torch.tensor([-0.5, 0.5, 1.5]).reshape(1, 1, 3).expand(3, 1, 3).contiguous()
    by_hand = np.asarray(_run(TENSOR_TO_PIL, tensor=t)["image"])[0, :, 0].tolist()
    helper = np.asarray(TF.to_pil_image(t))[0, :, 0].tolist()
    assert by_hand == [0, 127, 255]
    assert helper[1] == 127 and helper[2] == 126, f"to_pil_image pixels {helper}: values above 1 wrap modulo 256"
    assert helper != by_hand


# --- dtype.pil-to-tensor-manual --------------------------------------------------------


@pytest.mark.claim("dtype.pil-to-tensor-manual")
@pytest.mark.filterwarnings("ignore:The given NumPy array is not writable:UserWarning")
def test_asarray_recipe_equals_to_tensor_bit_for_bit(rgb_png, rgb_array):
    by_hand = _run(PIL_TO_TENSOR, path=rgb_png)["tensor"]
    helper = TF.to_tensor(PIL.Image.open(rgb_png))
    assert by_hand.shape == (3, IMAGE_H, IMAGE_W) and by_hand.dtype == torch.float32
    assert torch.equal(by_hand, helper), "the recipe and to_tensor disagree"
    assert torch.equal(by_hand, torch.from_numpy(rgb_array).permute(2, 0, 1).float() / 255)
    assert by_hand.min().item() == 0.0 and by_hand.max().item() == 1.0


@pytest.mark.claim("dtype.pil-to-tensor-manual")
def test_asarray_recipe_needs_a_channel_axis_that_grayscale_images_lack(tmp_path, rgb_array):
    path = tmp_path / "gray.png"
    PIL.Image.fromarray(rgb_array[:, :, 0]).save(path)  # mode "L": np.asarray gives H x W
    with pytest.raises(RuntimeError, match="number of dim"):
        _run(PIL_TO_TENSOR, path=path)
    assert TF.to_tensor(PIL.Image.open(path)).shape == (1, IMAGE_H, IMAGE_W)


# --- dtype.to-tensor-func --------------------------------------------------------------


@pytest.mark.claim("dtype.to-tensor-func")
def test_to_tensor_gives_c_h_w_float_scaled_into_0_1(rgb_png, rgb_array):
    t = TF.to_tensor(PIL.Image.open(rgb_png))
    assert t.shape == (3, IMAGE_H, IMAGE_W) and t.dtype == torch.float32
    assert t.min().item() == 0.0 and t.max().item() == 1.0
    y, x = 7, 61
    assert t[:, y, x].tolist() == (torch.from_numpy(rgb_array[y, x].copy()).float() / 255).tolist()


# --- dtype.to-tensor-slash-typo --------------------------------------------------------


@pytest.mark.claim("dtype.to-tensor-slash-typo")
def test_slash_typo_is_a_division_that_fails_on_the_name_functional(rgb_png):
    compile(SLASH_TYPO, "<note>", "exec")  # valid syntax: `transforms / functional.to_tensor(...)`
    with pytest.raises(NameError, match="name 'functional' is not defined"):
        _run(SLASH_TYPO, path=rgb_png)


@pytest.mark.claim("dtype.to-tensor-slash-typo")
def test_slash_typo_with_functional_in_scope_divides_a_module_by_a_tensor(rgb_png):
    with pytest.raises(TypeError, match="unsupported operand type\\(s\\) for /: 'module' and 'Tensor'"):
        _run(SLASH_TYPO, path=rgb_png, functional=TF)

"""torchvision transforms and utils on generated, non-square images.

Notes: 001_eaed12e493b64ab2.txt › 二、Torchvision › torchvision.transforms (Resize(96),
ToTensor, Normalize(0.5, 0.5)) and › 其他函数 (make_grid + ToPILImage);
002_d3afcdbaa9416717.txt › 常用训练和验证数据预处理 (ToTensor layout, the train and val
pipelines); 003_df07c2a5da61a567.txt › 1 import (`utils.make_grid` in a from-import),
› 5 读取图像 (Compose, Normalize per channel, make_grid; image.show(), ToTensor, ToPILImage,
plt.figure and plt.subplot) and › 6 常见错误 (ToPILImage without a clamp).

Images come from fixtures/images.py: an 80 (wide) x 48 (high) RGB image, as a PIL image,
a uint8 H x W x 3 array and a float 3 x H x W tensor.
"""
import os
import pathlib
import platform
import time
from dataclasses import dataclass

import numpy as np
import pytest
import torch
from PIL import Image
from torch.testing import assert_close

from fixtures.images import IMAGE_H, IMAGE_W, make_float_image
from fixtures.needs import loads

# torchvision imported only where it loads with this torch; else every test here reads not-run
# with the import's error (fixtures/needs.py)
if loads("torchvision"):
    import torchvision
    import torchvision.transforms as T
    from torchvision.utils import make_grid

# 224 x 224 resizes and rotations are 10x slower on two contended threads than on one
pytestmark = [pytest.mark.usefixtures("single_thread"), pytest.mark.needs(libs=["torchvision"])]

IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)

# The note's training pipeline (002 › 常用训练和验证数据预处理), re-typed as written: it mixes
# `torchvision.transforms.X` with a bare `transforms.X`, so it runs where both names exist.
NOTE_TRAIN_PIPELINE = """
train_transform = torchvision.transforms.Compose([
    torchvision.transforms.RandomResizedCrop(size=224, scale=(0.08, 1.0)),
    torchvision.transforms.RandomHorizontalFlip(),
    torchvision.transforms.ToTensor(),
    torchvision.transforms.Normalize(mean=(0.485,0.456,0.406), std=(0.229, 0.224, 0.225)),
    transforms.ColorJitter(contrast=0.5),
    torchvision.transforms.RandomRotation((-30,30))
])
"""


def _pixels(image: Image.Image) -> np.ndarray:
    return np.asarray(image)


# --- tv.resize-int ---------------------------------------------------------------------


@pytest.mark.claim("tv.resize-int", decides="wrong")
def test_resize_int_scales_the_shorter_side_and_keeps_the_aspect_ratio(rgb_image):
    resized = T.Resize(96)(rgb_image)
    # 80 x 48 (W x H): the shorter side (48) becomes 96, the other one grows by the same 2x
    assert resized.size == (160, 96), f"Resize(96) on {rgb_image.size} gave {resized.size}, expected (160, 96)"


@pytest.mark.claim("tv.resize-int", decides="wrong")
def test_resize_int_on_a_tensor_keeps_the_aspect_ratio_too():
    resized = T.Resize(96, antialias=True)(make_float_image())
    assert resized.shape == (3, 96, 160), resized.shape


@pytest.mark.claim("tv.resize-int")
def test_only_a_pair_or_a_square_input_gives_a_square_result(rgb_image):
    assert T.Resize((96, 96))(rgb_image).size == (96, 96)
    square = rgb_image.crop((0, 0, 48, 48))
    assert T.Resize(96)(square).size == (96, 96)


# --- tv.normalize-half -----------------------------------------------------------------


@pytest.mark.claim("tv.normalize-half")
def test_totensor_then_normalize_half_maps_pixels_onto_minus_one_to_one(rgb_image, rgb_array):
    out = T.Compose([T.ToTensor(), T.Normalize((0.5, 0.5, 0.5), (0.5, 0.5, 0.5))])(rgb_image)
    expected = torch.from_numpy(rgb_array).permute(2, 0, 1).float() / 255 * 2 - 1
    assert_close(out, expected)
    # the fixture holds pixels 0 and 255 in every channel: both ends are reached exactly
    assert out.min().item() == -1.0 and out.max().item() == 1.0, (out.min().item(), out.max().item())


@pytest.mark.claim("tv.normalize-half")
def test_note_pipeline_with_resize_stays_within_minus_one_to_one(rgb_image):
    out = T.Compose([T.Resize(96), T.ToTensor(), T.Normalize((0.5, 0.5, 0.5), (0.5, 0.5, 0.5))])(rgb_image)
    assert out.shape == (3, 96, 160)
    assert -1.0 <= out.min().item() and out.max().item() <= 1.0


# --- tv.normalize-per-channel ----------------------------------------------------------

MEAN, STD = (0.1, 0.5, 0.9), (0.2, 0.4, 0.8)


@pytest.mark.claim("tv.normalize-per-channel")
@pytest.mark.parametrize(
    "mean, std",
    [pytest.param(MEAN, STD, id="tuples"), pytest.param(torch.tensor(MEAN), torch.tensor(STD), id="tensors")],
)
def test_normalize_uses_each_channels_own_mean_and_std(float_image, mean, std):
    out = T.Normalize(mean, std)(float_image)
    for c in range(3):
        assert_close(out[c], (float_image[c] - MEAN[c]) / STD[c], msg=f"channel {c}")
    # a single mean and std for all channels would give something else: channel 2 differs by
    # (x - 0.1) / 0.2 - (x - 0.9) / 0.8 = 3.75 x + 0.625 >= 0.625 for x in [0, 1]
    one_mean = (float_image[2] - MEAN[0]) / STD[0]
    assert (one_mean - out[2]).min().item() >= 0.6


# --- tv.compose ------------------------------------------------------------------------


@pytest.mark.claim("tv.compose")
def test_compose_calls_its_transforms_in_list_order(rgb_image):
    calls = []

    def step(name):
        def t(x):
            calls.append(name)
            return x

        return t

    T.Compose([step("first"), step("second"), step("third")])(rgb_image)
    assert calls == ["first", "second", "third"]


@pytest.mark.claim("tv.compose")
def test_compose_equals_applying_the_steps_one_after_the_other(rgb_image):
    crop, resize = T.CenterCrop(40), T.Resize(20)
    assert T.Compose([crop, resize])(rgb_image).size == resize(crop(rgb_image)).size == (20, 20)
    # the other order is another transform: resize 80x48 -> 33x20, then a 40x40 crop pads
    assert T.Compose([resize, crop])(rgb_image).size == (40, 40)
    assert _pixels(T.Compose([resize, crop])(rgb_image))[0, 0].tolist() == [0, 0, 0], "expected padding"


# --- tv.make-grid-shape ----------------------------------------------------------------


@pytest.mark.claim("tv.make-grid-shape")
@pytest.mark.claim("tv.make-grid-nrow-padding", decides="holds")
def test_make_grid_lays_out_nrow_images_per_row_with_padding():
    n, h, w, pad, nrow = 32, 10, 12, 2, 8
    images = torch.rand(n, 3, h, w) * 0.9 + 0.1  # never 0, so padding (pad_value 0) stands out
    grid = make_grid(images, nrow=nrow, padding=pad)
    rows = n // nrow
    assert grid.shape == (3, rows * (h + pad) + pad, nrow * (w + pad) + pad) == (3, 50, 114), grid.shape
    covered = torch.zeros(grid.shape[1:], dtype=torch.bool)
    for k in range(n):
        r, c = divmod(k, nrow)
        y, x = pad + r * (h + pad), pad + c * (w + pad)
        assert torch.equal(grid[:, y:y + h, x:x + w], images[k]), f"image {k} is not at row {r}, column {c}"
        covered[y:y + h, x:x + w] = True
    assert (grid[:, ~covered] == 0).all(), "everything between the images should be padding"


@pytest.mark.claim("tv.make-grid-shape")
@pytest.mark.claim("tv.make-grid-nrow-padding", decides="holds")
@pytest.mark.parametrize(
    "n, nrow, padding, shape",
    [
        pytest.param(5, 8, 2, (3, 14, 72), id="fewer-than-nrow"),
        pytest.param(9, 4, 1, (3, 34, 53), id="partial-last-row"),
        pytest.param(1, 8, 2, (3, 10, 12), id="single-image-unpadded"),
    ],
)
def test_make_grid_shape_for_other_counts(n, nrow, padding, shape):
    assert make_grid(torch.rand(n, 3, 10, 12), nrow=nrow, padding=padding).shape == shape


# --- tv.make-grid-3ch ------------------------------------------------------------------


def grid_of(channels):
    images = torch.rand(4, channels, 10, 12)
    return images, make_grid(images, nrow=2, padding=2)


@pytest.mark.claim("tv.make-grid-3ch", decides="holds")
@pytest.mark.parametrize("channels", [1, 3], ids=["1ch->3", "3ch->3"])
def test_make_grid_of_one_or_three_channel_images_is_a_3_channel_grid(channels):
    images, grid = grid_of(channels)
    assert grid.shape == (3, 26, 30), f"{channels}-channel input gave {tuple(grid.shape)}, expected (3, 26, 30)"
    if channels == 1:
        # single-channel images are repeated into three identical channels
        assert torch.equal(grid[0], grid[1]) and torch.equal(grid[1], grid[2])
        assert torch.equal(grid[0, 2:12, 2:14], images[0, 0])


@pytest.mark.claim("tv.make-grid-3ch", decides="left-out")
@pytest.mark.parametrize("channels", [2, 4], ids=["2ch->2", "4ch->4"])
def test_make_grid_keeps_any_other_channel_count(channels):
    _, grid = grid_of(channels)
    assert grid.shape == (channels, 26, 30), f"{channels}-channel input gave {tuple(grid.shape)}"


# --- tv.to-pil-image-grid --------------------------------------------------------------


@pytest.mark.claim("tv.to-pil-image-grid")
def test_to_pil_image_turns_a_grid_into_an_rgb_image_of_the_same_pixels():
    grid = make_grid(torch.rand(32, 3, 10, 12), nrow=8, padding=2)
    image = T.ToPILImage()(grid)
    assert isinstance(image, Image.Image) and image.mode == "RGB"
    assert image.size == (grid.shape[2], grid.shape[1]) == (114, 50)
    expected = (grid * 255).to(torch.uint8).permute(1, 2, 0).numpy()
    assert np.array_equal(_pixels(image), expected)


@pytest.mark.claim("tv.to-pil-image-grid")
def test_a_four_channel_grid_becomes_an_rgba_image():
    image = T.ToPILImage()(make_grid(torch.rand(4, 4, 10, 12), nrow=2))
    assert image.mode == "RGBA"


# --- tv.to-pil-no-clamp ----------------------------------------------------------------


# ToPILImage turns a float tensor into uint8 as (v * 255).astype(uint8). For v * 255 outside
# [0, 255] that cast is undefined (in C, and so in numpy, which flags some such casts as invalid):
# the pixel depends on the CPU and the numpy build (x86-64 wraps modulo 256, -0.5 -> 129;
# a saturating cast would give 0). So only the defined results are asserted; the out-of-range
# pixels seen here are reported as figures, named with the platform they were measured on.
PIL_VALUES = [-0.5, 0.0, 0.5, 1.0, 1.5, 2.0]


@pytest.mark.claim("tv.to-pil-no-clamp")
@pytest.mark.filterwarnings("ignore:invalid value encountered in cast:RuntimeWarning")
def test_to_pil_image_applies_no_clamp_of_its_own(claim_figure, claim_inconclusive):
    t = torch.tensor(PIL_VALUES).reshape(1, 1, -1).expand(3, 1, -1).contiguous()
    unclamped = _pixels(T.ToPILImage()(t))[0, :, 0].tolist()
    clamped = _pixels(T.ToPILImage()(t.clamp(min=0, max=1)))[0, :, 0].tolist()
    # defined: in range v -> trunc(v * 255); after the note's clamp, below 0 -> 0, above 1 -> 255
    assert clamped == [0, 0, 127, 255, 255, 255], f"pixels of the clamped tensor {clamped}"
    assert unclamped[1:4] == [0, 127, 255], f"pixels for 0, 0.5, 1: {unclamped[1:4]}"
    # no clamp inside ToPILImage: every pixel is the bare uint8 cast of v * 255 on this platform
    bare = (np.float32(PIL_VALUES) * 255).astype(np.uint8).tolist()
    assert unclamped == bare, f"ToPILImage gave {unclamped}, the bare uint8 cast of v * 255 gives {bare}"
    for v, pixel in zip(PIL_VALUES, unclamped):
        if not 0 <= v <= 1:
            claim_figure(f"pixel for {v} without clamp on {platform.machine()}", pixel)
    if bare == clamped:
        # a saturating cast: no clamp inside ToPILImage, yet no stray pixels either
        claim_inconclusive(f"on {platform.machine()} the uint8 cast saturates, so an unclamped tensor gives "
                           f"the clamped pixels {clamped}: the claim's stray pixels cannot be seen here")


# --- tv.to-tensor-layout ---------------------------------------------------------------


@pytest.mark.claim("tv.to-tensor-layout", decides="wrong")
@pytest.mark.parametrize("source", ["ndarray", "pil"])
def test_to_tensor_turns_h_w_c_uint8_into_c_h_w_float_in_0_1(source, rgb_array, rgb_image):
    assert rgb_array.shape == (IMAGE_H, IMAGE_W, 3)  # numpy/PIL layout: H x W x C
    t = T.ToTensor()(rgb_array if source == "ndarray" else rgb_image)
    assert t.shape == (3, IMAGE_H, IMAGE_W), f"got {tuple(t.shape)}, expected C x H x W = (3, 48, 80)"
    assert t.dtype == torch.float32
    y, x = 5, 70  # a pixel off the diagonal: a transposed layout would not find it here
    assert_close(t[:, y, x], torch.from_numpy(rgb_array[y, x].copy()).float() / 255)
    assert t.min().item() == 0.0 and t.max().item() == 1.0


# --- tv.train-transform-pipeline -------------------------------------------------------


def _note_train_transform():
    namespace = {"torchvision": torchvision, "transforms": T}
    exec(compile(NOTE_TRAIN_PIPELINE, "<note 002 › 常用训练和验证数据预处理>", "exec"), namespace)
    return namespace["train_transform"]


@pytest.mark.claim("tv.train-transform-pipeline", decides="wrong")
def test_train_pipeline_gives_3x224x224_but_colorjitter_clamps_away_the_normalisation(rgb_image):
    train = _note_train_transform()
    before_jitter = T.Compose(train.transforms[:4])
    torch.manual_seed(1)
    normalized = before_jitter(rgb_image)
    torch.manual_seed(1)
    out = train(rgb_image)
    assert out.shape == (3, 224, 224)
    # after Normalize the values span well beyond [0, 1] ...
    assert normalized.min().item() < -1.5 and normalized.max().item() > 2.0, (normalized.min(), normalized.max())
    # ... after ColorJitter (and the rotation) nothing is left outside [0, 1]
    assert out.min().item() >= 0.0 and out.max().item() <= 1.0, (out.min().item(), out.max().item())


@pytest.mark.claim("tv.train-transform-pipeline", decides="wrong")
def test_contrast_adjustment_of_a_float_tensor_clamps_to_0_1(float_image):
    normalized = T.Normalize(IMAGENET_MEAN, IMAGENET_STD)(float_image)
    assert normalized.min().item() < 0 and normalized.max().item() > 1
    # contrast factor 1 changes nothing but the range: it is exactly a clamp to [0, 1]
    unchanged_contrast = torchvision.transforms.functional.adjust_contrast(normalized, 1.0)
    assert torch.equal(unchanged_contrast, normalized.clamp(0, 1))
    jittered = T.ColorJitter(contrast=0.5)(normalized)
    assert jittered.min().item() >= 0.0 and jittered.max().item() <= 1.0


@pytest.mark.claim("tv.val-transform", "tv.train-transform-pipeline")
@pytest.mark.parametrize("size", [pytest.param(224, id="int"), pytest.param((200, 300), id="pair-h-w")])
def test_center_and_random_resized_crops_output_the_requested_size(rgb_image, size):
    h, w = (size, size) if isinstance(size, int) else size
    big = T.Resize(320)(rgb_image)
    assert T.CenterCrop(size)(big).size == (w, h)
    assert T.RandomResizedCrop(size)(rgb_image).size == (w, h)


# --- tv.val-transform ------------------------------------------------------------------


@pytest.mark.claim("tv.val-transform")
def test_val_pipeline_gives_a_normalised_3x224x224_tensor(rgb_image):
    val = T.Compose([
        T.Resize(256),
        T.CenterCrop(224),
        T.ToTensor(),
        T.Normalize(mean=IMAGENET_MEAN, std=IMAGENET_STD),
    ])
    out = val(rgb_image)
    assert out.shape == (3, 224, 224)
    resized = T.Resize(256)(rgb_image)
    assert resized.size == (426, 256), "Resize(256) keeps the aspect ratio; the crop makes it square"
    unnormalized = out * torch.tensor(IMAGENET_STD).view(3, 1, 1) + torch.tensor(IMAGENET_MEAN).view(3, 1, 1)
    assert_close(unnormalized, T.ToTensor()(T.CenterCrop(224)(resized)))


# --- tv.import-utils-make-grid ---------------------------------------------------------


@pytest.mark.claim("tv.import-utils-make-grid", decides="wrong")
def test_dotted_name_in_a_from_import_list_does_not_parse():
    line = "from torchvision import models, transforms, utils.make_grid\n"
    with pytest.raises(SyntaxError) as info:
        compile(line, "<note 003 › 1 import>", "exec")
    assert info.value.lineno == 1 and line[info.value.offset - 1] == ".", (info.value.msg, info.value.offset)


@pytest.mark.claim("tv.import-utils-make-grid")
def test_the_valid_spellings_import_make_grid():
    namespace = {}
    exec("from torchvision import models, transforms, utils\nfrom torchvision.utils import make_grid\n", namespace)
    assert namespace["make_grid"] is namespace["utils"].make_grid is make_grid


# --- tv.resize-shape, tv.make-grid-list ----------------------------------------------------


@pytest.mark.claim("tv.resize-shape", decides="holds")
@pytest.mark.parametrize("h, w", [(36, 100), (100, 36)], ids=["wider", "taller"])
def test_resize_with_a_shape_gives_exactly_that_height_and_width(rgb_image, h, w):
    assert rgb_image.size == (IMAGE_W, IMAGE_H) and (h, w) != (IMAGE_H, IMAGE_W)
    resized = T.Resize((h, w))(rgb_image)
    assert resized.size == (w, h), f"PIL size (W, H) {resized.size}, expected {(w, h)}"
    tensor = T.Resize((h, w))(make_float_image())
    assert tensor.shape == (3, h, w), f"tensor shape {tuple(tensor.shape)}, expected {(3, h, w)}"


@pytest.mark.claim("tv.make-grid-list", decides="holds")
def test_make_grid_joins_a_list_of_image_tensors_like_the_stacked_batch():
    gen = torch.Generator().manual_seed(0)
    images = [torch.rand(3, 10, 12, generator=gen) * 0.9 + 0.1 for _ in range(5)]
    grid = make_grid(images, nrow=2, padding=1)
    assert grid.shape == (3, 3 * (10 + 1) + 1, 2 * (12 + 1) + 1), f"grid shape {tuple(grid.shape)}"
    batch_grid = make_grid(torch.stack(images), nrow=2, padding=1)
    assert torch.equal(grid, batch_grid), "the list's grid differs from the batch's"
    for k, image in enumerate(images):
        r, c = divmod(k, 2)
        y, x = 1 + r * 11, 1 + c * 13
        assert torch.equal(grid[:, y:y + 10, x:x + 12], image), f"image {k} is not at row {r}, column {c}"


# --- tv.pil-show-nonblocking, tv.to-tensor-image, tv.to-pil-image-show (added claims) ------

VIEWER_LIMIT_SECONDS = 20  # the stand-in viewer's own cap: it never waits longer for the test's release


@dataclass
class Viewer:
    """The stand-in viewer's two files: `release` (the test writes it: "close the window") and
    `shown` (the viewer writes it once released: a copy of the file it was given)."""
    release: pathlib.Path
    shown: pathlib.Path


@pytest.fixture
def stand_in_viewer(tmp_path, monkeypatch):
    """PIL's own xdg-open viewer (ImageShow.XDGViewer), first in PIL's list of viewers, launching a
    stand-in `xdg-open` put on PATH (the test machine has no desktop to open a window on): it stays
    "open" until the test releases it (or VIEWER_LIMIT_SECONDS pass), as a viewer window stays until
    it is closed, then copies the file it was given. Every viewer process PIL starts is waited for
    at teardown: none outlives the test."""
    import subprocess

    from PIL import ImageShow

    if not hasattr(ImageShow, "XDGViewer"):
        pytest.skip("this Pillow has no ImageShow.XDGViewer")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    viewer = Viewer(tmp_path / "release", tmp_path / "shown.png")
    polls = VIEWER_LIMIT_SECONDS * 20
    (bin_dir / "xdg-open").write_text(
        f'#!/bin/sh\nn=0\nwhile [ ! -e "{viewer.release}" ] && [ $n -lt {polls} ]; do sleep 0.05; n=$((n+1)); done\n'
        f'cp "$1" "{viewer.shown}"\n')
    (bin_dir / "xdg-open").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(ImageShow, "_viewers", list(ImageShow._viewers))  # restored after the test
    ImageShow.register(ImageShow.XDGViewer(), 0)
    started = []

    def popen(*args, **kwargs):
        started.append(subprocess_popen(*args, **kwargs))
        return started[-1]

    subprocess_popen = subprocess.Popen
    monkeypatch.setattr(subprocess, "Popen", popen)
    yield viewer
    viewer.release.touch()
    for proc in started:
        proc.wait(timeout=VIEWER_LIMIT_SECONDS + 5)


def _show(image, viewer: Viewer):
    """image.show(), then release the viewer: True when show() had returned while the viewer was
    still open, and the pixels the viewer was given."""
    image.show()
    returned_while_open = not viewer.shown.exists()
    viewer.release.touch()
    deadline = time.monotonic() + VIEWER_LIMIT_SECONDS + 5
    while not viewer.shown.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert viewer.shown.exists(), "the viewer never received the image"
    for _ in range(100):  # cp may still be writing
        try:
            with Image.open(viewer.shown) as received:
                return returned_while_open, _pixels(received.convert("RGB"))
        except (OSError, SyntaxError):
            time.sleep(0.02)
    pytest.fail(f"the viewer's copy {viewer.shown} never became a readable image")


@pytest.mark.claim("tv.pil-show-nonblocking", decides="holds")
def test_image_show_returns_while_the_viewer_is_still_showing_the_image(rgb_image, rgb_array, tmp_path,
                                                                        stand_in_viewer):
    path = tmp_path / "picture.png"
    rgb_image.save(path)
    image = Image.open(path)  # the note's Image.open(path)
    returned_while_open, received = _show(image, stand_in_viewer)
    assert returned_while_open, "show() returned only after the viewer had closed: it waited for the viewer"
    assert np.array_equal(received, rgb_array), "the viewer was given other pixels"


@pytest.mark.claim("tv.to-tensor-image", decides="holds")
def test_to_tensor_turns_an_opened_image_into_a_tensor(rgb_image, rgb_array, tmp_path):
    path = tmp_path / "picture.png"
    rgb_image.save(path)
    t = T.ToTensor()(Image.open(path))
    assert isinstance(t, torch.Tensor), type(t)
    assert t.shape == (3, IMAGE_H, IMAGE_W) and t.dtype == torch.float32, (tuple(t.shape), t.dtype)
    assert_close(t, torch.from_numpy(rgb_array).permute(2, 0, 1).float() / 255)


@pytest.mark.claim("tv.to-pil-image-show", decides="holds")
def test_to_pil_image_of_an_image_tensor_is_an_image_that_show_displays(rgb_image, rgb_array, stand_in_viewer):
    image_tensor = T.ToTensor()(rgb_image)
    image = T.ToPILImage()(image_tensor)  # the note's line
    assert isinstance(image, Image.Image) and image.mode == "RGB" and image.size == rgb_image.size
    assert np.array_equal(_pixels(image), rgb_array), "ToPILImage(ToTensor(image)) changed the pixels"
    _, received = _show(image, stand_in_viewer)
    assert np.array_equal(received, rgb_array), "the viewer was given other pixels"


# --- tv.plt-figure-size, tv.plt-subplot-abc (added claims) --------------------------------


@pytest.fixture
def plt(monkeypatch):
    """matplotlib.pyplot on the Agg backend (no display); every figure is closed afterwards."""
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as pyplot

    yield pyplot
    pyplot.close("all")


@pytest.mark.claim("tv.plt-figure-size", decides="wrong")
@pytest.mark.needs(libs=["matplotlib"])
def test_plt_figure_of_a_size_tuple_raises_and_figsize_sizes_the_whole_figure(plt):
    h, w = 3, 5
    with pytest.raises(TypeError, match="int\\(\\) argument must be"):
        plt.figure((h, w))  # the note's call: the tuple goes to num, the figure's identifier
    fig = plt.figure(figsize=(w, h))  # the keyword: (width, height) in inches
    assert fig.get_size_inches().tolist() == [w, h], fig.get_size_inches()
    # the size is the whole figure's: two subplots share it, neither is (w, h)
    left, right = fig.add_subplot(1, 2, 1), fig.add_subplot(1, 2, 2)
    fig.canvas.draw()
    for ax in (left, right):
        box = ax.get_window_extent()
        width, height = box.width / fig.dpi, box.height / fig.dpi
        assert width < w / 2 and height < h, f"a subplot is {width:.2f} x {height:.2f} in, the figure {w} x {h}"


@pytest.mark.claim("tv.plt-subplot-abc", decides="holds")
@pytest.mark.needs(libs=["matplotlib"])
@pytest.mark.parametrize("abc, rows, cols, position", [(235, 2, 3, 5), (111, 1, 1, 1), (339, 3, 3, 9)],
                         ids=["235", "111", "339"])
def test_plt_subplot_abc_draws_at_position_c_of_a_rows_by_b_columns(plt, abc, rows, cols, position):
    plt.figure()
    ax = plt.subplot(abc)
    nrows, ncols, first, last = ax.get_subplotspec().get_geometry()
    assert (nrows, ncols) == (rows, cols), f"subplot({abc}) is a {nrows} x {ncols} grid"
    assert first == last == position - 1, f"subplot({abc}) is at cell {first} (0-based), expected {position - 1}"
    (line,) = plt.plot(np.arange(4.0))  # plt.plot draws into the subplot just made
    assert line.axes is ax


@pytest.mark.claim("tv.plt-subplot-abc", decides="holds")
@pytest.mark.needs(libs=["matplotlib"])
def test_plt_subplots_side_by_side_show_images_of_different_sizes(plt):
    plt.figure()
    rng = np.random.default_rng(0)
    small, large = rng.random((8, 12, 3)), rng.random((30, 20, 3))
    shown = []
    for c, image in enumerate((small, large), start=1):
        plt.subplot(120 + c)
        shown.append(plt.imshow(image))
    assert [s.get_array().shape for s in shown] == [(8, 12, 3), (30, 20, 3)]
    assert shown[0].axes is not shown[1].axes


# --- tv.plt-subplots-figsize, tv.plt-plot-tensor, tv.plt-imshow-tensor (added claims) -------------


@pytest.mark.claim("tv.plt-subplots-figsize", decides="wrong")
@pytest.mark.needs(libs=["matplotlib"])
def test_plt_subplots_gives_an_a_by_b_grid_and_figsize_is_width_first(plt):
    a, b, h, w = 2, 3, 4, 7
    fig, axarr = plt.subplots(a, b, figsize=(h, w))  # the note's call
    assert axarr.shape == (a, b), f"axarr is {axarr.shape}, expected ({a}, {b})"
    width, height = fig.get_figwidth(), fig.get_figheight()
    assert (width, height) == (h, w), f"figsize=(h, w) made a figure {width} wide and {height} high, " \
                                      f"expected the first number, h = {h}, to be the width"


@pytest.mark.claim("tv.plt-plot-tensor", decides="holds")
@pytest.mark.needs(libs=["matplotlib"])
def test_plt_plot_draws_a_tensors_values_with_its_label_and_colour(plt):
    _, axarr = plt.subplots(2, 2)
    values = torch.linspace(0, 1, 5)
    (line,) = axarr[1, 0].plot(values, label="LABEL", color="red")  # the note's call
    assert line.get_ydata().tolist() == values.tolist(), f"y data {line.get_ydata()}, expected {values}"
    assert (line.get_label(), line.get_color()) == ("LABEL", "red")


@pytest.mark.claim("tv.plt-plot-tensor", decides="left-out")
@pytest.mark.needs(libs=["matplotlib"])
def test_plt_plot_of_a_tensor_that_requires_grad_raises(plt):
    _, axarr = plt.subplots(2, 2)
    output = torch.linspace(0, 1, 5, requires_grad=True) * 2  # a network's output requires grad
    with pytest.raises(RuntimeError, match="requires grad"):
        axarr[0, 1].plot(output, label="LABEL", color="red")
    (line,) = axarr[0, 1].plot(output.detach(), label="LABEL")
    assert line.get_ydata().tolist() == output.detach().tolist()


@pytest.mark.claim("tv.plt-imshow-tensor", decides="wrong")
@pytest.mark.needs(libs=["matplotlib"])
def test_plt_imshow_refuses_the_chw_tensor_of_to_tensor_and_shows_it_permuted(plt, rgb_image):
    _, axarr = plt.subplots(2, 2)
    image_tensor = T.ToTensor()(rgb_image)  # the section's (C, H, W) image tensor
    with pytest.raises(TypeError, match="Invalid shape"):
        axarr[0, 0].imshow(image_tensor)  # the note's call
    shown = axarr[0, 1].imshow(image_tensor.permute(1, 2, 0))
    assert shown.get_array().shape == (rgb_image.height, rgb_image.width, 3), shown.get_array().shape

"""Wrong-world checks for the torchvision claims: the spec must go red when torchvision behaves the
way a wrong reading of the notes would have it. Each run collects only the test file of its claims.

    a Resize that squares the image, a Normalize that uses the first channel's mean and std for
      every channel, a make_grid that always returns three channels (independent patches, one run)
                                      -> tv.resize-int, tv.normalize-per-channel, tv.make-grid-3ch red
    a ToPILImage that clamps float tensors to [0, 1] itself -> tv.to-pil-no-clamp red
    a roi_pool that reads boxes as (y1, x1, y2, x2)       -> tv.roi-pool-xy red
    an MNIST whose download=True fetches nothing (needs the network, like the spec test it
      checks)                                             -> tv.datasets-download red
"""
import pytest

from spec_runner import assert_goes_red, claim_args

TRANSFORMS_WORLD = """
import torchvision.transforms.functional as F
import torchvision.utils as U

_resize, _normalize, _make_grid = F.resize, F.normalize, U.make_grid

def resize(img, size, *args, **kwargs):
    if isinstance(size, int):
        size = [size, size]
    elif len(size) == 1:
        size = [size[0], size[0]]
    return _resize(img, size, *args, **kwargs)

def normalize(tensor, mean, std, inplace=False):
    return _normalize(tensor, [float(mean[0])] * len(mean), [float(std[0])] * len(std), inplace)

def make_grid(tensor, *args, **kwargs):
    grid = _make_grid(tensor, *args, **kwargs)
    return grid[:3] if grid.shape[0] > 3 else grid[:1].expand(3, -1, -1)

F.resize, F.normalize, U.make_grid = resize, normalize, make_grid
"""


def test_squaring_resize_per_image_normalize_and_3_channel_make_grid_turn_tv_claims_red(run_spec):
    claims = ["tv.resize-int", "tv.normalize-per-channel", "tv.make-grid-3ch"]
    run = run_spec("tests/test_tv_transforms.py", "-m", "cpu", *claim_args(*claims),
                   patch=TRANSFORMS_WORLD)
    assert_goes_red(run, "tv.resize-int", "expected (160, 96)")
    assert_goes_red(run, "tv.normalize-per-channel", "channel 1")
    assert_goes_red(run, "tv.make-grid-3ch", "4-channel input gave (3, 26, 30)")


# a ToPILImage that keeps float pixels inside [0, 1] by itself
TO_PIL_CLAMPS = """
import torch
import torchvision.transforms.functional as F

_to_pil_image = F.to_pil_image

def to_pil_image(pic, mode=None):
    if isinstance(pic, torch.Tensor) and pic.is_floating_point():
        pic = pic.clamp(0, 1)
    return _to_pil_image(pic, mode)

F.to_pil_image = to_pil_image
"""


def test_to_pil_image_that_clamps_turns_tv_to_pil_no_clamp_red(run_spec):
    run = run_spec("tests/test_tv_transforms.py", "-m", "cpu", "--claim", "tv.to-pil-no-clamp", patch=TO_PIL_CLAMPS)
    assert_goes_red(run, "tv.to-pil-no-clamp", "the bare uint8 cast of v * 255 gives")


ROI_POOL_WORLD = """
import torch
import torchvision.ops

_roi_pool = torchvision.ops.roi_pool

def roi_pool(input, boxes, output_size, spatial_scale=1.0):
    if isinstance(boxes, torch.Tensor):
        boxes = boxes[:, [0, 2, 1, 4, 3]]
    else:
        boxes = [b[:, [1, 0, 3, 2]] if b.dim() == 2 else b for b in boxes]
    return _roi_pool(input, boxes, output_size, spatial_scale)

torchvision.ops.roi_pool = roi_pool
"""


def test_roi_pool_with_x_and_y_swapped_turns_tv_roi_pool_xy_red(run_spec):
    run = run_spec("tests/test_tv_ops_roi_pool.py", "-m", "cpu", "--claim", "tv.roi-pool-xy", patch=ROI_POOL_WORLD)
    assert_goes_red(run, "tv.roi-pool-xy", "14.0 would mean x indexes rows")


# MNIST(download=True) that fetches nothing
MNIST_NEVER_DOWNLOADS = """
from torchvision import datasets

datasets.MNIST.download = lambda self: None
"""


@pytest.mark.needs(network=True)
def test_mnist_that_never_downloads_turns_tv_datasets_download_red(run_spec):
    run = run_spec("tests/test_tv_datasets.py", "-m", "cpu", "--claim", "tv.datasets-download",
                   patch=MNIST_NEVER_DOWNLOADS)
    assert_goes_red(run, "tv.datasets-download", "Dataset not found")

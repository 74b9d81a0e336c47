"""Wrong-world checks for data and torchvision claims: the spec must go red when the library
behaves the way a wrong reading of the notes would have it.

Worlds (each patch is independent of the others run with it):
- a Resize that squares the image (tv.resize-int), a Normalize that uses the first channel's
  mean and std for every channel (tv.normalize-per-channel), a make_grid that always returns
  three channels (tv.make-grid-3ch);
- a DataLoader that ignores drop_last (data.drop-last), a RandomSampler that replays the same
  permutation every epoch (data.shuffle-each-epoch), a DataLoader that skips what timed out and
  ends the epoch quietly, as the note has it (data.timeout);
- a roi_pool that reads boxes as (y1, x1, y2, x2) (tv.roi-pool-xy).

Each run is limited to the test files of those claims, so collection stays small.
"""
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

DATA_WORLD = """
import torch
from torch.utils.data import sampler as S

_batch_init = S.BatchSampler.__init__

def batch_init(self, sampler, batch_size, drop_last):
    _batch_init(self, sampler, batch_size, False)

def same_permutation_every_epoch(self):
    yield from torch.randperm(len(self.data_source), generator=torch.Generator().manual_seed(0)).tolist()

S.BatchSampler.__init__ = batch_init
S.RandomSampler.__iter__ = same_permutation_every_epoch
"""

TIMEOUT_SKIPS_WORLD = """
from torch.utils.data import dataloader as D

_get_data = D._MultiProcessingDataLoaderIter._get_data

def get_data_skipping_what_timed_out(self):
    if self._timeout > 0:
        success, data = self._try_get_data(self._timeout)
        if not success:
            raise StopIteration  # the timed-out batch (and the rest of the epoch) skipped, no error
        return data
    return _get_data(self)

D._MultiProcessingDataLoaderIter._get_data = get_data_skipping_what_timed_out
"""

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


def test_squaring_resize_per_image_normalize_and_3_channel_make_grid_turn_tv_claims_red(run_spec):
    claims = ["tv.resize-int", "tv.normalize-per-channel", "tv.make-grid-3ch"]
    run = run_spec("tests/test_tv_transforms.py", "-m", "cpu", *claim_args(*claims),
                   patch=TRANSFORMS_WORLD)
    assert_goes_red(run, "tv.resize-int", "expected (160, 96)")
    assert_goes_red(run, "tv.normalize-per-channel", "channel 1")
    assert_goes_red(run, "tv.make-grid-3ch", "4-channel input gave (3, 26, 30)")


def test_loader_ignoring_drop_last_and_sampler_not_reshuffling_turn_data_claims_red(run_spec):
    run = run_spec("tests/test_data_loader.py", "-m", "cpu", "--claim", "data.drop-last",
                   "--claim", "data.shuffle-each-epoch", patch=DATA_WORLD)
    assert_goes_red(run, "data.drop-last", "batch sizes with drop_last: [64, 36]")
    assert_goes_red(run, "data.shuffle-each-epoch", "only 1 different orders in 5 epochs")


def test_loader_that_skips_a_timed_out_batch_turns_data_timeout_red(run_spec):
    run = run_spec("tests/test_data_loader.py", "-m", "cpu", "--claim", "data.timeout", patch=TIMEOUT_SKIPS_WORLD)
    assert_goes_red(run, "data.timeout", "DID NOT RAISE")


def test_roi_pool_with_x_and_y_swapped_turns_tv_roi_pool_xy_red(run_spec):
    run = run_spec("tests/test_tv_ops_roi_pool.py", "-m", "cpu", "--claim", "tv.roi-pool-xy", patch=ROI_POOL_WORLD)
    assert_goes_red(run, "tv.roi-pool-xy", "14.0 would mean x indexes rows")

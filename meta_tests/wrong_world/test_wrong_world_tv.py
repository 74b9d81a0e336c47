"""Wrong-world checks for the torchvision claims: the spec must go red when torchvision behaves the
way a wrong reading of the notes would have it. Each run collects only the test file of its claims.

    a Resize that squares the image, a Normalize that uses the first channel's mean and std for
      every channel, a make_grid that always returns three channels (independent patches, one run)
                                      -> tv.resize-int, tv.normalize-per-channel, tv.make-grid-3ch red
    a Resize that reads (h, w) as (w, h), a make_grid that takes only a batch tensor
                                                          -> tv.resize-shape, tv.make-grid-list red
    a ToPILImage that clamps float tensors to [0, 1] itself -> tv.to-pil-no-clamp red
    a roi_pool that reads boxes as (y1, x1, y2, x2)       -> tv.roi-pool-xy red
    model architectures without pretrained models (weights enums that name no checkpoint)
                                                          -> tv.package-parts red
    an MNIST whose download=True fetches nothing (needs the network, like the spec test it
      checks)                                             -> tv.datasets-download red
"""
import pytest

from spec_runner import assert_goes_red, claim_args


def test_squaring_resize_per_image_normalize_and_3_channel_make_grid_turn_tv_claims_red(run_spec):
    claims = ["tv.resize-int", "tv.normalize-per-channel", "tv.make-grid-3ch"]
    run = run_spec("tests/test_tv_transforms.py", "-m", "cpu", *claim_args(*claims),
                   world="square_resize_one_channel_normalize_3ch_grid")
    assert_goes_red(run, "tv.resize-int", "expected (160, 96)")
    assert_goes_red(run, "tv.normalize-per-channel", "channel 1")
    assert_goes_red(run, "tv.make-grid-3ch", "4-channel input gave (3, 26, 30)")


def test_swapped_resize_pair_and_batch_only_make_grid_turn_tv_claims_red(run_spec):
    claims = ["tv.resize-shape", "tv.make-grid-list"]
    run = run_spec("tests/test_tv_transforms.py", "-m", "cpu", *claim_args(*claims),
                   world="resize_pair_as_width_height_and_grid_of_a_batch_only")
    assert_goes_red(run, "tv.resize-shape", "expected (100, 36)")
    assert_goes_red(run, "tv.make-grid-list", "not a list")


def test_to_pil_image_that_clamps_turns_tv_to_pil_no_clamp_red(run_spec):
    run = run_spec("tests/test_tv_transforms.py", "-m", "cpu", "--claim", "tv.to-pil-no-clamp",
                   world="to_pil_image_clamps")
    assert_goes_red(run, "tv.to-pil-no-clamp", "the bare uint8 cast of v * 255 gives")


def test_roi_pool_with_x_and_y_swapped_turns_tv_roi_pool_xy_red(run_spec):
    run = run_spec("tests/test_tv_ops_roi_pool.py", "-m", "cpu", "--claim", "tv.roi-pool-xy",
                   world="roi_pool_swaps_x_and_y")
    assert_goes_red(run, "tv.roi-pool-xy", "14.0 would mean x indexes rows")


@pytest.mark.needs(network=True)
def test_mnist_that_never_downloads_turns_tv_datasets_download_red(run_spec):
    run = run_spec("tests/test_tv_datasets.py", "-m", "cpu", "--claim", "tv.datasets-download",
                   world="mnist_never_downloads")
    assert_goes_red(run, "tv.datasets-download", "Dataset not found")


def test_models_without_pretrained_weights_turn_tv_package_parts_red(run_spec):
    run = run_spec("-m", "cpu", "--claim", "tv.package-parts", world="models_without_pretrained_weights")
    assert_goes_red(run, "tv.package-parts", "no pretrained checkpoint")

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
    transforms as the notes describe them: ToTensor gives C x W x H, ColorJitter's contrast does not
      clamp a normalised tensor, and Python parses `from torchvision import utils.make_grid`
                                                          -> tv.to-tensor-layout, tv.train-transform-pipeline,
                                                             tv.import-utils-make-grid red
    image.show() that waits for the viewer, a ToTensor that returns a NumPy array, a ToPILImage
      that reverses the channels                          -> tv.pil-show-nonblocking, tv.to-tensor-image,
                                                             tv.to-pil-image-show red
    models.densenet_161, a roi_pool that takes a list of (4,) boxes and rounds its bins up, and
      pretrained=True without a deprecation warning       -> tv.densenet-161, tv.roi-pool-list-4,
                                                             tv.roi-pool-bins-ceil red; tv.models-pretrained-kwarg
                                                             red on its left-out test
    pyplot as the notes describe it (needs matplotlib, like the tests it checks)
                                                          -> tv.plt-figure-size, tv.plt-subplots-figsize,
                                                             tv.plt-imshow-tensor, tv.plt-subplot-abc red;
                                                             tv.plt-plot-tensor red on its left-out test

The partly claims (make-grid-3ch, models-pretrained-kwarg, plt-plot-tensor) must go red on their
failing half (a left-out test among the red ones).
"""
import pytest

from spec_runner import assert_failing_half_goes_red, assert_goes_red, claim_args


def test_squaring_resize_per_image_normalize_and_3_channel_make_grid_turn_tv_claims_red(run_spec):
    claims = ["tv.resize-int", "tv.normalize-per-channel", "tv.make-grid-3ch"]
    run = run_spec("tests/test_tv_transforms.py", "-m", "cpu", *claim_args(*claims),
                   world="square_resize_one_channel_normalize_3ch_grid")
    assert_goes_red(run, "tv.resize-int", "expected (160, 96)")
    assert_goes_red(run, "tv.normalize-per-channel", "channel 1")
    assert_failing_half_goes_red(run, "tv.make-grid-3ch", "4-channel input gave (3, 26, 30)")


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


def test_transforms_as_the_notes_describe_turn_the_refuted_transform_claims_red(run_spec):
    claims = {
        "tv.to-tensor-layout": "expected C x H x W = (3, 48, 80)",
        "tv.train-transform-pipeline": "test_contrast_adjustment_of_a_float_tensor_clamps_to_0_1",
        "tv.import-utils-make-grid": "DID NOT RAISE",
    }
    run = run_spec("tests/test_tv_transforms.py", "-m", "cpu", *claim_args(*claims),
                   world="tv_transforms_as_the_notes_describe")
    for claim, fragment in claims.items():
        assert_goes_red(run, claim, fragment)
    red = [t["nodeid"] for t in run.claim("tv.train-transform-pipeline")["tests"] if t["outcome"] == "failed"]
    assert len(red) == 2, red  # the pipeline's own test too, not only the contrast one


def test_a_blocking_show_and_other_conversions_turn_the_display_claims_red(run_spec):
    claims = {
        "tv.pil-show-nonblocking": "it waited for the viewer",
        "tv.to-tensor-image": "<class 'numpy.ndarray'>",
        "tv.to-pil-image-show": "ToPILImage(ToTensor(image)) changed the pixels",
    }
    run = run_spec("tests/test_tv_transforms.py", "-m", "cpu", *claim_args(*claims),
                   world="tv_display_and_to_tensor_go_wrong")
    for claim, fragment in claims.items():
        assert_goes_red(run, claim, fragment)


def test_models_and_roi_pool_as_the_notes_describe_turn_the_model_and_roi_claims_red(run_spec):
    claims = {
        "tv.densenet-161": "DID NOT RAISE",
        "tv.roi-pool-list-4": "DID NOT RAISE",
        "tv.roi-pool-bins-ceil": "the centre cell should land in all four bins",
    }
    run = run_spec("tests/test_tv_models.py", "tests/test_tv_ops_roi_pool.py", "-m", "cpu",
                   *claim_args(*claims, "tv.models-pretrained-kwarg"),
                   world="tv_models_and_roi_pool_as_the_notes_describe")
    for claim, fragment in claims.items():
        assert_goes_red(run, claim, fragment)
    assert_failing_half_goes_red(run, "tv.models-pretrained-kwarg", "DID NOT WARN")


@pytest.mark.needs(libs=["matplotlib"])
def test_pyplot_as_the_notes_describe_turns_the_plt_claims_red(run_spec):
    claims = {
        "tv.plt-figure-size": "DID NOT RAISE",
        "tv.plt-subplots-figsize": "figsize=(h, w) made a figure 7.0 wide and 4.0 high",
        "tv.plt-imshow-tensor": "DID NOT RAISE",
        "tv.plt-subplot-abc": "subplot(235) is a 3 x 2 grid",
    }
    run = run_spec("tests/test_tv_transforms.py", "-m", "cpu", *claim_args(*claims, "tv.plt-plot-tensor"),
                   world="pyplot_as_the_notes_describe")
    for claim, fragment in claims.items():
        assert_goes_red(run, claim, fragment)
    assert_failing_half_goes_red(run, "tv.plt-plot-tensor", "DID NOT RAISE")

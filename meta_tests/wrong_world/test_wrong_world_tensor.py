"""Wrong-world checks for the tensor claims: in a torch patched so that the claim's stated behaviour
differs, the claim's tests must go red, for the reason their assertions give. Patches whose tests
do not touch each other's functions share one spec run.

    flatten with an exclusive end_dim, squeeze that ignores its dim, cat that stacks; with them
      F.one_hot whose default num_classes is max(t), and from_numpy that copies
                                                          -> tensor.flatten-range, tensor.squeeze-dim,
                                                             tensor.cat-vs-stack, dtype.one-hot-default,
                                                             dtype.from-numpy-copy, dtype.numpy-roundtrip red
    arange(a) that includes a, and set_default_tensor_type whose deprecation (PyTorch 2.1) is flipped
                                                          -> tensor.arange-one-arg, dtype.set-default-tensor-type red
    vstack that concatenates 1-d inputs along dim 0       -> tensor.vstack-hstack red
"""
from fixtures.versions import torch_at_least
from spec_runner import assert_goes_red, claim_args

SHAPE_AND_CONVERSION_CLAIMS = {
    "tensor.flatten-range": "flatten(",
    "tensor.squeeze-dim": "squeeze(",
    "dtype.one-hot-default": "classes, max is",
    "dtype.from-numpy-copy": "does not share nd's memory",
    "dtype.numpy-roundtrip": "from_numpy(a) does not share a's memory",
    "tensor.cat-vs-stack": "cat(dim=",
}


def test_shape_and_conversion_claims_go_red_in_a_world_that_breaks_them(run_spec):
    run = run_spec(*claim_args(*SHAPE_AND_CONVERSION_CLAIMS), "-m", "cpu", world="shape_and_conversion_functions_drift")
    for cid, fragment in SHAPE_AND_CONVERSION_CLAIMS.items():
        assert_goes_red(run, cid, fragment)


def test_arange_including_its_end_and_a_silent_set_default_tensor_type_go_red(run_spec):
    run = run_spec(
        "--claim", "tensor.arange-one-arg", "--claim", "dtype.set-default-tensor-type", "-m", "cpu",
        world="arange_includes_end_and_default_type_flipped",
    )
    assert_goes_red(run, "tensor.arange-one-arg", "a itself is excluded")
    expected = "no deprecation warning" if torch_at_least("2.1") else "deprecation warning before 2.1"
    assert_goes_red(run, "dtype.set-default-tensor-type", expected)


def test_vstack_that_concatenates_vectors_turns_vstack_hstack_red(run_spec):
    run = run_spec("--claim", "tensor.vstack-hstack", "-m", "cpu", world="vstack_concatenates_vectors")
    assert_goes_red(run, "tensor.vstack-hstack", "vstack of 1-d")

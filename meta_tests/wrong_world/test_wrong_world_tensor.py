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
    vstack that concatenates 1-d inputs along dim 0       -> tensor.vstack-hstack's failing half red
    the note's world for matrix products, random draws, nonzero, fractional aranges, pil_to_tensor,
      named tensors (kept past 2.13) and the notes' typos (a compile() that reads them as meant), one run:
                                                          -> tensor.mm-vector, tensor.rand-no-size,
                                                             tensor.nonzero-size-count, tensor.nonzero-index-rows,
                                                             tensor.named-dims-api, tensor.named-align-to,
                                                             tensor.named-example-quotes,
                                                             tensor.pairwise-dist-snippet,
                                                             dtype.to-tensor-slash-typo red; the failing halves
                                                             of tensor.bmm-leading-dims, tensor.matmul-general,
                                                             tensor.normal-tensor-mean,
                                                             tensor.normal-size-tensor-args,
                                                             tensor.arange-two-three-args,
                                                             tensor.image-layout-convention red
    masked_fill that refuses non-bool masks on every torch (its failing half runs before 2.1 only)
                                                          -> tensor.masked-fill's failing half red
    tolist() that flattens, from_numpy that makes float64 float32, rand on [0, 2) (the note wrong)
                                                          -> tensor.numpy-tolist-methods, tensor.from-numpy,
                                                             tensor.rand-range red (they hold)
    tolist() that gives floats for an integer tensor, and torch.squeeze(t) (the function, no dim)
      that removes dim 0 only, one run: the cases re-judging added
                                                          -> tensor.numpy-tolist-methods (int64),
                                                             tensor.squeeze-dim (torch.squeeze(t)) red

Where the world makes a refuted claim's note right, its wrong (or by-version) tests go red
(assert_goes_red); where it makes a partly claim's note right, a test of its failing half goes red
(assert_failing_half_goes_red).
"""
import pytest

from fixtures.boundaries import NON_BOOL_MASKS_REJECTED
from fixtures.versions import NAMED_TENSORS_REMOVED, torch_at_least
from spec_runner import assert_failing_half_goes_red, assert_goes_red, claim_args, red_tests

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
    # the flipped deprecation: from 2.1 its failing half (the warning) goes red; before 2.1 it holds, and
    # its holds test of no warning goes red
    if torch_at_least("2.1"):
        assert_failing_half_goes_red(run, "dtype.set-default-tensor-type", "no deprecation warning")
    else:
        assert_goes_red(run, "dtype.set-default-tensor-type", "deprecation warning before 2.1")


def test_vstack_that_concatenates_vectors_turns_vstack_hstack_red(run_spec):
    run = run_spec("--claim", "tensor.vstack-hstack", "-m", "cpu", world="vstack_concatenates_vectors")
    assert_failing_half_goes_red(run, "tensor.vstack-hstack", "vstack of 1-d")


# the refuted claims: (claim, reason its wrong or by-version test gives in the note's world)
NOTE_RIGHT_REFUTED = {
    "tensor.mm-vector": "DID NOT RAISE RuntimeError",
    "tensor.rand-no-size": "DID NOT RAISE TypeError",
    "tensor.nonzero-size-count": "size() returned int",
    "tensor.nonzero-index-rows": "t[v] has shape ()",
    "tensor.named-example-quotes": "DID NOT RAISE SyntaxError",
    "tensor.pairwise-dist-snippet": "DID NOT RAISE SyntaxError",
    "dtype.to-tensor-slash-typo": "DID NOT RAISE NameError",
}
# refuted from the removal of named tensors (2.13): before it they hold, and the world changes nothing
NOTE_RIGHT_NAMED = {
    "tensor.named-dims-api": "DID NOT RAISE TypeError",
    "tensor.named-align-to": "this world: align_to needs a tensor with named dims",
}
# the partly claims: (claim, reason its failing-half test gives in the note's world)
NOTE_RIGHT_FAILING_HALVES = {
    "tensor.bmm-leading-dims": "DID NOT RAISE RuntimeError",
    "tensor.matmul-general": "1-D @ 1-D is a dot product (0-dim)",
    "tensor.normal-tensor-mean": "this world: normal() without a size needs a tensor mean",
    "tensor.normal-size-tensor-args": "DID NOT RAISE TypeError",
    "tensor.arange-two-three-args": "arange(1, 1.3, 0.1) has 3 elements",
    "tensor.image-layout-convention": "torch.float32 == torch.uint8",
}
NOTE_RIGHT_WORLDS = ("matrix_products_take_any_dims", "random_draws_as_the_note_says", "nonzero_as_the_note_reads",
                     "arange_stops_before_a_fractional_end", "pil_to_tensor_scales", "named_tensors_kept",
                     "python_reads_the_notes_typos")


@pytest.fixture(scope="module")
def note_right_run(tmp_path_factory):
    from spec_runner import make_runner

    run = make_runner(tmp_path_factory.mktemp("tensor_note_right"))
    claims = [*NOTE_RIGHT_REFUTED, *NOTE_RIGHT_NAMED, *NOTE_RIGHT_FAILING_HALVES]
    return run(*claim_args(*claims), "-m", "cpu", world=NOTE_RIGHT_WORLDS)


@pytest.mark.parametrize("cid", NOTE_RIGHT_REFUTED)
def test_a_refuted_tensor_claim_goes_red_where_the_note_is_right(note_right_run, cid):
    assert_goes_red(note_right_run, cid, NOTE_RIGHT_REFUTED[cid])


@pytest.mark.needs(min_torch=NAMED_TENSORS_REMOVED)
@pytest.mark.parametrize("cid", NOTE_RIGHT_NAMED)
def test_a_named_tensor_claim_goes_red_where_named_tensors_were_kept(note_right_run, cid):
    assert_goes_red(note_right_run, cid, NOTE_RIGHT_NAMED[cid])


@pytest.mark.parametrize("cid", NOTE_RIGHT_FAILING_HALVES)
def test_a_partly_tensor_claims_failing_half_goes_red_where_the_note_is_right(note_right_run, cid):
    assert_failing_half_goes_red(note_right_run, cid, NOTE_RIGHT_FAILING_HALVES[cid])


@pytest.mark.needs(max_torch=NON_BOOL_MASKS_REJECTED)
def test_masked_fill_refusing_non_bool_masks_turns_the_failing_half_of_masked_fill_red(run_spec):
    run = run_spec("--claim", "tensor.masked-fill", "-m", "cpu", world="masked_fill_refuses_non_bool_masks")
    assert_failing_half_goes_red(run, "tensor.masked-fill", "only supports boolean masks (this world)")


def test_flat_tolist_float32_from_numpy_and_a_wide_rand_turn_the_conversion_claims_red(run_spec):
    claims = {
        "tensor.numpy-tolist-methods": "tolist() gave [1.5, 2.0, 3.0, 4.5]",
        "tensor.from-numpy": "dtype torch.float32 for an array of float64",
        "tensor.rand-range": "< 1.0",
    }
    run = run_spec(*claim_args(*claims), "-m", "cpu", world="conversions_and_rand_drift")
    for cid, fragment in claims.items():
        assert_goes_red(run, cid, fragment)




# the cases re-judging added: an int64 tensor for tensor.numpy-tolist-methods, torch.squeeze(t) beside
# t.squeeze() for tensor.squeeze-dim; the worlds patch different functions and share one run, and the
# cases the claims had before (a float32 tensor, the method squeeze) stay green
ADDED_CASES = {  # claim: (fragment, the added case)
    "tensor.numpy-tolist-methods": ("tolist() entries are float, expected int",
                                    "test_numpy_and_tolist_give_a_numpy_array_and_a_python_list[int64]"),
    "tensor.squeeze-dim": ("torch.squeeze(t) gave (2, 1, 3, 1)",
                           "test_squeeze_with_dim_left_at_its_default_none_removes_every_size_1_axis"),
}


def test_integer_tolist_as_floats_and_torch_squeeze_of_dim_0_turn_the_added_cases_red(run_spec):
    run = run_spec(*claim_args(*ADDED_CASES), "-m", "cpu",
                   world=("integer_tolist_gives_floats", "torch_squeeze_without_dim_squeezes_dim_0"))
    for cid, (fragment, added) in ADDED_CASES.items():
        assert_goes_red(run, cid, fragment)
        assert red_tests(run, cid) == [added]

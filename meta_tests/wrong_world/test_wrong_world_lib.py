"""Wrong-world checks for the lib.* claims: each library is patched into the world the note
describes (or another plausible wrong one), and the claim's tests must go red.

Each check needs its library, like the tests it checks: in the default environment they are
skipped; the lib-* tox envs run them (see /README, 'Other libraries'). PIL is there with torchvision.

Where a world makes a partly claim's note right, a test of its failing half must be among the red ones
(assert_failing_half_goes_red): the fast_transformers layers with the note's signatures
(lib.ft-decoder-layer, lib.ft-recurrent-encoder), the tokenizer call that returns a plain dict
(lib.hf-call-returns), a RecurrentFullAttention whose state comes from feature maps
(lib.ft-state-feature-maps), and a .rec layout padded to 8 (lib.mx-recordio-align8). Refuted claims
made right: TransformerEncoderLayer with the note's n_heads (lib.ft-encoder-layer), RecordIO writing
and reading str as in Python 2 (lib.mx-recordio-write-str, lib.mx-write-idx-str; lib.mx-read-returns-bytes,
which holds, goes red there too), the note's 8-byte-count .rec layout (lib.mx-recordio-format). A holds
claim made wrong: Image.open that converts every image to RGB (lib.pil-image-open). Holding halves
broken: a recurrent feature map other than the batch one (lib.ft-state-feature-maps,
lib.ft-recurrent-encoder), a tokenizer that ignores return_tensors (lib.hf-call-returns), .idx
offsets taken after the record (lib.mx-recordio-align8).
"""
import pytest

from spec_runner import assert_failing_half_goes_red, assert_goes_red, assert_holding_half_goes_red, claim_args


@pytest.mark.needs(libs=["einops"])
def test_rearrange_with_the_notes_signature_turns_einops_red(run_spec):
    run = run_spec("--claim", "lib.einops-rearrange", "-m", "cpu", world="rearrange_element_pattern")
    assert_goes_red(run, "lib.einops-rearrange", "rearrange[('element'")


@pytest.mark.needs(libs=["fast_transformers"])
def test_layers_with_the_notes_signatures_turn_the_fast_transformers_signature_claims_red(run_spec):
    claims = {
        "lib.ft-decoder-layer": "constructor parameters after the note's six: []",
        "lib.ft-recurrent-encoder": "forward[('x', <class 'inspect._empty'>), ('state', None)]",
        "lib.ft-recurrent-decoder": "('dropout', 0.1)]",
    }
    run = run_spec(*claim_args(*claims), "-m", "cpu", "-k", "signature",
                   world="fast_transformers_notes_signatures")
    for claim, fragment in claims.items():
        if claim == "lib.ft-recurrent-decoder":  # holds: the note's signature is the wrong one
            assert_goes_red(run, claim, fragment)
        else:  # partly: the note's signature is its failing half
            assert_failing_half_goes_red(run, claim, fragment)


@pytest.mark.needs(libs=["transformers"])
def test_tokenizer_call_returning_a_dict_turns_hf_call_returns_red(run_spec):
    run = run_spec("--claim", "lib.hf-call-returns", "-m", "cpu", world="tokenizer_call_returns_a_dict")
    assert_failing_half_goes_red(run, "lib.hf-call-returns", "tokenizer() returned (<class 'dict'>")


@pytest.mark.needs(libs=["mxnet"])
def test_read_idx_that_reads_sequentially_turns_mx_indexed_read_red(run_spec):
    run = run_spec("--claim", "lib.mx-indexed-read", "-m", "cpu", world="read_idx_reads_sequentially")
    assert_goes_red(run, "lib.mx-indexed-read", "b'record_0'")


@pytest.mark.needs(libs=["einops"])
def test_rearrange_that_only_reshapes_turns_einops_red(run_spec):
    run = run_spec("--claim", "lib.einops-rearrange", "-m", "cpu", world="rearrange_only_reshapes")
    assert_goes_red(run, "lib.einops-rearrange", "': values differ")


@pytest.mark.needs(libs=["transformers"])
def test_padding_to_max_length_turns_hf_padding_red(run_spec):
    run = run_spec("--claim", "lib.hf-padding-max-length", "-m", "cpu", world="padding_true_means_max_length")
    assert_goes_red(run, "lib.hf-padding-max-length", "shape (1, 8)")


@pytest.mark.needs(libs=["fast_transformers"])
def test_recurrent_feature_map_mismatch_turns_recurrent_claims_red(run_spec):
    claims = ["lib.ft-recurrent-encoder", "lib.ft-builders", "lib.ft-state-feature-maps"]
    run = run_spec(*claim_args(*claims), "-m", "cpu", world="recurrent_feature_map_differs")
    for claim in claims:
        if claim == "lib.ft-builders":  # holds
            assert_goes_red(run, claim, "Mismatched elements")
        else:  # partly: the linear attention's feature-map state is their holding half
            assert_holding_half_goes_red(run, claim, "Mismatched elements")


@pytest.mark.needs(libs=["mxnet"])
def test_pack_that_keeps_the_flag_turns_irheader_red(run_spec):
    run = run_spec("--claim", "lib.mx-irheader", "-m", "cpu", world="pack_keeps_the_flag")
    assert_goes_red(run, "lib.mx-irheader", "stored 7")


@pytest.mark.needs(libs=["tensorflow"])
def test_off_by_one_to_categorical_turns_tf_red(run_spec):
    run = run_spec("--claim", "lib.tf-to-categorical", "-m", "cpu", world="to_categorical_off_by_one")
    assert_goes_red(run, "lib.tf-to-categorical", "one-hot differs")


@pytest.mark.needs(libs=["fast_transformers"])
def test_partly_fast_transformers_claims_leave_partly_when_their_holding_half_breaks(run_spec):
    claims = ["lib.ft-decoder-layer", "lib.ft-recurrent-encoder"]
    run = run_spec(*claim_args(*claims), "-m", "cpu", "-k", "signature",
                   world="fast_transformers_holding_halves_broken")
    for cid in claims:
        assert_holding_half_goes_red(run, cid, "printed vs installed")


@pytest.mark.needs(libs=["fast_transformers"])
def test_the_notes_encoder_layer_and_a_feature_map_full_attention_turn_claims_red(run_spec):
    run = run_spec(*claim_args("lib.ft-encoder-layer", "lib.ft-state-feature-maps"), "-m", "cpu",
                   world=("encoder_layer_with_the_notes_signature", "full_attention_state_from_feature_maps"))
    assert_goes_red(run, "lib.ft-encoder-layer", "n_heads")
    assert_failing_half_goes_red(run, "lib.ft-state-feature-maps", "the state grows by one key/value per step")


@pytest.mark.needs(libs=["mxnet"])
def test_recordio_that_takes_and_gives_str_turns_the_str_claims_red(run_spec):
    claims = {
        "lib.mx-recordio-write-str": "DID NOT RAISE",
        "lib.mx-write-idx-str": "DID NOT RAISE",
        "lib.mx-read-returns-bytes": "read() returned str",
    }
    run = run_spec(*claim_args(*claims), "-m", "cpu", world="mxnet_records_as_str")
    for claim, fragment in claims.items():
        assert_goes_red(run, claim, fragment)


@pytest.mark.needs(libs=["mxnet"])
def test_the_notes_rec_layout_turns_the_format_claims_red(run_spec):
    run = run_spec(*claim_args("lib.mx-recordio-format", "lib.mx-recordio-align8"), "-m", "cpu",
                   world="recordio_in_the_notes_layout")
    assert_goes_red(run, "lib.mx-recordio-format", "expected the magic")
    assert_failing_half_goes_red(run, "lib.mx-recordio-align8", "padding bytes, expected")


@pytest.mark.needs(libs=["PIL"])
def test_image_open_that_converts_to_rgb_turns_pil_image_open_red(run_spec):
    run = run_spec("--claim", "lib.pil-image-open", "-m", "cpu", world="image_open_converts_to_rgb")
    assert_goes_red(run, "lib.pil-image-open", "('RGB', (80, 48)) == ('L', (80, 48))", "None != 'JPEG'")


@pytest.mark.needs(libs=["transformers"])
def test_a_tokenizer_that_ignores_return_tensors_turns_the_holding_half_of_hf_call_returns_red(run_spec):
    run = run_spec("--claim", "lib.hf-call-returns", "-m", "cpu", world="tokenizer_ignores_return_tensors")
    assert_holding_half_goes_red(run, "lib.hf-call-returns", "('input_ids', [[")


@pytest.mark.needs(libs=["mxnet"])
def test_idx_offsets_after_the_record_turn_the_holding_half_of_align8_red(run_spec):
    run = run_spec("--claim", "lib.mx-recordio-align8", "-m", "cpu", world="idx_offsets_after_the_record")
    assert_holding_half_goes_red(run, "lib.mx-recordio-align8", "19320")

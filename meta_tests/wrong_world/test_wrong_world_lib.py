"""Wrong-world checks for the lib.* claims: each library is patched into the world the note
describes (or another plausible wrong one), and the claim's tests must go red.

Each check needs its library, like the tests it checks: in the default environment they are
skipped; the lib-* tox envs run them (see /README, 'Other libraries').
"""
import pytest

from spec_runner import assert_goes_red, assert_holding_half_goes_red, claim_args


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
        assert_goes_red(run, claim, fragment)


@pytest.mark.needs(libs=["transformers"])
def test_tokenizer_call_returning_a_dict_turns_hf_call_returns_red(run_spec):
    run = run_spec("--claim", "lib.hf-call-returns", "-m", "cpu", world="tokenizer_call_returns_a_dict")
    assert_goes_red(run, "lib.hf-call-returns", "tokenizer() returned (<class 'dict'>")


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
        assert_goes_red(run, claim, "Mismatched elements")


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

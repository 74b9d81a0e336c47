"""Wrong-world checks for the lib.* claims: each library is patched into the world the note
describes (or another plausible wrong one), and the claim's tests must go red.

Each check needs its library, like the tests it checks: in the default environment they are
skipped; the lib-* tox envs run them (see /README, 'Other libraries').
"""
import pytest

from spec_runner import assert_goes_red, claim_args

# einops.rearrange that only reshapes: right shapes, axes never moved
REARRANGE_ONLY_RESHAPES = """
import einops

_rearrange = einops.rearrange

def rearrange(tensor, pattern, **axes_lengths):
    return tensor.reshape(_rearrange(tensor, pattern, **axes_lengths).shape)

einops.rearrange = rearrange
"""

# the note's world: padding=True pads every sequence to max_length
PADDING_TRUE_MEANS_MAX_LENGTH = """
from transformers import tokenization_utils_base as base

_call = base.PreTrainedTokenizerBase.__call__

def __call__(self, *args, padding=False, max_length=None, **kwargs):
    if padding is True and max_length is not None:
        padding = "max_length"
    return _call(self, *args, padding=padding, max_length=max_length, **kwargs)

base.PreTrainedTokenizerBase.__call__ = __call__
"""

# recurrent linear attention with another feature map (relu + 1) than the batch one (elu + 1)
RECURRENT_FEATURE_MAP_DIFFERS = """
import torch
from fast_transformers.feature_maps import ActivationFunctionFeatureMap
import fast_transformers.recurrent.attention.self_attention.linear_attention as recurrent_linear

recurrent_linear.elu_feature_map = ActivationFunctionFeatureMap.factory(lambda x: torch.relu(x) + 1)
"""

# the note's world: IRHeader.flag is stored as given
PACK_KEEPS_THE_FLAG = """
import numbers
import struct

import numpy as np
import mxnet.recordio as recordio

def pack(header, s):
    header = recordio.IRHeader(*header)
    if not isinstance(header.label, numbers.Number):
        label = np.asarray(header.label, dtype=np.float32)
        header = header._replace(label=0)
        s = label.tobytes() + s
    return struct.pack(recordio._IR_FORMAT, *header) + s

recordio.pack = pack
"""

# keras one-hot that numbers the classes from 1 (label k -> column k - 1)
# (triton and torch load before tensorflow: triton loaded after tensorflow segfaults)
TO_CATEGORICAL_OFF_BY_ONE = """
import numpy as np
import torch
import triton
import tensorflow as tf

_to_categorical = tf.keras.utils.to_categorical

def to_categorical(x, num_classes=None):
    return np.roll(_to_categorical(x, num_classes), -1, axis=-1)

tf.keras.utils.to_categorical = to_categorical
"""


# the note's signature: rearrange(element, pattern), no keyword axis sizes
REARRANGE_ELEMENT_PATTERN = """
import einops

_rearrange = einops.rearrange

def rearrange(element, pattern):
    return _rearrange(element, pattern)

einops.rearrange = rearrange
"""

# the note's signatures of the fast_transformers layers (no event_dispatcher, no memory alias)
FAST_TRANSFORMERS_NOTE_SIGNATURES = """
import fast_transformers.transformers as T
import fast_transformers.recurrent.transformers as R

_decoder, _recurrent_decoder = T.TransformerDecoderLayer.__init__, R.RecurrentTransformerDecoderLayer.__init__
_recurrent_forward = R.RecurrentTransformerEncoderLayer.forward

def decoder_init(self, self_attention, cross_attention, d_model, d_ff=None, dropout=0.1, activation="relu"):
    _decoder(self, self_attention, cross_attention, d_model, d_ff, dropout, activation)

def recurrent_decoder_init(self, self_attention, cross_attention, d_model, d_ff=None, dropout=0.1):
    _recurrent_decoder(self, self_attention, cross_attention, d_model, d_ff, dropout)

def recurrent_forward(self, x, state=None):
    return _recurrent_forward(self, x, state)

T.TransformerDecoderLayer.__init__ = decoder_init
R.RecurrentTransformerDecoderLayer.__init__ = recurrent_decoder_init
R.RecurrentTransformerEncoderLayer.forward = recurrent_forward
"""

# a tokenizer call that hands back a plain dict
CALL_RETURNS_A_DICT = """
from transformers import tokenization_utils_base as base

_call = base.PreTrainedTokenizerBase.__call__

def __call__(self, *args, **kwargs):
    return dict(_call(self, *args, **kwargs))

base.PreTrainedTokenizerBase.__call__ = __call__
"""

# read_idx that ignores the key and reads the next record in file order
READ_IDX_SEQUENTIAL = """
import mxnet.recordio as recordio

recordio.MXIndexedRecordIO.read_idx = lambda self, idx: self.read()
"""


@pytest.mark.needs(libs=["einops"])
def test_rearrange_with_the_notes_signature_turns_einops_red(run_spec):
    run = run_spec("--claim", "lib.einops-rearrange", "-m", "cpu", patch=REARRANGE_ELEMENT_PATTERN)
    assert_goes_red(run, "lib.einops-rearrange", "rearrange[('element'")


@pytest.mark.needs(libs=["fast_transformers"])
def test_layers_with_the_notes_signatures_turn_the_fast_transformers_signature_claims_red(run_spec):
    claims = {
        "lib.ft-decoder-layer": "constructor parameters after the note's six: []",
        "lib.ft-recurrent-encoder": "forward[('x', <class 'inspect._empty'>), ('state', None)]",
        "lib.ft-recurrent-decoder": "('dropout', 0.1)]",
    }
    run = run_spec(*claim_args(*claims), "-m", "cpu", "-k", "signature",
                   patch=FAST_TRANSFORMERS_NOTE_SIGNATURES)
    for claim, fragment in claims.items():
        assert_goes_red(run, claim, fragment)


@pytest.mark.needs(libs=["transformers"])
def test_tokenizer_call_returning_a_dict_turns_hf_call_returns_red(run_spec):
    run = run_spec("--claim", "lib.hf-call-returns", "-m", "cpu", patch=CALL_RETURNS_A_DICT)
    assert_goes_red(run, "lib.hf-call-returns", "tokenizer() returned (<class 'dict'>")


@pytest.mark.needs(libs=["mxnet"])
def test_read_idx_that_reads_sequentially_turns_mx_indexed_read_red(run_spec):
    run = run_spec("--claim", "lib.mx-indexed-read", "-m", "cpu", patch=READ_IDX_SEQUENTIAL)
    assert_goes_red(run, "lib.mx-indexed-read", "b'record_0'")


@pytest.mark.needs(libs=["einops"])
def test_rearrange_that_only_reshapes_turns_einops_red(run_spec):
    run = run_spec("--claim", "lib.einops-rearrange", "-m", "cpu", patch=REARRANGE_ONLY_RESHAPES)
    assert_goes_red(run, "lib.einops-rearrange", "': values differ")


@pytest.mark.needs(libs=["transformers"])
def test_padding_to_max_length_turns_hf_padding_red(run_spec):
    run = run_spec("--claim", "lib.hf-padding-max-length", "-m", "cpu", patch=PADDING_TRUE_MEANS_MAX_LENGTH)
    assert_goes_red(run, "lib.hf-padding-max-length", "shape (1, 8)")


@pytest.mark.needs(libs=["fast_transformers"])
def test_recurrent_feature_map_mismatch_turns_recurrent_claims_red(run_spec):
    claims = ["lib.ft-recurrent-encoder", "lib.ft-builders", "lib.ft-state-feature-maps"]
    run = run_spec(*claim_args(*claims), "-m", "cpu", patch=RECURRENT_FEATURE_MAP_DIFFERS)
    for claim in claims:
        assert_goes_red(run, claim, "Mismatched elements")


@pytest.mark.needs(libs=["mxnet"])
def test_pack_that_keeps_the_flag_turns_irheader_red(run_spec):
    run = run_spec("--claim", "lib.mx-irheader", "-m", "cpu", patch=PACK_KEEPS_THE_FLAG)
    assert_goes_red(run, "lib.mx-irheader", "stored 7")


@pytest.mark.needs(libs=["tensorflow"])
def test_off_by_one_to_categorical_turns_tf_red(run_spec):
    run = run_spec("--claim", "lib.tf-to-categorical", "-m", "cpu", patch=TO_CATEGORICAL_OFF_BY_ONE)
    assert_goes_red(run, "lib.tf-to-categorical", "one-hot differs")


# the holding halves of the partly fast_transformers claims broken: a printed default differs
# (TransformerDecoderLayer dropout=0.2) and the note's forward(x, state) is named otherwise
# (forward(x, hidden=None, memory=None)); the parameters the note leaves out are kept
FAST_TRANSFORMERS_HOLDING_HALF_BROKEN = """
import fast_transformers.transformers as T
import fast_transformers.recurrent.transformers as R

_decoder = T.TransformerDecoderLayer.__init__
_recurrent_forward = R.RecurrentTransformerEncoderLayer.forward

def decoder_init(self, self_attention, cross_attention, d_model, d_ff=None, dropout=0.2, activation="relu",
                 event_dispatcher=""):
    _decoder(self, self_attention, cross_attention, d_model, d_ff, dropout, activation, event_dispatcher)

def recurrent_forward(self, x, hidden=None, memory=None):
    return _recurrent_forward(self, x, hidden, memory)

T.TransformerDecoderLayer.__init__ = decoder_init
R.RecurrentTransformerEncoderLayer.forward = recurrent_forward
"""


@pytest.mark.needs(libs=["fast_transformers"])
def test_partly_fast_transformers_claims_leave_partly_when_their_holding_half_breaks(run_spec):
    claims = ["lib.ft-decoder-layer", "lib.ft-recurrent-encoder"]
    run = run_spec(*claim_args(*claims), "-m", "cpu", "-k", "signature", patch=FAST_TRANSFORMERS_HOLDING_HALF_BROKEN)
    for cid in claims:
        assert_goes_red(run, cid, "printed vs installed")
        assert any(t.get("half") == "holding" for t in run.claim(cid)["tests"] if t["outcome"] == "failed"), cid

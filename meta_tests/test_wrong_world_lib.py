"""Wrong-world checks for the lib.* claims: each library is patched into the world the note
describes (or another plausible wrong one), and the claim's tests must go red.

Each check needs its library, like the tests it checks: in the default environment they are
skipped; the lib-* tox envs run them (see /README, 'Other libraries').
"""
import pytest
from spec_runner import assert_goes_red

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


@pytest.mark.needs(libs=["einops"])
def test_rearrange_that_only_reshapes_turns_einops_red(run_spec):
    run = run_spec("--claim", "lib.einops-rearrange", "-m", "cpu", patch=REARRANGE_ONLY_RESHAPES)
    assert_goes_red(run, "lib.einops-rearrange", "values differ from the permute/reshape reference")


@pytest.mark.needs(libs=["transformers"])
def test_padding_to_max_length_turns_hf_padding_red(run_spec):
    run = run_spec("--claim", "lib.hf-padding-max-length", "-m", "cpu", patch=PADDING_TRUE_MEANS_MAX_LENGTH)
    assert_goes_red(run, "lib.hf-padding-max-length", "shape (1, 8)")


@pytest.mark.needs(libs=["fast_transformers"])
def test_recurrent_feature_map_mismatch_turns_recurrent_claims_red(run_spec):
    claims = ["lib.ft-recurrent-encoder", "lib.ft-builders", "lib.ft-state-feature-maps"]
    run = run_spec(*(a for c in claims for a in ("--claim", c)), "-m", "cpu", patch=RECURRENT_FEATURE_MAP_DIFFERS)
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

"""pytorch-fast-transformers 0.4.0: layers, recurrent layers, feature-map state, builders, masks.

Notes: 001_eaed12e493b64ab2.txt › 三、Pytorch Fast Transformers › 1. Transformers layers,
2. Recurrent Transformers, 3. Builders, 4. Masking.

The package is source-only; `tox -e lib` builds it CPU-only against the env's
torch (see requirements-lib-fast-transformers.txt). Models here are tiny and run in eval mode,
so dropout does not blur the comparisons.
"""
import importlib

import pytest
import torch
from torch.testing import assert_close

from fixtures import signatures
from fixtures.signatures import EMPTY, signature_parameters

pytestmark = pytest.mark.needs(libs=["fast_transformers"])

N, L, S, H, D = 3, 5, 4, 2, 4  # batch, sequence, memory length, heads, per-head dims
E = H * D  # d_model
BUILDER_KWARGS = dict(  # the note's from_kwargs call, with small sizes
    n_layers=2,
    n_heads=H,
    query_dimensions=E // H,
    value_dimensions=E // H,
    feed_forward_dimensions=2048,
    activation="gelu",
    dropout=0.1,
    attention_type="causal-linear",
)

# the note's printed signatures (signature claims, fixtures/signatures.py): (constructor, forward)
NOTE_DECODER = ([("self_attention", EMPTY), ("cross_attention", EMPTY), ("d_model", EMPTY), ("d_ff", None),
                 ("dropout", 0.1), ("activation", "relu")],
                [("x", EMPTY), ("memory", EMPTY), ("x_mask", None), ("x_length_mask", None), ("memory_mask", None),
                 ("memory_length_mask", None)])
NOTE_RECURRENT_ENCODER = ([("attention", EMPTY), ("d_model", EMPTY), ("d_ff", None), ("dropout", 0.1),
                           ("activation", "relu"), ("event_dispatcher", "")],
                          [("x", EMPTY), ("state", None)])


def _layer(module, name):
    return getattr(importlib.import_module(module), name)


def _init_and_forward(module, name):
    """(constructor parameters, forward parameters) of a fast_transformers layer, imported on call."""
    cls = _layer(module, name)
    return signature_parameters(cls.__init__), signature_parameters(cls.forward)


def _both(module, name, note):
    """[(installed, printed)] for the constructor and forward of a layer."""
    return list(zip(_init_and_forward(module, name), note))


SIGNATURES = {
    "lib.ft-encoder-layer": (
        lambda: _init_and_forward("fast_transformers.transformers", "TransformerEncoderLayer"),
        ([("attention", EMPTY), ("d_model", EMPTY), ("n_heads", EMPTY), ("d_ff", None), ("dropout", 0.1),
          ("activation", "relu")], [("x", EMPTY), ("attn_mask", None), ("length_mask", None)])),
    "lib.ft-decoder-layer": (lambda: _init_and_forward("fast_transformers.transformers", "TransformerDecoderLayer"),
                             NOTE_DECODER),
    "lib.ft-recurrent-encoder": (
        lambda: _init_and_forward("fast_transformers.recurrent.transformers", "RecurrentTransformerEncoderLayer"),
        NOTE_RECURRENT_ENCODER),
    "lib.ft-recurrent-decoder": (
        lambda: _init_and_forward("fast_transformers.recurrent.transformers", "RecurrentTransformerDecoderLayer"),
        ([("self_attention", EMPTY), ("cross_attention", EMPTY), ("d_model", EMPTY), ("d_ff", None), ("dropout", 0.1),
          ("activation", "relu"), ("event_dispatcher", "")],
         [("x", EMPTY), ("memory", EMPTY), ("memory_length_mask", None), ("state", None)])),
    "lib.ft-masks": (
        lambda: tuple(signature_parameters(_layer("fast_transformers.masking", n).__init__)
                      for n in ("FullMask", "LengthMask", "TriangularCausalMask")),
        ([("mask", None), ("N", None), ("M", None), ("device", "cpu")],
         [("lengths", EMPTY), ("max_len", None), ("device", None)], [("N", EMPTY), ("device", "cpu")])),
}


def causal_linear_layer():
    from fast_transformers.attention import AttentionLayer, CausalLinearAttention
    from fast_transformers.transformers import TransformerEncoderLayer

    return TransformerEncoderLayer(AttentionLayer(CausalLinearAttention(D), E, H), E, activation="gelu").eval()


def full_attention_layer():
    from fast_transformers.attention import AttentionLayer, FullAttention
    from fast_transformers.transformers import TransformerEncoderLayer

    return TransformerEncoderLayer(AttentionLayer(FullAttention(), E, H), E).eval()


@pytest.mark.claim("lib.ft-encoder-layer", decides="wrong")
def test_encoder_layer_signature_has_no_n_heads():
    from fast_transformers.transformers import TransformerEncoderLayer

    assert signature_parameters(TransformerEncoderLayer.__init__) == [
        ("attention", EMPTY),
        ("d_model", EMPTY),
        ("d_ff", None),
        ("dropout", 0.1),
        ("activation", "relu"),
        ("event_dispatcher", ""),
    ]
    assert signature_parameters(TransformerEncoderLayer.forward) == [
        ("x", EMPTY), ("attn_mask", None), ("length_mask", None),
    ]


@pytest.mark.claim("lib.ft-encoder-layer", decides="wrong")
def test_note_argument_order_puts_n_heads_into_d_ff():
    from fast_transformers.attention import AttentionLayer, FullAttention
    from fast_transformers.transformers import TransformerEncoderLayer

    # TransformerEncoderLayer(attention, d_model, n_heads) as the note orders it: no error,
    # but the third positional argument is d_ff, so the feed-forward is H wide instead of 4*E
    layer = TransformerEncoderLayer(AttentionLayer(FullAttention(), E, H), E, H)
    assert layer.linear1.out_features == H, layer.linear1
    assert TransformerEncoderLayer(AttentionLayer(FullAttention(), E, H), E).linear1.out_features == 4 * E
    # the heads live in the attention layer: its projections split E into H heads of E/H
    assert layer.attention.n_heads == H


@pytest.mark.claim("lib.ft-encoder-layer")
def test_encoder_layer_input_is_batch_first_n_l_e():
    layer = full_attention_layer()
    x = torch.randn(N, L, E)
    y = layer(x)
    assert y.shape == (N, L, E)
    # axis 1 is the sequence: without positional encoding, full attention commutes with
    # permuting the positions ...
    perm = torch.tensor([3, 0, 4, 1, 2])
    assert_close(layer(x[:, perm]), y[:, perm])
    # ... and axis 0 is the batch: changing one sample leaves the others alone
    x2 = x.clone()
    x2[1] = torch.randn(L, E)
    y2 = layer(x2)
    assert_close(y2[[0, 2]], y[[0, 2]])
    assert not torch.allclose(y2[1], y[1])


@pytest.mark.claim("lib.ft-decoder-layer", half="failing")
def test_decoder_layer_signature_has_event_dispatcher_beyond_the_note():
    (init, _), (forward, _) = _both("fast_transformers.transformers", "TransformerDecoderLayer", NOTE_DECODER)
    _, missing = signatures.compare(init, NOTE_DECODER[0])
    assert missing == [("event_dispatcher", "")], f"constructor parameters after the note's six: {missing}"
    assert signatures.compare(forward, NOTE_DECODER[1]) == ([], []), f"forward{forward}"


@pytest.mark.claim("lib.ft-decoder-layer", half="holding")
def test_decoder_layer_signature_starts_with_the_notes_parameters():
    for installed, printed in _both("fast_transformers.transformers", "TransformerDecoderLayer", NOTE_DECODER):
        wrong, _ = signatures.compare(installed, printed)
        assert wrong == [], f"printed vs installed: {wrong}"


@pytest.mark.claim("lib.ft-decoder-layer", half="holding")
def test_decoder_layer_takes_x_n_l_e_and_memory_n_lprime_e():
    from fast_transformers.attention import AttentionLayer, FullAttention
    from fast_transformers.masking import LengthMask
    from fast_transformers.transformers import TransformerDecoderLayer

    layer = TransformerDecoderLayer(
        AttentionLayer(FullAttention(), E, H), AttentionLayer(FullAttention(), E, H), E
    ).eval()
    x, memory = torch.randn(N, L, E), torch.randn(N, S, E)
    y = layer(x, memory)
    assert y.shape == (N, L, E), "output follows x, whatever the memory length"
    # memory axis 1 is a set of positions to attend to: order does not matter ...
    assert_close(layer(x, memory[:, [2, 0, 3, 1]]), y)
    # ... and a memory length mask of 2 is the same as cutting the memory to 2 positions
    masked = layer(x, memory, memory_length_mask=LengthMask(torch.full((N,), 2), max_len=S))
    assert_close(masked, layer(x, memory[:, :2]))


@pytest.mark.claim("lib.ft-recurrent-encoder", half="holding")
def test_recurrent_encoder_layer_signature_is_the_notes_up_to_forward_memory():
    (init, note_init), (forward, note_forward) = _both("fast_transformers.recurrent.transformers",
                                                       "RecurrentTransformerEncoderLayer", NOTE_RECURRENT_ENCODER)
    assert signatures.compare(init, note_init) == ([], []), f"RecurrentTransformerEncoderLayer{init}"
    wrong, _ = signatures.compare(forward, note_forward)
    assert wrong == [], f"printed vs installed: {wrong}"


@pytest.mark.claim("lib.ft-recurrent-encoder", half="failing")
def test_recurrent_encoder_layer_signature_has_forward_memory_beyond_the_note():
    # one parameter beyond the note's forward(x, state=None): `memory`, a deprecated alias of `state`
    (_, _), (forward, note_forward) = _both("fast_transformers.recurrent.transformers",
                                            "RecurrentTransformerEncoderLayer", NOTE_RECURRENT_ENCODER)
    _, missing = signatures.compare(forward, note_forward)
    assert missing == [("memory", None)], f"forward parameters after the note's two: {missing}, forward{forward}"


@pytest.mark.claim("lib.ft-recurrent-encoder", half="holding")
def test_recurrent_encoder_layer_steps_one_element_and_matches_the_causal_layer():
    from fast_transformers.masking import TriangularCausalMask
    from fast_transformers.recurrent.attention import RecurrentAttentionLayer, RecurrentLinearAttention
    from fast_transformers.recurrent.transformers import RecurrentTransformerEncoderLayer

    batch = causal_linear_layer()
    recurrent = RecurrentTransformerEncoderLayer(
        RecurrentAttentionLayer(RecurrentLinearAttention(D), E, H), E, activation="gelu"
    ).eval()
    recurrent.load_state_dict(batch.state_dict())
    x = torch.randn(N, L, E)
    state, steps = None, []
    for i in range(L):
        y_i, state = recurrent(x[:, i], state=state)
        assert y_i.shape == (N, E), "one element per call: (N, E) in, (N, E) out"
        steps.append(y_i)
    assert_close(torch.stack(steps, dim=1), batch(x, attn_mask=TriangularCausalMask(L)))


@pytest.mark.claim("lib.ft-recurrent-decoder")
def test_recurrent_decoder_layer_signature():
    from fast_transformers.recurrent.transformers import RecurrentTransformerDecoderLayer

    assert signature_parameters(RecurrentTransformerDecoderLayer.forward) == [
        ("x", EMPTY),
        ("memory", EMPTY),
        ("memory_length_mask", None),
        ("state", None),
    ]
    got = signature_parameters(RecurrentTransformerDecoderLayer.__init__)
    assert got == [
        ("self_attention", EMPTY),
        ("cross_attention", EMPTY),
        ("d_model", EMPTY),
        ("d_ff", None),
        ("dropout", 0.1),
        ("activation", "relu"),
        ("event_dispatcher", ""),
    ], f"RecurrentTransformerDecoderLayer{got}"


@pytest.mark.claim("lib.ft-recurrent-decoder")
def test_recurrent_decoder_layer_takes_x_n_e_and_memory_n_s_e_and_matches_the_batch_decoder():
    from fast_transformers.attention import AttentionLayer, CausalLinearAttention, FullAttention
    from fast_transformers.masking import TriangularCausalMask
    from fast_transformers.recurrent.attention import (
        RecurrentAttentionLayer,
        RecurrentCrossAttentionLayer,
        RecurrentCrossFullAttention,
        RecurrentLinearAttention,
    )
    from fast_transformers.recurrent.transformers import RecurrentTransformerDecoderLayer
    from fast_transformers.transformers import TransformerDecoderLayer

    batch = TransformerDecoderLayer(
        AttentionLayer(CausalLinearAttention(D), E, H), AttentionLayer(FullAttention(), E, H), E
    ).eval()
    recurrent = RecurrentTransformerDecoderLayer(
        RecurrentAttentionLayer(RecurrentLinearAttention(D), E, H),
        RecurrentCrossAttentionLayer(RecurrentCrossFullAttention(), E, H),
        E,
    ).eval()
    recurrent.load_state_dict(batch.state_dict())
    x, memory = torch.randn(N, L, E), torch.randn(N, S, E)
    state, steps = None, []
    for i in range(L):
        y_i, state = recurrent(x[:, i], memory, state=state)
        assert y_i.shape == (N, E)
        steps.append(y_i)
    assert_close(torch.stack(steps, dim=1), batch(x, memory, x_mask=TriangularCausalMask(L)))


@pytest.mark.claim("lib.ft-state-feature-maps", decides="holds")
def test_linear_attention_state_is_a_fixed_size_sum_of_feature_mapped_keys():
    from fast_transformers.recurrent.attention import RecurrentLinearAttention

    attention = RecurrentLinearAttention(D)
    phi = lambda t: torch.nn.functional.elu(t) + 1  # the default feature map
    q, k, v = (torch.randn(L, N, H, D) for _ in range(3))
    state = None
    for t in range(L):
        out, state = attention(q[t], k[t], v[t], state=state)
    S_state, Z_state = state
    assert S_state.shape == (N, H, D, D) and Z_state.shape == (N, H, D), "does not grow with the steps"
    assert_close(S_state, torch.einsum("tnhd,tnhm->nhdm", phi(k), v))
    assert_close(Z_state, phi(k).sum(0))
    expected = torch.einsum("nhd,nhdm->nhm", phi(q[-1]), S_state)
    expected = expected / (torch.einsum("nhd,nhd->nh", phi(q[-1]), Z_state) + 1e-6)[..., None]
    assert_close(out, expected)


@pytest.mark.claim("lib.ft-state-feature-maps", decides="left-out")
def test_full_attention_state_keeps_every_key_and_value_and_uses_softmax():
    from fast_transformers.recurrent.attention import RecurrentFullAttention

    attention = RecurrentFullAttention().eval()
    q, k, v = (torch.randn(L, N, H, D) for _ in range(3))
    state = None
    for t in range(L):
        out, state = attention(q[t], k[t], v[t], state=state)
        keys, values = state
        assert keys.shape == values.shape == (N, H, t + 1, D), "the state grows by one key/value per step"
    assert_close(keys, k.permute(1, 2, 0, 3))
    scores = torch.einsum("nhd,tnhd->nht", q[-1], k) / D**0.5
    assert_close(out, torch.einsum("nht,tnhm->nhm", torch.softmax(scores, dim=-1), v))


@pytest.mark.claim("lib.ft-builders")
def test_note_builders_give_a_batch_encoder_and_its_recurrent_twin():
    from fast_transformers.builders import RecurrentEncoderBuilder, TransformerEncoderBuilder
    from fast_transformers.masking import TriangularCausalMask
    from fast_transformers.recurrent.transformers import RecurrentTransformerEncoder
    from fast_transformers.transformers import TransformerEncoder

    encoder = TransformerEncoderBuilder.from_kwargs(**BUILDER_KWARGS).get().eval()
    rnn = RecurrentEncoderBuilder.from_kwargs(**BUILDER_KWARGS).get().eval()
    assert type(encoder) is TransformerEncoder and type(rnn) is RecurrentTransformerEncoder
    assert len(encoder.layers) == len(rnn.layers) == 2
    assert encoder.layers[0].linear1.out_features == 2048
    # the same parameter names: the trained weights load into the inference model as they are
    rnn.load_state_dict(encoder.state_dict())
    x = torch.randn(N, L, E)
    state, steps = None, []
    for i in range(L):
        y_i, state = rnn(x[:, i], state=state)
        steps.append(y_i)
    assert_close(torch.stack(steps, dim=1), encoder(x, attn_mask=TriangularCausalMask(L)))


@pytest.mark.claim("lib.ft-builders")
def test_causal_linear_encoder_needs_an_explicit_triangular_mask():
    from fast_transformers.builders import TransformerEncoderBuilder

    encoder = TransformerEncoderBuilder.from_kwargs(**BUILDER_KWARGS).get().eval()
    # the default attn_mask is a FullMask, which causal-linear attention refuses
    with pytest.raises(RuntimeError, match="CausalLinearAttention only supports full lower triangular masks"):
        encoder(torch.randn(N, L, E))


@pytest.mark.claim("lib.ft-masks")
def test_mask_signatures_match_the_note():
    from fast_transformers.masking import FullMask, LengthMask, TriangularCausalMask

    assert signature_parameters(FullMask.__init__) == [("mask", None), ("N", None), ("M", None), ("device", "cpu")]
    assert signature_parameters(LengthMask.__init__) == [("lengths", EMPTY), ("max_len", None), ("device", None)]
    assert signature_parameters(TriangularCausalMask.__init__) == [("N", EMPTY), ("device", "cpu")]


@pytest.mark.claim("lib.ft-masks")
def test_masks_hold_the_expected_boolean_and_additive_matrices():
    from fast_transformers.masking import FullMask, LengthMask, TriangularCausalMask

    full = FullMask(N=3, M=4)
    assert torch.equal(full.bool_matrix, torch.ones(3, 4, dtype=torch.bool)) and full.all_ones
    lengths = torch.tensor([2, 4])
    length = LengthMask(lengths, max_len=5)
    assert torch.equal(length.bool_matrix, torch.arange(5)[None] < lengths[:, None])
    assert torch.equal(length.lengths, lengths)
    causal = TriangularCausalMask(4)
    assert torch.equal(causal.bool_matrix, torch.ones(4, 4, dtype=torch.bool).tril()) and causal.lower_triangular
    expected_additive = torch.zeros(4, 4).masked_fill(~torch.ones(4, 4, dtype=torch.bool).tril(), float("-inf"))
    assert torch.equal(causal.additive_matrix, expected_additive)


@pytest.mark.claim("lib.ft-masks")
def test_length_mask_makes_padding_invisible_to_full_attention():
    from fast_transformers.masking import LengthMask

    layer = full_attention_layer()
    x = torch.randn(1, L, E)
    padded = layer(x, length_mask=LengthMask(torch.tensor([3]), max_len=L))
    assert_close(padded[:, :3], layer(x[:, :3]))

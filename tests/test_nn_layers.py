"""Layers: Conv2d vs F.conv2d, 'same' padding, global average pooling, Linear, Embedding.

Notes: 000_03e1e7bc9bbd04f1.txt › 1. 模型 (nn.Xxx vs nn.functional.xxx);
002_d3afcdbaa9416717.txt › 卷积层, › GAP层(Global average pooling)层;
003_df07c2a5da61a567.txt › 4 torch 神经网络 (nn.Linear on >2-D input, forward as a product with
the weight matrix, .to(device) vs device=, nn.Embedding); 001_eaed12e493b64ab2.txt › 2. Layers 层.
"""
import itertools

import pytest
import torch
import torch.nn.functional as F
from torch import nn
from torch.testing import assert_close

from fixtures import signatures
from fixtures.boundaries import FACTORY_KWARGS_SINCE
from fixtures.threads import one_thread


@pytest.mark.claim("nn.functional-vs-module")
def test_conv2d_layer_equals_f_conv2d_given_its_weight_bias_and_settings(device):
    conv = nn.Conv2d(3, 4, 3, stride=2, padding=1).to(device)
    x = torch.randn(2, 3, 9, 9, device=device)
    functional = F.conv2d(x, conv.weight, conv.bias, stride=2, padding=1)
    assert torch.equal(conv(x), functional)
    # the function keeps no state: the settings are the caller's to pass
    assert F.conv2d(x, conv.weight, conv.bias).shape != conv(x).shape



# other nn.Xxx / nn.functional.xxx pairs: the layer object holds its weights and settings,
# the function is handed them on every call
FUNCTIONAL_PAIRS = {
    "linear": (lambda: nn.Linear(4, 3), lambda m, x: F.linear(x, m.weight, m.bias), (5, 4)),
    "conv1d": (lambda: nn.Conv1d(2, 3, 3, padding=1), lambda m, x: F.conv1d(x, m.weight, m.bias, padding=1), (2, 2, 7)),
    "max_pool2d": (lambda: nn.MaxPool2d(2), lambda m, x: F.max_pool2d(x, 2), (1, 2, 6, 6)),
    "batch_norm2d-eval": (lambda: nn.BatchNorm2d(2).eval(),
                          lambda m, x: F.batch_norm(x, m.running_mean, m.running_var, m.weight, m.bias,
                                                    training=False, eps=m.eps), (3, 2, 4, 4)),
    "embedding": (lambda: nn.Embedding(10, 3), lambda m, x: F.embedding(x, m.weight), None),
}


@pytest.mark.claim("nn.functional-vs-module", decides="holds")
@pytest.mark.parametrize("pair", sorted(FUNCTIONAL_PAIRS))
def test_other_layer_objects_equal_their_functional_given_the_layers_weights(pair):
    make, functional, shape = FUNCTIONAL_PAIRS[pair]
    torch.manual_seed(0)
    layer = make()
    x = torch.randint(0, 10, (2, 5)) if shape is None else torch.randn(*shape)
    assert torch.equal(layer(x), functional(layer, x)), pair

@pytest.mark.claim("nn.conv-same-padding")
@pytest.mark.parametrize("in_channels, out_channels", [(1, 1), (3, 8)], ids=["1to1", "3to8"])
def test_kernel3_stride1_padding1_conv_keeps_height_and_width(in_channels, out_channels):
    conv = torch.nn.Conv2d(in_channels, out_channels, kernel_size=3, stride=1, padding=1, bias=True)
    sizes = [1, 2, 3, 8, 17]  # 1 and 2: smaller than the kernel
    with one_thread():
        for h, w in itertools.product(sizes, sizes):
            y = conv(torch.randn(2, in_channels, h, w))
            assert tuple(y.shape) == (2, out_channels, h, w), f"input {h}x{w} -> {tuple(y.shape)}"


@pytest.mark.claim("nn.conv-same-padding")
def test_without_padding_a_kernel3_conv_shrinks_by_two():
    x = torch.randn(1, 1, 8, 6)
    assert tuple(nn.Conv2d(1, 1, 3, padding=0)(x).shape) == (1, 1, 6, 4)


@pytest.mark.claim("nn.gap")
@pytest.mark.parametrize("hw", [(1, 1), (5, 7), (16, 16)], ids=lambda hw: f"{hw[0]}x{hw[1]}")
def test_adaptive_avg_pool_1_is_the_mean_over_height_and_width(hw):
    gap = torch.nn.AdaptiveAvgPool2d(output_size=1)
    x = torch.randn(2, 3, *hw)
    y = gap(x)
    assert tuple(y.shape) == (2, 3, 1, 1)
    assert_close(y, x.mean(dim=(2, 3), keepdim=True))


@pytest.mark.claim("nn.linear-last-dim")
@pytest.mark.parametrize(
    "lead",
    [(), (5,), (2, 3), (2, 0, 3), (1, 1, 1, 1)],
    ids=lambda lead: "x".join(map(str, lead)) or "1-D",
)
def test_linear_maps_only_the_last_dim(lead):
    lin = nn.Linear(4, 3)
    x = torch.randn(*lead, 4)
    y = lin(x)
    assert tuple(y.shape) == (*lead, 3)
    rows = x.reshape(-1, 4) @ lin.weight.detach().T + lin.bias.detach()
    assert_close(y.detach(), rows.reshape(*lead, 3))


@pytest.mark.claim("nn.linear-last-dim")
def test_linear_ignores_a_matching_size_in_any_other_dim():
    lin = nn.Linear(4, 3)
    with pytest.raises(RuntimeError, match="cannot be multiplied"):
        lin(torch.randn(4, 5))  # in_features sits in dim 0, not the last dim


@pytest.mark.claim("nn.linear-weight-orientation", decides="wrong")
def test_linear_multiplies_by_the_transposed_weight():
    lin = nn.Linear(3, 2)
    assert tuple(lin.weight.shape) == (2, 3), "weight is (out_features, in_features)"
    x = torch.randn(5, 3)
    w, b = lin.weight.detach(), lin.bias.detach()
    assert_close(lin(x).detach(), x @ w.T + b)
    with pytest.raises(RuntimeError, match="cannot be multiplied"):
        x @ w  # the product with the weight matrix as stored does not even fit


@pytest.mark.claim("nn.linear-device-kwarg", decides="wrong")
@pytest.mark.needs(min_torch=FACTORY_KWARGS_SINCE)
def test_layers_can_be_created_on_a_device_with_the_device_keyword(device):
    lin = nn.Linear(3, 2, device=device)
    assert {p.device.type for p in lin.parameters()} == {device}
    assert lin(torch.randn(4, 3, device=device)).device.type == device


@pytest.mark.claim("nn.linear-device-kwarg", decides="wrong")
@pytest.mark.needs(min_torch=FACTORY_KWARGS_SINCE)
def test_device_and_dtype_keywords_place_parameters_without_a_gpu():
    # the meta device shows the keyword at work on any machine: no .to() involved
    meta = nn.Linear(3, 2, device="meta")
    assert {p.device.type for p in meta.parameters()} == {"meta"}
    double = nn.Conv2d(1, 1, 3, dtype=torch.float64)
    assert {p.dtype for p in double.parameters()} == {torch.float64}


@pytest.mark.claim("nn.linear-device-kwarg", decides="holds")
@pytest.mark.needs(max_torch=FACTORY_KWARGS_SINCE)
def test_before_factory_kwargs_layers_reject_the_device_keyword():
    with pytest.raises(TypeError, match="device"):
        nn.Linear(3, 2, device="cpu")


# the note prints nn.Embedding's two leading parameters (001 › 2. Layers 层), a signature claim
NOTE_EMBEDDING = [("num_embeddings", signatures.EMPTY), ("embedding_dim", signatures.EMPTY)]
SIGNATURES = {"nn.embedding-shape": (lambda: signatures.signature_parameters(nn.Embedding.__init__), NOTE_EMBEDDING)}


@pytest.mark.claim("nn.embedding-shape", half="holding")
def test_embedding_signature_starts_with_the_notes_two_parameters():
    wrong, _ = signatures.compare(signatures.signature_parameters(nn.Embedding.__init__), NOTE_EMBEDDING)
    assert wrong == [], f"printed vs installed: {wrong}"


@pytest.mark.claim("nn.embedding-shape", half="failing")
def test_embedding_signature_has_more_parameters_than_the_note_prints():
    _, missing = signatures.compare(signatures.signature_parameters(nn.Embedding.__init__), NOTE_EMBEDDING)
    # padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse, _weight come first in every release
    assert [name for name, _ in missing[:6]] == ["padding_idx", "max_norm", "norm_type", "scale_grad_by_freq",
                                                  "sparse", "_weight"], f"parameters after the note's two: {missing}"
    assert nn.Embedding(10, 3, padding_idx=0).weight[0].abs().sum().item() == 0, "padding_idx row is zeros"


@pytest.mark.claim("nn.embedding-lookup", decides="holds")
def test_embedding_weight_shape_and_row_lookup():
    emb = nn.Embedding(10, 3)
    assert tuple(emb.weight.shape) == (10, 3)
    idx = torch.tensor([[1, 4], [9, 0]])
    out = emb(idx)
    assert tuple(out.shape) == (2, 2, 3)
    assert torch.equal(out, emb.weight[idx])


@pytest.mark.claim("nn.embedding-lookup", decides="holds")
def test_embedding_rejects_out_of_range_indices_and_float_one_hot_input():
    emb = nn.Embedding(10, 3)
    with pytest.raises(IndexError, match="index out of range"):
        emb(torch.tensor([10]))
    one_hot = F.one_hot(torch.tensor([4]), 10)
    with pytest.raises(RuntimeError, match="Long, Int"):
        emb(one_hot.float())
    # an integer one-hot vector is read as ten indices (0s and a 1), not as "row 4"
    looked_up = emb(one_hot)
    assert tuple(looked_up.shape) == (1, 10, 3)
    assert torch.equal(looked_up[0], emb.weight[one_hot[0]])
    assert not torch.equal(looked_up[0, 4], emb.weight[4])

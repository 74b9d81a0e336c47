"""Recurrent layers: nn.LSTM's signature, nn.RNN's defaults, formula, shapes, output vs h_n.

Notes: 001_eaed12e493b64ab2.txt › 2. Layers 层 (torch.nn.LSTM signature);
003_df07c2a5da61a567.txt › 4 torch 神经网络 (rnn = nn.RNN(...): arguments and defaults, no
.weight/.bias, rnn(X, H) formula, shape of H, H vs H_n).
"""
import inspect

import pytest
import torch
from torch import nn
from torch.testing import assert_close

from fixtures import signatures
from fixtures.signatures import parameters_without_self

T, N, IN, HID = 6, 3, 4, 5  # time steps, batch, input features, hidden size

_REQUIRED = inspect.Parameter.empty
# nn.LSTM's constructor as the note prints it (001 › 2. Layers 层): (name, default).
NOTE_LSTM_PARAMETERS = [
    ("input_size", _REQUIRED), ("hidden_size", _REQUIRED), ("num_layers", 1), ("bias", True),
    ("batch_first", False), ("dropout", 0),
]


def lstm_constructor_parameters():
    """(name, default) of nn.LSTM's constructor parameters, in order.

    nn.LSTM.__init__ is (*args, **kwargs) handed on to RNNBase.__init__(mode, ...), so the
    real parameter list is RNNBase's without self and mode.
    """
    params = parameters_without_self(nn.LSTM.__init__)
    if [p.kind for p in params] == [inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD]:
        params = parameters_without_self(nn.RNNBase.__init__)[1:]  # without mode
    return [(p.name, p.default) for p in params]


SIGNATURES = {"nn.lstm-signature": (lambda: lstm_constructor_parameters(), NOTE_LSTM_PARAMETERS)}


def manual_rnn_layer(x, h0, rnn, layer=0, suffix="", act=torch.tanh):
    """h_t = act(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh) with the module's own weights."""
    w_ih = getattr(rnn, f"weight_ih_l{layer}{suffix}").detach()
    w_hh = getattr(rnn, f"weight_hh_l{layer}{suffix}").detach()
    b_ih = getattr(rnn, f"bias_ih_l{layer}{suffix}").detach()
    b_hh = getattr(rnn, f"bias_hh_l{layer}{suffix}").detach()
    h, states = h0, []
    for x_t in x:
        h = act(x_t @ w_ih.T + b_ih + h @ w_hh.T + b_hh)
        states.append(h)
    return torch.stack(states)


@pytest.mark.claim("nn.lstm-signature", half="failing")
def test_lstm_constructor_has_four_parameters_more_than_the_note_prints():
    _, extra = signatures.compare(lstm_constructor_parameters(), NOTE_LSTM_PARAMETERS)
    assert extra == [("bidirectional", False), ("proj_size", 0), ("device", None), ("dtype", None)], (
        f"parameters after the note's six: {extra}, expected bidirectional, proj_size, device, dtype"
    )
    # the extra parameters are real: bidirectional is the 7th positional one, proj_size a keyword
    lstm = nn.LSTM(IN, HID, 1, True, False, 0.0, True, proj_size=2)
    assert lstm.bidirectional and lstm.proj_size == 2
    assert tuple(lstm.weight_hr_l0.shape) == (2, HID) and hasattr(lstm, "weight_ih_l0_reverse")


@pytest.mark.claim("nn.lstm-signature", half="holding")
def test_lstm_defaults_and_positional_order():
    wrong, _ = signatures.compare(lstm_constructor_parameters(), NOTE_LSTM_PARAMETERS)
    assert wrong == [], f"printed vs installed: {wrong}"
    lstm = nn.LSTM(IN, HID)
    assert (lstm.num_layers, lstm.bias, lstm.batch_first, lstm.dropout) == (1, True, False, 0.0)
    # positional order: input_size, hidden_size, num_layers, bias, batch_first, dropout
    lstm2 = nn.LSTM(IN, HID, 2, False, True, 0.25)
    assert (lstm2.num_layers, lstm2.bias, lstm2.batch_first, lstm2.dropout) == (2, False, True, 0.25)
    assert not any("bias" in name for name, _ in lstm2.named_parameters())


@pytest.mark.claim("nn.lstm-signature", half="holding")
def test_lstm_takes_x_and_h0_c0_and_returns_y_and_hn_cn():
    lstm = nn.LSTM(IN, HID)
    x = torch.randn(T, N, IN)
    h0, c0 = torch.randn(1, N, HID), torch.randn(1, N, HID)
    y, (h_n, c_n) = lstm(x, (h0, c0))
    assert tuple(y.shape) == (T, N, HID)
    assert tuple(h_n.shape) == tuple(c_n.shape) == (1, N, HID)
    assert_close(y[-1], h_n[0])
    # (h0, c0) really is the starting state: two halves chained through (h, c) equal one run
    y1, state = lstm(x[:2], (h0, c0))
    y2, (h2, c2) = lstm(x[2:], state)
    assert_close(torch.cat([y1, y2]), y)
    assert_close((h2, c2), (h_n, c_n))
    y_zero, _ = lstm(x)  # omitted state means zeros, which gives another result
    assert not torch.allclose(y_zero, y)


@pytest.mark.claim("nn.rnn-defaults", decides="holds")
def test_rnn_default_arguments():
    rnn = nn.RNN(IN, HID)
    assert (rnn.num_layers, rnn.nonlinearity, rnn.bias, rnn.batch_first, rnn.dropout, rnn.bidirectional) == (
        1, "tanh", True, False, 0.0, False
    )
    assert [n for n, _ in rnn.named_parameters()] == ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0"]
    with pytest.raises(ValueError, match="Unknown nonlinearity"):
        nn.RNN(IN, HID, nonlinearity="sigmoid")


@pytest.mark.claim("nn.rnn-defaults", decides="holds")
def test_relu_nonlinearity_and_bias_false():
    x = torch.randn(T, N, IN)
    relu = nn.RNN(IN, HID, nonlinearity="relu")
    out, _ = relu(x)
    assert_close(out.detach(), manual_rnn_layer(x, torch.zeros(N, HID), relu, act=torch.relu))
    assert [n for n, _ in nn.RNN(IN, HID, bias=False).named_parameters()] == ["weight_ih_l0", "weight_hh_l0"]


@pytest.mark.claim("nn.rnn-defaults", decides="holds")
def test_batch_first_swaps_only_the_input_and_output_layout():
    tf = nn.RNN(IN, HID)
    bf = nn.RNN(IN, HID, batch_first=True)
    bf.load_state_dict(tf.state_dict())
    x = torch.randn(T, N, IN)  # (time, batch, feature)
    out_tf, h_tf = tf(x)
    out_bf, h_bf = bf(x.transpose(0, 1))  # (batch, time, feature)
    assert_close(out_bf, out_tf.transpose(0, 1))
    assert_close(h_bf, h_tf)


@pytest.mark.claim("nn.rnn-defaults", decides="holds")
def test_default_dropout_zero_makes_training_mode_deterministic():
    rnn = nn.RNN(IN, HID, num_layers=2).train()
    x = torch.randn(T, N, IN)
    assert torch.equal(rnn(x)[0], rnn(x)[0])



@pytest.mark.claim("nn.rnn-defaults", decides="holds")
def test_each_of_num_layers_hidden_layers_has_hidden_size_neurons():
    rnn = nn.RNN(IN, HID, num_layers=3)
    for k in range(3):
        assert tuple(getattr(rnn, f"weight_hh_l{k}").shape) == (HID, HID), k
        assert tuple(getattr(rnn, f"weight_ih_l{k}").shape) == (HID, IN if k == 0 else HID), k
    out, h_n = rnn(torch.randn(T, N, IN))
    assert tuple(h_n.shape) == (3, N, HID) and tuple(out.shape) == (T, N, HID)


@pytest.mark.claim("nn.rnn-defaults", decides="left-out")
def test_dropout_follows_every_hidden_layer_but_the_last():
    x = torch.randn(T, N, IN)
    # one hidden layer: the note's dropout "after each hidden layer" would drop its output; torch drops nothing
    with pytest.warns(UserWarning, match="dropout option adds dropout after all but last recurrent layer"):
        one = nn.RNN(IN, HID, dropout=0.5).train()
    assert_close(one(x)[0].detach(), manual_rnn_layer(x, torch.zeros(N, HID), one)), "no dropout on its output"
    # two hidden layers: dropout acts between them (two draws differ), never on the last layer's output
    two = nn.RNN(IN, HID, num_layers=2, dropout=0.5).train()
    torch.manual_seed(0)
    first = two(x)[0]
    torch.manual_seed(1)
    second = two(x)[0]
    assert not torch.equal(first, second), "dropout between the layers changes the output"
    zeros = int((first == 0).sum()) + int((second == 0).sum())
    assert zeros == 0, f"{zeros} output elements are exactly 0: the last layer's output was dropped"


@pytest.mark.claim("nn.rnn-size-args", decides="holds")
def test_input_size_is_the_features_of_a_sample_and_hidden_size_the_neurons_of_a_layer():
    rnn = nn.RNN(IN, HID)
    assert tuple(rnn.weight_ih_l0.shape) == (HID, IN) and tuple(rnn.weight_hh_l0.shape) == (HID, HID)
    out, h_n = rnn(torch.randn(T, N, IN))  # each of the N samples has IN features per time step
    assert tuple(out.shape) == (T, N, HID) and tuple(h_n.shape) == (1, N, HID), "HID neurons per state"
    wrong_features = rf"input.size\(-1\) must be equal to input_size. Expected {IN}, got {IN + 1}"
    with pytest.raises(RuntimeError, match=wrong_features):
        rnn(torch.randn(T, N, IN + 1))

@pytest.mark.claim("nn.rnn-no-weight-attr")
def test_rnn_parameters_are_not_reachable_through_weight_or_bias():
    rnn = nn.RNN(IN, HID)
    with pytest.raises(AttributeError, match="'RNN' object has no attribute 'weight'"):
        rnn.weight
    # .bias exists, but it is the constructor's bias flag, not a tensor
    assert rnn.bias is True
    assert not any(p is rnn.bias for p in rnn.parameters())
    # the parameters live under per-layer names
    params = dict(rnn.named_parameters())
    assert rnn.weight_ih_l0 is params["weight_ih_l0"] and rnn.bias_hh_l0 is params["bias_hh_l0"]


@pytest.mark.claim("nn.rnn-formula")
@pytest.mark.parametrize("nonlinearity", ["tanh", "relu"])
def test_rnn_output_is_the_recurrence_computed_by_hand(nonlinearity):
    rnn = nn.RNN(IN, HID, nonlinearity=nonlinearity)
    x, h0 = torch.randn(T, N, IN), torch.randn(1, N, HID)
    out, h_n = rnn(x, h0)
    expected = manual_rnn_layer(x, h0[0], rnn, act=getattr(torch, nonlinearity))
    assert_close(out.detach(), expected)
    # hidden states only: no output projection, the last dim is hidden_size
    assert out.shape[-1] == HID


@pytest.mark.claim("nn.rnn-formula")
def test_two_layer_rnn_feeds_layer0_states_into_layer1():
    rnn = nn.RNN(IN, HID, num_layers=2)
    x, h0 = torch.randn(T, N, IN), torch.randn(2, N, HID)
    out, h_n = rnn(x, h0)
    layer0 = manual_rnn_layer(x, h0[0], rnn, layer=0)
    layer1 = manual_rnn_layer(layer0, h0[1], rnn, layer=1)
    assert_close(out.detach(), layer1)
    assert_close(h_n.detach(), torch.stack([layer0[-1], layer1[-1]]))


SHAPE_CASES = [
    pytest.param(1, False, False, id="1-layer"),
    pytest.param(2, False, False, id="2-layer"),
    pytest.param(1, True, False, id="bidirectional"),
    pytest.param(3, True, True, id="3-layer-bidirectional-batch_first"),
]


@pytest.mark.claim("nn.rnn-hidden-shape", decides="wrong")
@pytest.mark.parametrize("layers, bidirectional, batch_first", SHAPE_CASES)
def test_h_n_is_3d_layers_times_directions_by_batch_by_hidden(layers, bidirectional, batch_first):
    d = 2 if bidirectional else 1
    rnn = nn.RNN(IN, HID, num_layers=layers, bidirectional=bidirectional, batch_first=batch_first)
    x = torch.randn(N, T, IN) if batch_first else torch.randn(T, N, IN)
    out, h_n = rnn(x)
    assert tuple(h_n.shape) == (d * layers, N, HID), "no time dimension, batch_first or not"
    assert tuple(out.shape) == ((N, T, d * HID) if batch_first else (T, N, d * HID))


@pytest.mark.claim("nn.rnn-hidden-shape", decides="wrong")
def test_a_4d_hidden_state_as_the_note_describes_is_rejected():
    rnn = nn.RNN(IN, HID)
    with pytest.raises(RuntimeError, match="3-D"):
        rnn(torch.randn(T, N, IN), torch.zeros(1, T, N, HID))


@pytest.mark.claim("nn.rnn-output-vs-hn", decides="holds")
def test_single_layer_h_n_is_the_last_output_step():
    rnn = nn.RNN(IN, HID)
    out, h_n = rnn(torch.randn(T, N, IN))
    assert_close(h_n[0], out[-1])


@pytest.mark.claim("nn.rnn-output-vs-hn", decides="left-out")
def test_multi_layer_h_n_holds_every_layer_but_output_only_the_last():
    rnn = nn.RNN(IN, HID, num_layers=2)
    out, h_n = rnn(torch.randn(T, N, IN))
    assert h_n.shape[0] == 2
    assert_close(h_n[-1], out[-1])
    assert not torch.allclose(h_n[0], out[-1]), "layer 0's final state is not in output"


@pytest.mark.claim("nn.rnn-output-vs-hn", decides="left-out")
def test_bidirectional_backward_final_state_is_the_first_output_step():
    rnn = nn.RNN(IN, HID, bidirectional=True)
    out, h_n = rnn(torch.randn(T, N, IN))
    forward_final, backward_final = h_n
    assert_close(forward_final, out[-1, :, :HID])
    assert_close(backward_final, out[0, :, HID:])
    assert not torch.allclose(backward_final, out[-1, :, HID:]), "the last output step is not h_n here"

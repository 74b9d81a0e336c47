"""nn.RNN whose h_n is output's last element for every layer, as the note describes it: each layer's
(and direction's) entry of h_n is the last time step of output.

Makes the note right about nn.rnn-output-vs-hn, which is refuted: its tests must go red.
"""
from torch import nn

_rnn_forward = nn.RNN.forward


def rnn_forward(self, input, hx=None):
    out, h_n = _rnn_forward(self, input, hx)
    directions = 2 if self.bidirectional else 1
    last = out[-1] if not self.batch_first else out[:, -1]
    per_direction = last.reshape(last.shape[0], directions, self.hidden_size).transpose(0, 1)
    return out, per_direction.repeat(self.num_layers, 1, 1).contiguous()


def apply():
    nn.RNN.forward = rnn_forward

"""nn.LSTM whose constructor is exactly the note's six parameters.

Makes nn.lstm-signature wrong: no parameters after the note's six.
"""
from torch import nn


class NoteLSTM(nn.LSTM):
    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0):
        super().__init__(input_size, hidden_size, num_layers, bias, batch_first, dropout)


def apply():
    nn.LSTM = NoteLSTM

"""fast_transformers' RecurrentFullAttention that computes its state with feature maps, as the note says
every recurrent state does: it runs the linear attention (a fixed-size sum of feature-mapped keys), no
softmax over kept keys.

Makes the note right where lib.ft-state-feature-maps's failing half says it is wrong: its left-out test
goes red.
"""
from fast_transformers.recurrent.attention import RecurrentFullAttention, RecurrentLinearAttention


def forward(self, query, key, value, state=None, memory=None):
    linear = self.__dict__.setdefault("_world_linear", RecurrentLinearAttention(query.shape[-1]))
    return linear(query, key, value, state=state)


def apply():
    RecurrentFullAttention.forward = forward

"""fast_transformers' TransformerEncoderLayer with the note's signature: (attention, d_model, n_heads,
d_ff=None, dropout=0.1, activation="relu"), the heads taken where the note puts them.

Makes the note right about lib.ft-encoder-layer, which is refuted: its wrong tests go red.
"""
import fast_transformers.transformers as T

_init = T.TransformerEncoderLayer.__init__


def init(self, attention, d_model, n_heads, d_ff=None, dropout=0.1, activation="relu"):
    _init(self, attention, d_model, d_ff, dropout, activation)


def apply():
    T.TransformerEncoderLayer.__init__ = init

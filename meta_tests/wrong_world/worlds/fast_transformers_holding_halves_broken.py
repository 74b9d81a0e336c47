"""The holding halves of the partly fast_transformers claims broken: a printed default differs
(TransformerDecoderLayer dropout=0.2) and the note's forward(x, state) is named otherwise
(forward(x, hidden=None, memory=None)); the parameters the note leaves out are kept.

Makes lib.ft-decoder-layer and lib.ft-recurrent-encoder read failed, not partly.
"""
import fast_transformers.recurrent.transformers as R
import fast_transformers.transformers as T

_decoder = T.TransformerDecoderLayer.__init__
_recurrent_forward = R.RecurrentTransformerEncoderLayer.forward


def decoder_init(self, self_attention, cross_attention, d_model, d_ff=None, dropout=0.2, activation="relu",
                 event_dispatcher=""):
    _decoder(self, self_attention, cross_attention, d_model, d_ff, dropout, activation, event_dispatcher)


def recurrent_forward(self, x, hidden=None, memory=None):
    return _recurrent_forward(self, x, hidden, memory)


def apply():
    T.TransformerDecoderLayer.__init__ = decoder_init
    R.RecurrentTransformerEncoderLayer.forward = recurrent_forward

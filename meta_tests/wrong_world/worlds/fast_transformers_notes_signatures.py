"""The note's signatures of the fast_transformers layers (no event_dispatcher, no memory).

Makes lib.ft-decoder-layer, lib.ft-recurrent-encoder and lib.ft-recurrent-decoder wrong.
"""
import fast_transformers.recurrent.transformers as R
import fast_transformers.transformers as T

_decoder, _recurrent_decoder = T.TransformerDecoderLayer.__init__, R.RecurrentTransformerDecoderLayer.__init__
_recurrent_forward = R.RecurrentTransformerEncoderLayer.forward


def decoder_init(self, self_attention, cross_attention, d_model, d_ff=None, dropout=0.1, activation="relu"):
    _decoder(self, self_attention, cross_attention, d_model, d_ff, dropout, activation)


def recurrent_decoder_init(self, self_attention, cross_attention, d_model, d_ff=None, dropout=0.1):
    _recurrent_decoder(self, self_attention, cross_attention, d_model, d_ff, dropout)


def recurrent_forward(self, x, state=None):
    return _recurrent_forward(self, x, state)


def apply():
    T.TransformerDecoderLayer.__init__ = decoder_init
    R.RecurrentTransformerDecoderLayer.__init__ = recurrent_decoder_init
    R.RecurrentTransformerEncoderLayer.forward = recurrent_forward

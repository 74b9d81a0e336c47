"""The note's world: a Hugging Face tokenizer's padding=True pads every sequence to max_length.

Makes lib.hf-padding-max-length wrong.
"""
from transformers import tokenization_utils_base as base

_call = base.PreTrainedTokenizerBase.__call__


def __call__(self, *args, padding=False, max_length=None, **kwargs):
    if padding is True and max_length is not None:
        padding = "max_length"
    return _call(self, *args, padding=padding, max_length=max_length, **kwargs)


def apply():
    base.PreTrainedTokenizerBase.__call__ = __call__

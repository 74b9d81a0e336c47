"""A Hugging Face tokenizer call that hands back a plain dict.

Makes lib.hf-call-returns wrong.
"""
from transformers import tokenization_utils_base as base

_call = base.PreTrainedTokenizerBase.__call__


def __call__(self, *args, **kwargs):
    return dict(_call(self, *args, **kwargs))


def apply():
    base.PreTrainedTokenizerBase.__call__ = __call__

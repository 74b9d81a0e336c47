"""A Hugging Face tokenizer call that ignores return_tensors: lists of ints come back even for "pt".

Makes lib.hf-call-returns's holding half (return_tensors='pt' gives int64 tensors) wrong: its
holding-half test goes red.
"""
from transformers import tokenization_utils_base as base

_call = base.PreTrainedTokenizerBase.__call__


def __call__(self, *args, return_tensors=None, **kwargs):
    return _call(self, *args, **kwargs)


def apply():
    base.PreTrainedTokenizerBase.__call__ = __call__

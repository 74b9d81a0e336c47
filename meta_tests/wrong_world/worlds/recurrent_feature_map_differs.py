"""Recurrent linear attention with another feature map (relu + 1) than the batch one.

Makes lib.ft-recurrent-encoder, lib.ft-builders and lib.ft-state-feature-maps wrong.
"""
import fast_transformers.recurrent.attention.self_attention.linear_attention as recurrent_linear
import torch
from fast_transformers.feature_maps import ActivationFunctionFeatureMap


def apply():
    recurrent_linear.elu_feature_map = ActivationFunctionFeatureMap.factory(lambda x: torch.relu(x) + 1)

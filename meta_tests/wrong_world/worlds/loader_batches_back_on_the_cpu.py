"""DataLoader batches of CUDA TensorDataset tensors that come back on the CPU (the fetcher moves each batch).

Makes data.tensordataset-device wrong.
"""
import torch
from torch.utils.data._utils import fetch

_fetch = fetch._MapDatasetFetcher.fetch


def _cpu(batch):
    if isinstance(batch, torch.Tensor):
        return batch.cpu()
    if isinstance(batch, (list, tuple)):
        return type(batch)(_cpu(b) for b in batch)
    return batch


def fetch_on_cpu(self, *args, **kwargs):
    return _cpu(_fetch(self, *args, **kwargs))  # every batch leaves the loader on the CPU


def apply():
    fetch._MapDatasetFetcher.fetch = fetch_on_cpu

"""torchvision's datasets outside the Dataset hierarchy, and a DataLoader that also requires batch_size.

Makes data.datasets-subclass-dataset and data.dataset-only-required-arg wrong.
"""
import torchvision.datasets as tv_datasets
from torch.utils import data

_init = data.DataLoader.__init__


def __init__(self, dataset, batch_size, *args, **kwargs):
    _init(self, dataset, batch_size, *args, **kwargs)


def apply():
    tv_datasets.MNIST = type("MNIST", (), {})  # a dataset class of its own, no Dataset base
    data.DataLoader.__init__ = __init__

"""torch.utils.data as the notes describe it (independent patches, one spec run):

- a Dataset subclass must override __init__, __len__ and __getitem__: the base Dataset's __len__
  raises NotImplementedError, and a DataLoader refuses a map-style dataset whose class keeps the
  base's __init__ or __len__                           -> data.dataset-required-methods
- a DataLoader is an iterator: next(loader) draws the next batch of a pass the loader keeps
                                                       -> data.dataloader-is-iterator
- the DataLoader's iterators keep Python 2's .next() method (removed in torch 1.13)
                                                       -> data.iter-next-method

Makes the note right about each; all three are refuted (data.iter-next-method from torch 1.13):
their tests must go red.
"""
from torch.utils.data import DataLoader, Dataset, IterableDataset
from torch.utils.data.dataloader import _BaseDataLoaderIter

_init = DataLoader.__init__


def dataset_len(self):
    raise NotImplementedError(f"{type(self).__name__} must override __len__")


def init(self, dataset, *args, **kwargs):
    if isinstance(dataset, Dataset) and not isinstance(dataset, IterableDataset):
        kind = type(dataset)
        for name, base in (("__init__", object.__init__), ("__len__", Dataset.__len__)):
            if getattr(kind, name) is base:
                raise NotImplementedError(f"{kind.__name__} must override {name}")
    _init(self, dataset, *args, **kwargs)


def next_batch(self):
    if self.__dict__.get("note_pass") is None:
        self.__dict__["note_pass"] = iter(self)
    try:
        return next(self.__dict__["note_pass"])
    except StopIteration:
        self.__dict__["note_pass"] = None
        raise


def apply():
    Dataset.__len__ = dataset_len
    DataLoader.__init__ = init
    DataLoader.__next__ = next_batch
    _BaseDataLoaderIter.next = _BaseDataLoaderIter.__next__

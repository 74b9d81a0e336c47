"""Wrong-world checks for the data claims: the spec must go red when torch.utils.data behaves the
way a wrong reading of the notes would have it. Each run collects only the test file of its claims.

    samplers with the note's signatures (no generator parameter) or another one (BatchSampler with
      a drop_last default; SequentialSampler with a generator)
                                                          -> data.weighted-random-sampler, data.subset-random-sampler,
                                                             data.random-sampler-signature, data.batch-sampler,
                                                             data.sequential-sampler red
    a DataLoader that ignores drop_last, and a RandomSampler that replays the same permutation
      every epoch                                         -> data.drop-last, data.shuffle-each-epoch red
    a DataLoader that skips what timed out and ends the epoch quietly, as the note has it
                                                          -> data.timeout red
    DataLoader batches of CUDA TensorDataset tensors that come back on the CPU (the fetcher
      moves each batch; needs a CUDA GPU, skips without one)
                                                          -> data.tensordataset-device red
    a torchvision MNIST outside the Dataset hierarchy, and a DataLoader whose batch_size is required
                                                          -> data.datasets-subclass-dataset,
                                                             data.dataset-only-required-arg red
"""
import pytest

from spec_runner import assert_goes_red, claim_args

# samplers whose constructors have the note's parameter lists, or another default
SAMPLER_SIGNATURES = """
from torch.utils.data import sampler as S

_weighted, _subset, _random = S.WeightedRandomSampler.__init__, S.SubsetRandomSampler.__init__, S.RandomSampler.__init__
_batch, _sequential = S.BatchSampler.__init__, S.SequentialSampler.__init__

def weighted_init(self, weights, num_samples, replacement=True):
    _weighted(self, weights, num_samples, replacement)

def subset_init(self, indices):
    _subset(self, indices)

def random_init(self, data_source, replacement=False, num_samples=None):
    _random(self, data_source, replacement, num_samples)

def batch_init(self, sampler, batch_size, drop_last=False):
    _batch(self, sampler, batch_size, drop_last)

def sequential_init(self, data_source, generator=None):
    _sequential(self, data_source)

S.WeightedRandomSampler.__init__ = weighted_init
S.SubsetRandomSampler.__init__ = subset_init
S.RandomSampler.__init__ = random_init
S.BatchSampler.__init__ = batch_init
S.SequentialSampler.__init__ = sequential_init
"""


def test_samplers_with_other_signatures_turn_the_signature_claims_red(run_spec):
    claims = {
        "data.weighted-random-sampler": "parameters after the note's three: []",
        "data.random-sampler-signature": "parameters after the note's three: []",
        "data.subset-random-sampler": "SubsetRandomSampler[('indices', <class 'inspect._empty'>)]",
        "data.batch-sampler": "('drop_last', False)",
        "data.sequential-sampler": "('generator', None)",
    }
    run = run_spec("tests/test_data_samplers.py", "-m", "cpu", *claim_args(*claims),
                   patch=SAMPLER_SIGNATURES)
    for claim, fragment in claims.items():
        assert_goes_red(run, claim, fragment)


DATA_WORLD = """
import torch
from torch.utils.data import sampler as S

_batch_init = S.BatchSampler.__init__

def batch_init(self, sampler, batch_size, drop_last):
    _batch_init(self, sampler, batch_size, False)

def same_permutation_every_epoch(self):
    yield from torch.randperm(len(self.data_source), generator=torch.Generator().manual_seed(0)).tolist()

S.BatchSampler.__init__ = batch_init
S.RandomSampler.__iter__ = same_permutation_every_epoch
"""


def test_loader_ignoring_drop_last_and_sampler_not_reshuffling_turn_data_claims_red(run_spec):
    run = run_spec("tests/test_data_loader.py", "-m", "cpu", "--claim", "data.drop-last",
                   "--claim", "data.shuffle-each-epoch", patch=DATA_WORLD)
    assert_goes_red(run, "data.drop-last", "batch sizes with drop_last: [64, 36]")
    assert_goes_red(run, "data.shuffle-each-epoch", "only 1 different orders in 5 epochs")


TIMEOUT_SKIPS_WORLD = """
from torch.utils.data import dataloader as D

_get_data = D._MultiProcessingDataLoaderIter._get_data

def get_data_skipping_what_timed_out(self):
    if self._timeout > 0:
        success, data = self._try_get_data(self._timeout)
        if not success:
            raise StopIteration  # the timed-out batch (and the rest of the epoch) skipped, no error
        return data
    return _get_data(self)

D._MultiProcessingDataLoaderIter._get_data = get_data_skipping_what_timed_out
"""


def test_loader_that_skips_a_timed_out_batch_turns_data_timeout_red(run_spec):
    run = run_spec("tests/test_data_loader.py", "-m", "cpu", "--claim", "data.timeout", patch=TIMEOUT_SKIPS_WORLD)
    assert_goes_red(run, "data.timeout", "DID NOT RAISE")


BATCHES_BACK_ON_THE_CPU = """
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


fetch._MapDatasetFetcher.fetch = fetch_on_cpu
"""


@pytest.mark.needs(gpus=1)
def test_loader_batches_back_on_the_cpu_turn_tensordataset_device_red(run_spec):
    run = run_spec("tests/test_data_loader.py", "--claim", "data.tensordataset-device", "-m", "gpu",
                   patch=BATCHES_BACK_ON_THE_CPU)
    assert_goes_red(run, "data.tensordataset-device", "device(type='cpu'), device(type='cpu')")


# torchvision's datasets outside the Dataset hierarchy, and a DataLoader that also requires batch_size
DATASETS_APART_AND_BATCH_SIZE_REQUIRED = """
import torchvision.datasets as tv_datasets
from torch.utils import data

tv_datasets.MNIST = type("MNIST", (), {})  # a dataset class of its own, no Dataset base

_init = data.DataLoader.__init__

def __init__(self, dataset, batch_size, *args, **kwargs):
    _init(self, dataset, batch_size, *args, **kwargs)

data.DataLoader.__init__ = __init__
"""


def test_datasets_apart_and_a_required_batch_size_turn_added_data_claims_red(run_spec):
    run = run_spec("tests/test_data_loader.py", "-m", "cpu", "--claim",
                   "data.datasets-subclass-dataset,data.dataset-only-required-arg",
                   patch=DATASETS_APART_AND_BATCH_SIZE_REQUIRED)
    assert_goes_red(run, "data.datasets-subclass-dataset", "MNIST")
    assert_goes_red(run, "data.dataset-only-required-arg", "batch_size")

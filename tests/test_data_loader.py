"""Datasets and the DataLoader: lengths, batching, shuffling, exclusive options, workers.

Notes: 000_03e1e7bc9bbd04f1.txt › 5. 数据集Dataset, DataLoader (the CustomDataset skeleton and
the list of DataLoader arguments); 001_eaed12e493b64ab2.txt › 1. 数据读取 › Dataset类 and
› Dataloader类 (the MyDataset example with `iter(tensor_dataloader).next()`);
003_df07c2a5da61a567.txt › 3 tensor 数据类型 (TensorDataset + DataLoader devices) and
› 在多个 GPU 上训练神经网络 (`shuffle=(sampler is None), pin_memory=True`).

Samplers and batch samplers on their own are in test_data_samplers.py.
"""
import collections.abc
import inspect
import math
import os
import time

import pytest
import torch
from torch.utils.data import (
    BatchSampler,
    DataLoader,
    Dataset,
    SequentialSampler,
    TensorDataset,
    get_worker_info,
)

from fixtures.boundaries import ITER_NEXT_METHOD_REMOVED_IN
from fixtures.versions import torch_at_least

# The note's example (001 › Dataloader类), re-typed as written, including its two slips:
# DataLoader is never imported, and the last line calls the Python 2 `.next()` method.
NOTE_LOADER_SNIPPET = """
import torch
from torch.utils.data import Dataset

class MyDataset(Dataset):
    def __init__(self, data_tensor, target_tensor):
        self.data_tensor = data_tensor
        self.target_tensor = target_tensor

    def __len__(self):
        return self.data_tensor.size(0)

    def __getitem__(self, index):
        return self.data_tensor[index], self.target_tensor[index]

def main():
    data_tensor = torch.randn(10, 3)
    target_tensor = torch.randint(2, (10,))
    my_dataset = MyDataset(data_tensor, target_tensor)
    tensor_dataloader = DataLoader(dataset=my_dataset, batch_size=2, shuffle=True, num_workers=0)
    for data, target in tensor_dataloader:
        print(data, target)
    print('One batch tensor data: ', iter(tensor_dataloader).next())

main()
"""


def _default(name):
    """Default value of a DataLoader argument, read from the installed signature."""
    return inspect.signature(DataLoader.__init__).parameters[name].default


def _numbers(n):
    return TensorDataset(torch.arange(n))


def _epoch(loader):
    """All sample values of one pass over a loader of _numbers(), in the order seen."""
    return torch.cat([batch for (batch,) in loader]).tolist()


class _Printed:
    """Stands in for print() inside the note's snippet and keeps what it was given."""

    def __init__(self):
        self.calls = []

    def __call__(self, *args):
        self.calls.append(args)


def _run_note_snippet(**extra_globals):
    printed = _Printed()
    namespace = {"__name__": "note_snippet", "print": printed, **extra_globals}
    torch.manual_seed(0)
    try:
        exec(compile(NOTE_LOADER_SNIPPET, "<note 001 › Dataloader类>", "exec"), namespace)
    except Exception as exc:  # the outcome is asserted by the caller
        return printed, exc
    return printed, None


# --- data.dataset-index-to-pair ---------------------------------------------------------


class _PairsRecordingIndices(Dataset):
    """(input_x, target_y) pairs, recording every index it is handed."""

    def __init__(self, n):
        self.inputs, self.targets = torch.randn(n, 3), torch.arange(n) % 2
        self.indices = []

    def __len__(self):
        return len(self.targets)

    def __getitem__(self, index):
        self.indices.append(index)
        return self.inputs[index], self.targets[index]


@pytest.mark.claim("data.dataset-index-to-pair", decides="holds")
def test_dataloader_hands_the_dataset_one_index_at_a_time_and_gets_one_pair_back():
    dataset = _PairsRecordingIndices(10)
    x, y = dataset[3]  # indexed like a list
    assert torch.equal(x, dataset.inputs[3]) and y == dataset.targets[3]

    dataset.indices.clear()
    batches = list(DataLoader(dataset, batch_size=4, shuffle=True, generator=torch.Generator().manual_seed(0)))
    assert all(isinstance(i, int) for i in dataset.indices), f"indices handed over: {dataset.indices}"
    assert sorted(dataset.indices) == list(range(10)), f"one call per sample, got {dataset.indices}"
    # the pairs come back collated into (inputs, targets) batches, in the order of the indices
    inputs = torch.cat([b[0] for b in batches])
    targets = torch.cat([b[1] for b in batches])
    assert torch.equal(inputs, dataset.inputs[dataset.indices])
    assert torch.equal(targets, dataset.targets[dataset.indices])


# --- data.len-dataset-vs-loader ---------------------------------------------------------


@pytest.mark.claim("data.len-dataset-vs-loader")
@pytest.mark.parametrize("n", [1, 63, 64, 65, 100, 128])
@pytest.mark.parametrize("batch_size", [1, 64])
@pytest.mark.parametrize("drop_last", [False, True], ids=["keep-last", "drop-last"])
def test_len_dataset_counts_samples_len_loader_counts_batches(n, batch_size, drop_last):
    dataset = _numbers(n)
    loader = DataLoader(dataset, batch_size=batch_size, drop_last=drop_last)
    batches = list(loader)
    expected_batches = n // batch_size if drop_last else math.ceil(n / batch_size)
    assert len(dataset) == n, f"len(dataset) = {len(dataset)}, expected the sample count {n}"
    assert len(loader) == expected_batches == len(batches), (
        f"len(loader) = {len(loader)}, batches produced = {len(batches)}, expected {expected_batches}"
    )


# --- data.dataset-required-methods -----------------------------------------------------


class _OnlyGetitem(Dataset):
    """No __init__, no __len__: only the one method the base class leaves abstract."""

    def __getitem__(self, index):
        return torch.tensor([index, 10 * index])


class _GetitemAndLen(_OnlyGetitem):
    def __len__(self):
        return 6


@pytest.mark.claim("data.dataset-required-methods", decides="wrong")
def test_base_dataset_leaves_only_getitem_unimplemented():
    with pytest.raises(NotImplementedError):
        Dataset()[0]
    # the base defines no __init__ of its own and no __len__ at all
    assert Dataset.__init__ is object.__init__
    assert not hasattr(Dataset, "__len__"), "torch.utils.data.Dataset defines __len__"


@pytest.mark.claim("data.dataset-required-methods", decides="wrong")
def test_dataset_without_init_or_len_loads_through_an_explicit_sampler():
    loader = DataLoader(_OnlyGetitem(), batch_size=2, sampler=[4, 0, 2, 1])
    batches = [b.tolist() for b in loader]
    assert batches == [[[4, 40], [0, 0]], [[2, 20], [1, 10]]], batches


@pytest.mark.claim("data.dataset-required-methods")
def test_len_is_needed_by_the_default_sampler_and_len_loader():
    loader = DataLoader(_OnlyGetitem(), batch_size=2)  # constructing does not ask for len()
    with pytest.raises(TypeError, match="has no len"):
        next(iter(loader))
    with pytest.raises(TypeError, match="has no len"):
        len(loader)
    # with __len__ (still without __init__) the default loader works
    assert len(list(DataLoader(_GetitemAndLen(), batch_size=2))) == 3


# --- data.dataloader-is-iterator -------------------------------------------------------


@pytest.mark.claim("data.dataloader-is-iterator", decides="wrong")
def test_dataloader_is_an_iterable_not_an_iterator():
    loader = DataLoader(_numbers(6), batch_size=2)
    assert isinstance(loader, collections.abc.Iterable)
    assert not isinstance(loader, collections.abc.Iterator), "DataLoader has __next__"
    with pytest.raises(TypeError, match="'DataLoader' object is not an iterator"):
        next(loader)


@pytest.mark.claim("data.dataloader-is-iterator")
def test_each_iter_call_starts_a_fresh_independent_pass():
    loader = DataLoader(_numbers(6), batch_size=2)
    first, second = iter(loader), iter(loader)
    assert first is not second
    assert isinstance(first, collections.abc.Iterator) and iter(first) is first
    assert next(first)[0].tolist() == [0, 1] and next(first)[0].tolist() == [2, 3]
    assert next(second)[0].tolist() == [0, 1], "a second iter() did not start from the beginning"


# --- data.iter-next-method -------------------------------------------------------------


@pytest.mark.claim("data.iter-next-method")
def test_note_snippet_as_written_fails_on_the_missing_dataloader_import():
    printed, exc = _run_note_snippet()
    assert isinstance(exc, NameError) and "'DataLoader' is not defined" in str(exc), repr(exc)
    assert printed.calls == []


@pytest.mark.claim("data.iter-next-method", decides="by-version")
def test_iterator_next_method_as_in_the_note():
    printed, exc = _run_note_snippet(DataLoader=DataLoader)
    loop_prints = [c for c in printed.calls if c and c[0] != "One batch tensor data: "]
    assert len(loop_prints) == 5, "the for-loop over the loader should run before the .next() line"
    if torch_at_least(ITER_NEXT_METHOD_REMOVED_IN):
        assert isinstance(exc, AttributeError), f"expected AttributeError, got {exc!r}"
        assert "_SingleProcessDataLoaderIter' object has no attribute 'next'" in str(exc), str(exc)
    else:
        assert exc is None, f"torch < {ITER_NEXT_METHOD_REMOVED_IN} should return a batch, raised {exc!r}"
        data, target = printed.calls[-1][1]
        assert data.shape == (2, 3) and target.shape == (2,)


@pytest.mark.claim("data.iter-next-method")
def test_builtin_next_on_the_iterator_returns_one_batch():
    data, target = torch.randn(10, 3), torch.randint(2, (10,))
    loader = DataLoader(TensorDataset(data, target), batch_size=2, shuffle=True)
    batch_data, batch_target = next(iter(loader))
    assert batch_data.shape == (2, 3) and batch_target.shape == (2,)


# --- data.randint-labels ---------------------------------------------------------------


@pytest.mark.claim("data.randint-labels")
def test_randint_with_high_2_draws_only_zeros_and_ones():
    labels = torch.randint(2, (10,))
    assert labels.shape == (10,) and labels.dtype == torch.int64
    many = torch.randint(2, (100_000,))
    assert set(many.unique().tolist()) == {0, 1}, "high=2 is exclusive: only 0 and 1 may appear"
    ones = many.float().mean().item()
    # 100k fair draws: standard error 0.0016
    assert abs(ones - 0.5) < 0.01, f"fraction of ones {ones:.4f}, expected 0.5"


# --- data.batches-shapes ---------------------------------------------------------------


@pytest.mark.claim("data.batches-shapes")
def test_note_example_prints_five_shuffled_batches_of_two():
    printed, _ = _run_note_snippet(DataLoader=DataLoader)
    loop_prints = [c for c in printed.calls if c and c[0] != "One batch tensor data: "]
    assert len(loop_prints) == 5, f"{len(loop_prints)} batches printed, expected 5"
    for data, target in loop_prints:
        assert data.shape == (2, 3) and target.shape == (2,), (data.shape, target.shape)
    # the same seed regenerates the snippet's tensors: every sample appears exactly once
    torch.manual_seed(0)
    data_tensor, target_tensor = torch.randn(10, 3), torch.randint(2, (10,))
    rows = torch.cat([d for d, _ in loop_prints])
    order = [int((data_tensor == r).all(dim=1).nonzero()) for r in rows]
    assert sorted(order) == list(range(10)), f"rows seen: {order}"
    assert order != list(range(10)), "shuffle=True gave the dataset order"
    targets = torch.cat([t for _, t in loop_prints])
    assert torch.equal(targets, target_tensor[order]), "targets were separated from their samples"


# --- data.batch-size-default -----------------------------------------------------------


@pytest.mark.claim("data.batch-size-default")
def test_batch_size_defaults_to_one():
    assert _default("batch_size") == 1
    loader = DataLoader(_numbers(5))
    batches = list(loader)
    assert [b.shape for (b,) in batches] == [torch.Size([1])] * 5
    assert len(loader) == 5


@pytest.mark.claim("data.batch-size-default", decides="holds")
@pytest.mark.parametrize("batch_size", [2, 3, 7])
def test_an_explicit_batch_size_is_how_many_samples_each_batch_holds(batch_size):
    loader = DataLoader(_numbers(7), batch_size=batch_size)
    sizes = [len(b) for (b,) in loader]
    full, rest = divmod(7, batch_size)
    expected = [batch_size] * full + ([rest] if rest else [])
    assert sizes == expected, f"batch sizes {sizes} for batch_size={batch_size}, expected {expected}"
    assert loader.batch_size == batch_size and _epoch(loader) == list(range(7))


# --- data.shuffle-each-epoch -----------------------------------------------------------


def _shuffled_epochs(seed, epochs=5, n=20):
    loader = DataLoader(_numbers(n), batch_size=5, shuffle=True, generator=torch.Generator().manual_seed(seed))
    return [_epoch(loader) for _ in range(epochs)]


@pytest.mark.claim("data.shuffle-each-epoch")
def test_shuffle_true_draws_a_new_permutation_every_epoch():
    epochs = _shuffled_epochs(seed=1)
    for e in epochs:
        assert sorted(e) == list(range(20)), "an epoch must visit every sample exactly once"
    distinct = {tuple(e) for e in epochs}
    # two uniform permutations of 20 coincide with probability 1/20!
    assert len(distinct) == len(epochs), f"only {len(distinct)} different orders in {len(epochs)} epochs"
    assert tuple(range(20)) not in distinct


@pytest.mark.claim("data.shuffle-each-epoch")
def test_seeded_generator_replays_the_same_sequence_of_epochs():
    assert _shuffled_epochs(seed=7) == _shuffled_epochs(seed=7)
    assert _shuffled_epochs(seed=7) != _shuffled_epochs(seed=8)


@pytest.mark.claim("data.shuffle-each-epoch")
def test_without_shuffle_every_epoch_keeps_dataset_order():
    assert not _default("shuffle"), "shuffle defaults to False (None in recent releases): no shuffling"
    loader = DataLoader(_numbers(20), batch_size=5)
    assert [_epoch(loader) for _ in range(3)] == [list(range(20))] * 3


# --- data.sampler-shuffle-exclusive ----------------------------------------------------


@pytest.mark.claim("data.sampler-shuffle-exclusive")
def test_sampler_with_shuffle_true_is_rejected():
    dataset = _numbers(6)
    with pytest.raises(ValueError, match="^sampler option is mutually exclusive with shuffle$"):
        DataLoader(dataset, sampler=SequentialSampler(dataset), shuffle=True)


@pytest.mark.claim("data.sampler-shuffle-exclusive")
@pytest.mark.parametrize("shuffle", [pytest.param(False, id="shuffle=False"), pytest.param(None, id="shuffle-omitted")])
def test_sampler_with_shuffle_false_or_omitted_follows_the_sampler(shuffle):
    dataset = _numbers(6)
    kwargs = {} if shuffle is None else {"shuffle": shuffle}
    loader = DataLoader(dataset, batch_size=2, sampler=[5, 3, 1, 0, 2, 4], **kwargs)
    assert _epoch(loader) == [5, 3, 1, 0, 2, 4]


# --- data.batch-sampler-exclusive ------------------------------------------------------

BATCH_SAMPLER_ERROR = "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last"


@pytest.mark.claim("data.batch-sampler-exclusive")
@pytest.mark.parametrize(
    "extra",
    [
        pytest.param({"batch_size": 2}, id="batch_size=2"),
        pytest.param({"batch_size": None}, id="batch_size=None"),
        pytest.param({"shuffle": True}, id="shuffle=True"),
        pytest.param({"sampler": [0, 1, 2, 3]}, id="sampler"),
        pytest.param({"drop_last": True}, id="drop_last=True"),
    ],
)
def test_batch_sampler_with_another_batching_option_is_rejected(extra):
    dataset = _numbers(4)
    with pytest.raises(ValueError) as info:
        DataLoader(dataset, batch_sampler=BatchSampler(SequentialSampler(dataset), 2, False), **extra)
    assert str(info.value) == BATCH_SAMPLER_ERROR


@pytest.mark.claim("data.batch-sampler-exclusive")
def test_batch_sampler_alone_decides_the_batches_and_default_values_pass_unnoticed():
    dataset = _numbers(5)
    batch_sampler = [[4, 0], [1, 2, 3]]
    # the check compares with the defaults, so restating a default is not detected as "specified"
    for extra in ({}, {"batch_size": 1, "shuffle": False, "sampler": None, "drop_last": False}):
        loader = DataLoader(dataset, batch_sampler=batch_sampler, **extra)
        assert [b.tolist() for (b,) in loader] == batch_sampler
        assert loader.batch_size is None and loader.drop_last is False


# --- data.num-workers-default ----------------------------------------------------------


class _WhereLoaded(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, index):
        return {"pid": os.getpid(), "in_worker": get_worker_info() is not None}


@pytest.mark.claim("data.num-workers-default")
@pytest.mark.claim("data.num-workers-zero-main", decides="holds")
def test_num_workers_defaults_to_zero_and_loads_in_the_main_process():
    assert _default("num_workers") == 0
    samples = list(DataLoader(_WhereLoaded(), batch_size=None))
    assert {s["pid"] for s in samples} == {os.getpid()}, "a sample was loaded in another process"
    assert not any(s["in_worker"] for s in samples)


class _WhichWorker(Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, index):
        info = get_worker_info()
        return {"index": index, "pid": os.getpid(), "worker": None if info is None else info.id}


@pytest.mark.claim("data.num-workers-default", decides="holds")
@pytest.mark.claim("data.num-workers-zero-main", decides="holds")
@pytest.mark.needs(processes=True)
def test_num_workers_two_loads_the_data_in_two_worker_processes():
    samples = list(DataLoader(_WhichWorker(), batch_size=None, num_workers=2))
    assert sorted(s["index"] for s in samples) == list(range(6))
    pids = {s["pid"] for s in samples}
    assert len(pids) == 2 and os.getpid() not in pids, f"loading pids {pids}, main process {os.getpid()}"
    assert {s["worker"] for s in samples} == {0, 1}, f"worker ids {sorted({s['worker'] for s in samples})}"


@pytest.mark.claim("data.num-workers-default")
def test_negative_num_workers_is_rejected():
    with pytest.raises(ValueError, match="num_workers option should be non-negative"):
        DataLoader(_numbers(4), num_workers=-1)


# --- data.collate-fn -------------------------------------------------------------------


@pytest.mark.claim("data.collate-fn")
def test_collate_fn_receives_the_list_of_samples_and_its_result_is_the_batch():
    data, labels = torch.arange(10.0).reshape(5, 2), torch.tensor([0, 1, 0, 1, 1])
    dataset = TensorDataset(data, labels)
    seen = []

    def collate(samples):
        seen.append(samples)
        return ("merged", len(samples))

    out = list(DataLoader(dataset, batch_size=2, collate_fn=collate))
    assert out == [("merged", 2), ("merged", 2), ("merged", 1)]
    assert isinstance(seen[0], list) and len(seen[0]) == 2
    assert all(torch.equal(a, b) for a, b in zip(seen[0][1], dataset[1])), "second sample of batch 0"


@pytest.mark.claim("data.collate-fn")
def test_default_collate_stacks_the_samples_field_by_field():
    data, labels = torch.arange(10.0).reshape(5, 2), torch.tensor([0, 1, 0, 1, 1])
    batch_data, batch_labels = next(iter(DataLoader(TensorDataset(data, labels), batch_size=3)))
    assert torch.equal(batch_data, torch.stack([data[0], data[1], data[2]]))
    assert torch.equal(batch_labels, labels[:3])


# --- data.pin-memory -------------------------------------------------------------------


@pytest.mark.claim("data.pin-memory")
@pytest.mark.needs(gpus=1)
def test_pin_memory_returns_page_locked_cpu_batches():
    data = torch.randn(8, 3)
    assert not data.is_pinned()
    pinned = list(DataLoader(TensorDataset(data), batch_size=4, pin_memory=True))
    plain = list(DataLoader(TensorDataset(data), batch_size=4, pin_memory=False))
    assert all(b.is_pinned() and b.device.type == "cpu" for (b,) in pinned), "pin_memory=True batch not pinned"
    assert not any(b.is_pinned() for (b,) in plain)
    assert torch.equal(torch.cat([b for (b,) in pinned]), data)


# --- data.drop-last --------------------------------------------------------------------


@pytest.mark.claim("data.drop-last")
def test_drop_last_discards_the_incomplete_final_batch():
    assert _default("drop_last") is False
    dataset = _numbers(100)
    kept = [b.tolist() for (b,) in DataLoader(dataset, batch_size=64)]
    dropped = [b.tolist() for (b,) in DataLoader(dataset, batch_size=64, drop_last=True)]
    assert [len(b) for b in kept] == [64, 36], f"batch sizes without drop_last: {[len(b) for b in kept]}"
    assert [len(b) for b in dropped] == [64], f"batch sizes with drop_last: {[len(b) for b in dropped]}"
    never_seen = sorted(set(range(100)) - {i for b in dropped for i in b})
    assert never_seen == list(range(64, 100)), "drop_last=True should lose exactly the last 36 samples"


# --- data.timeout ----------------------------------------------------------------------


@pytest.mark.claim("data.timeout", decides="holds")  # the true part: the default and the check
def test_timeout_defaults_to_zero_and_must_be_non_negative():
    assert _default("timeout") == 0
    assert DataLoader(_numbers(4)).timeout == 0
    with pytest.raises(ValueError, match="^timeout option should be non-negative$"):
        DataLoader(_numbers(4), timeout=-1)
    assert DataLoader(_numbers(4), timeout=2.5).timeout == 2.5


class _SlowAtTwo(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, index):
        if index == 2:
            time.sleep(3.5)  # far longer than the loader's timeout
        return index


@pytest.mark.claim("data.timeout", decides="wrong")
@pytest.mark.needs(processes=True)
def test_a_batch_not_collected_within_the_timeout_raises_instead_of_being_skipped():
    loader = DataLoader(_SlowAtTwo(), batch_size=None, num_workers=1, timeout=1.0)
    seen = []
    with pytest.raises(RuntimeError, match=r"DataLoader timed out after 1\.0 seconds"):
        for item in loader:
            seen.append(int(item))
    # on a loaded machine the worker's start-up may already time out batch 0; never is a batch skipped
    assert seen == [0, 1][: len(seen)], (
        f"batches before the timeout: {seen}, expected [0, 1] or a prefix, then the error")


# --- data.worker-init-fn ---------------------------------------------------------------

_WORKER_INIT = {}  # filled inside each worker process by _record_worker_init


def _record_worker_init(worker_id):
    info = get_worker_info()
    _WORKER_INIT.update(
        worker_id=worker_id, pid=os.getpid(), torch_seed=torch.initial_seed(), info_id=info.id, info_seed=info.seed
    )


class _WhoLoadedMe(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, index):
        info = get_worker_info()
        return {"index": index, "worker_id": info.id, "pid": os.getpid(), "init": dict(_WORKER_INIT)}


@pytest.mark.claim("data.worker-init-fn")
@pytest.mark.needs(processes=True)
def test_worker_init_fn_runs_once_in_each_worker_process_before_loading():
    num_workers = 2
    loader = DataLoader(
        _WhoLoadedMe(),
        batch_size=None,
        num_workers=num_workers,
        worker_init_fn=_record_worker_init,
        generator=torch.Generator().manual_seed(0),
    )
    samples = list(loader)
    assert sorted(s["index"] for s in samples) == list(range(8))
    ids = {s["worker_id"] for s in samples}
    assert ids == set(range(num_workers)), f"worker ids seen {sorted(ids)}, expected 0..{num_workers - 1}"
    pid_of = {s["worker_id"]: s["pid"] for s in samples}
    assert len(set(pid_of.values())) == num_workers, f"workers shared a process: {pid_of}"
    assert os.getpid() not in pid_of.values(), "a worker ran in the main process"
    for s in samples:
        init = s["init"]
        # every sample, the first one of each worker included, saw the init record of its own worker
        assert init.get("worker_id") == s["worker_id"] and init["pid"] == s["pid"], (s, init)
        assert init["info_id"] == init["worker_id"]
        # seeding came first: inside worker_init_fn torch is already seeded with the worker's seed
        assert init["torch_seed"] == init["info_seed"], init
    seeds = {s["worker_id"]: s["init"]["torch_seed"] for s in samples}
    assert seeds[1] - seeds[0] == 1, f"worker seeds are base_seed + worker_id, got {seeds}"
    assert not _WORKER_INIT, "worker_init_fn ran in the main process"


# --- data.tensordataset-device ---------------------------------------------------------


@pytest.mark.claim("data.tensordataset-device")
def test_batches_stay_on_the_device_of_the_dataset_tensors(device):
    features = torch.randn(10, 3, device=device)
    labels = torch.arange(10, device=device)
    loader = DataLoader(TensorDataset(features, labels), batch_size=4, shuffle=True)
    seen = []
    for x, y in loader:
        assert x.device == features.device and y.device == labels.device, (x.device, y.device)
        seen.append(y)
    assert sorted(torch.cat(seen).tolist()) == list(range(10))

# --- data.datasets-subclass-dataset, data.dataset-only-required-arg (added claims) ---------


@pytest.mark.claim("data.datasets-subclass-dataset")
@pytest.mark.needs(libs=["torchvision"])
def test_torchvision_datasets_are_dataset_subclasses():
    import torchvision.datasets as tv_datasets

    classes = [getattr(tv_datasets, name) for name in tv_datasets.__all__]
    classes = [c for c in classes if isinstance(c, type)]
    assert len(classes) >= 20, f"only {len(classes)} dataset classes in torchvision.datasets.__all__"
    outside = [c.__name__ for c in classes if not issubclass(c, Dataset)]
    assert not outside, f"not subclasses of torch.utils.data.Dataset: {outside}"
    assert issubclass(tv_datasets.MNIST, tv_datasets.VisionDataset)


@pytest.mark.claim("data.dataset-only-required-arg")
def test_dataset_is_dataloaders_only_required_argument():
    params = list(inspect.signature(DataLoader.__init__).parameters.values())[1:]  # after self
    # *args / **kwargs have no default either, yet nothing has to be passed for them
    required = [p.name for p in params
                if p.default is inspect.Parameter.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    assert required == ["dataset"], f"required parameters: {required}"
    with pytest.raises(TypeError, match="dataset"):
        DataLoader()
    loader = DataLoader(_numbers(4))  # batch_size, shuffle and num_workers take their defaults
    assert (loader.batch_size, loader.num_workers) == (1, 0)
    assert [b.tolist() for (b,) in loader] == [[0], [1], [2], [3]]

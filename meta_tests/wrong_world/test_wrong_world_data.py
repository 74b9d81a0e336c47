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
    a DataLoader that hands the dataset a batch's whole list of indices in one call
                                                          -> data.dataset-index-to-pair red
    torch.utils.data as the notes describe it: a Dataset subclass must override __init__ and
      __len__, a DataLoader that is an iterator, loader iterators with a .next() method
                                                          -> data.dataset-required-methods,
                                                             data.dataloader-is-iterator, data.iter-next-method red
    samplers as the notes describe them: a DataLoader that takes only Sampler subclasses, a
      SubsetRandomSampler that shuffles the whole dataset -> data.samplers-base red on its left-out test,
                                                             data.subset-random-sampler red

    the added cases, three worlds in one run: a DataLoader that ignores an explicit batch_size, one
      that loads in the main process whatever num_workers says, a BatchSampler that drops an index
      repeated within a batch (mis-batching WeightedRandomSampler's draws)
                                                          -> data.batch-size-default,
                                                             data.num-workers-default, data.num-workers-zero-main,
                                                             data.batch-sampler red

The partly claims (random-sampler-signature, weighted-random-sampler, samplers-base) must go red on
their failing half (a left-out test among the red ones).
"""
import pytest

from spec_runner import assert_failing_half_goes_red, assert_goes_red, claim_args, red_tests


def test_samplers_with_other_signatures_turn_the_signature_claims_red(run_spec):
    claims = {
        "data.weighted-random-sampler": "parameters after the note's three: []",
        "data.random-sampler-signature": "parameters after the note's three: []",
        "data.subset-random-sampler": "SubsetRandomSampler[('indices', <class 'inspect._empty'>)]",
        "data.batch-sampler": "('drop_last', False)",
        "data.sequential-sampler": "('generator', None)",
    }
    run = run_spec("tests/test_data_samplers.py", "-m", "cpu", *claim_args(*claims),
                   world="samplers_with_other_signatures")
    for claim, fragment in claims.items():
        assert_goes_red(run, claim, fragment)
    for claim in ("data.weighted-random-sampler", "data.random-sampler-signature"):  # partly: the failing half
        assert_failing_half_goes_red(run, claim, claims[claim])


def test_loader_ignoring_drop_last_and_sampler_not_reshuffling_turn_data_claims_red(run_spec):
    run = run_spec("tests/test_data_loader.py", "-m", "cpu", "--claim", "data.drop-last",
                   "--claim", "data.shuffle-each-epoch", world="loader_ignores_drop_last_and_sampler_replays")
    assert_goes_red(run, "data.drop-last", "batch sizes with drop_last: [64, 36]")
    assert_goes_red(run, "data.shuffle-each-epoch", "only 1 different orders in 5 epochs")


def test_loader_that_skips_a_timed_out_batch_turns_data_timeout_red(run_spec):
    run = run_spec("tests/test_data_loader.py", "-m", "cpu", "--claim", "data.timeout",
                   world="loader_skips_timed_out_batch")
    assert_goes_red(run, "data.timeout", "DID NOT RAISE")


@pytest.mark.needs(gpus=1)
def test_loader_batches_back_on_the_cpu_turn_tensordataset_device_red(run_spec):
    run = run_spec("tests/test_data_loader.py", "--claim", "data.tensordataset-device", "-m", "gpu",
                   world="loader_batches_back_on_the_cpu")
    assert_goes_red(run, "data.tensordataset-device", "device(type='cpu'), device(type='cpu')")


def test_datasets_apart_and_a_required_batch_size_turn_added_data_claims_red(run_spec):
    run = run_spec("tests/test_data_loader.py", "-m", "cpu", "--claim",
                   "data.datasets-subclass-dataset,data.dataset-only-required-arg",
                   world="datasets_apart_and_batch_size_required")
    assert_goes_red(run, "data.datasets-subclass-dataset", "not subclasses of torch.utils.data.Dataset: ['MNIST']")
    assert_goes_red(run, "data.dataset-only-required-arg", "required parameters: ['dataset', 'batch_size'")


def test_a_loader_that_fetches_a_batch_in_one_call_turns_dataset_index_to_pair_red(run_spec):
    run = run_spec("tests/test_data_loader.py", "-m", "cpu", "--claim", "data.dataset-index-to-pair",
                   world="loader_hands_the_dataset_a_batch_of_indices")
    assert_goes_red(run, "data.dataset-index-to-pair", "indices handed over: [[")


def test_a_dataloader_as_the_notes_describe_turns_the_refuted_loader_claims_red(run_spec):
    claims = {
        "data.dataset-required-methods": "_OnlyGetitem must override __init__",
        "data.dataloader-is-iterator": "DataLoader has __next__",
        "data.iter-next-method": "expected AttributeError, got None",
    }
    run = run_spec("tests/test_data_loader.py", "-m", "cpu", *claim_args(*claims),
                   world="dataloader_as_the_notes_describe")
    for claim, fragment in claims.items():
        assert_goes_red(run, claim, fragment)
    assert_goes_red(run, "data.dataset-required-methods", "torch.utils.data.Dataset defines __len__")


def test_samplers_as_the_notes_describe_turn_samplers_base_and_subset_random_sampler_red(run_spec):
    run = run_spec("tests/test_data_samplers.py", "-m", "cpu",
                   *claim_args("data.samplers-base", "data.subset-random-sampler"),
                   world="samplers_as_the_notes_describe")
    assert_failing_half_goes_red(run, "data.samplers-base", "sampler must inherit from torch.utils.data.Sampler")
    assert_goes_red(run, "data.subset-random-sampler", "is not a permutation of the subset",
                    "SubsetRandomSampler left its subset")


# the added case of each claim: (its test, what its failure says)
ADDED_CASES = {
    "data.batch-size-default": ("test_an_explicit_batch_size_is_how_many_samples_each_batch_holds",
                                ("batch sizes [1, 1, 1, 1, 1, 1, 1] for batch_size=2, expected [2, 2, 2, 1]",)),
    "data.num-workers-default": ("test_num_workers_two_loads_the_data_in_two_worker_processes",
                                 ("AssertionError: loading pids {", "main process")),
    "data.num-workers-zero-main": ("test_num_workers_two_loads_the_data_in_two_worker_processes",
                                   ("AssertionError: loading pids {", "main process")),
    "data.batch-sampler": ("test_batch_sampler_wraps_each_of_the_samplers_above_into_batches_of_indices",
                           ("[WeightedRandomSampler]: call: AssertionError: batches", "vs the sampler's order")),
}


def test_a_loader_ignoring_batch_size_and_num_workers_and_a_batch_sampler_dropping_repeats_turn_added_cases_red(
        run_spec):
    run = run_spec("tests/test_data_loader.py", "tests/test_data_samplers.py", "-m", "cpu",
                   *claim_args(*ADDED_CASES),
                   world=("loader_ignores_an_explicit_batch_size", "loader_workers_load_in_the_main_process",
                          "batch_sampler_drops_repeated_indices"))
    for claim, (test, fragments) in ADDED_CASES.items():
        assert_goes_red(run, claim, *fragments)
        # red on the added case alone: the claim's other tests pass in these worlds
        red = {name.split("[")[0] for name in red_tests(run, claim)}
        assert red == {test}, f"{claim}: red tests {red}"

"""Wrong-world checks for the distributed claims.

The launches and the spawn world run in child processes, so patching torch in the pytest
process is not enough: spec_runner.wrong_world patches one torch module right after each child
first imports it (through a sitecustomize.py every child Python imports at start-up).

    launcher env without LOCAL_RANK  -> dist.launch-env-vars, dist.local-rank-meaning red
    the notes' meanings: RANK = machine index, WORLD_SIZE = number of machines
                                     -> dist.rank-meaning, dist.world-size-meaning red
    DDP without its construction-time broadcast, and a set_epoch that does nothing
                                     -> dist.ddp-same-seed, dist.sampler-set-epoch red
    DDP that sums the gradients instead of averaging them
                                     -> dist.ddp-grad-average red
"""
from __future__ import annotations

from spec_runner import assert_goes_red, wrong_world

# torch/distributed/elastic/multiprocessing/subprocess_handler: where torchelastic starts
# each worker with its environment (torch >= 2.2 layout).
WORKER_POPEN = "torch.distributed.elastic.multiprocessing.subprocess_handler.subprocess_handler"


def edit_worker_env(statements: str) -> str:
    """Body of patch(): wrap SubprocessHandler._popen so `env` can be edited per worker."""
    return f'''
original = module.SubprocessHandler._popen

def _popen(self, args, env):
    env = dict(env)
{chr(10).join("    " + s for s in statements.strip().splitlines())}
    return original(self, args, env)

module.SubprocessHandler._popen = _popen
'''


NO_LOCAL_RANK = wrong_world(WORKER_POPEN, edit_worker_env('env.pop("LOCAL_RANK", None)'))

NOTES_MEANINGS = wrong_world(WORKER_POPEN, edit_worker_env('''
env["RANK"] = env["GROUP_RANK"]
env["WORLD_SIZE"] = env["GROUP_WORLD_SIZE"]
'''))

NO_INITIAL_BROADCAST = wrong_world(
    "torch.nn.parallel.distributed",
    '''
original = module.DistributedDataParallel.__init__

def __init__(self, *args, **kwargs):
    kwargs["init_sync"] = False  # keep each rank's own initial weights
    original(self, *args, **kwargs)

module.DistributedDataParallel.__init__ = __init__
''',
    in_process='''
from torch.utils.data.distributed import DistributedSampler
DistributedSampler.set_epoch = lambda self, epoch: None
''',
)

SUMMED_GRADIENTS = wrong_world(
    "torch.nn.parallel.distributed",
    '''
import torch.distributed as dist

original = module.DistributedDataParallel.__init__

def _sum(state, bucket):
    return dist.all_reduce(bucket.buffer(), async_op=True).get_future().then(lambda fut: fut.value()[0])

def __init__(self, *args, **kwargs):
    original(self, *args, **kwargs)
    self.register_comm_hook(None, _sum)

module.DistributedDataParallel.__init__ = __init__
''',
)


def test_workers_without_local_rank_turn_env_vars_and_local_rank_claims_red(run_spec):
    run = run_spec("--claim", "dist.launch-env-vars", "--claim", "dist.local-rank-meaning", "-m", "cpu",
                   patch=NO_LOCAL_RANK)
    assert_goes_red(run, "dist.launch-env-vars", "LOCAL_RANK")
    assert_goes_red(run, "dist.local-rank-meaning", "LOCAL_RANK")


def test_the_notes_rank_and_world_size_turn_those_claims_red(run_spec):
    run = run_spec("--claim", "dist.rank-meaning", "--claim", "dist.world-size-meaning", "-m", "cpu",
                   patch=NOTES_MEANINGS)
    assert_goes_red(run, "dist.rank-meaning", "RANK per machine")
    assert_goes_red(run, "dist.world-size-meaning", "WORLD_SIZE")


def test_ddp_without_its_broadcast_and_a_dead_set_epoch_turn_seed_and_epoch_claims_red(run_spec):
    run = run_spec("--claim", "dist.ddp-same-seed", "--claim", "dist.sampler-set-epoch", "-m", "cpu",
                   patch=NO_INITIAL_BROADCAST)
    assert_goes_red(run, "dist.ddp-same-seed", "kept its own weights")
    assert_goes_red(run, "dist.sampler-set-epoch", "distinct orders")


def test_ddp_that_sums_gradients_turns_grad_average_red(run_spec):
    run = run_spec("--claim", "dist.ddp-grad-average", "-m", "cpu", patch=SUMMED_GRADIENTS)
    assert_goes_red(run, "dist.ddp-grad-average", "not the mean")


# SyncBatchNorm whose constructor is exactly the note's five parameters (the one signature rule)
NOTES_SYNCBN_SIGNATURE = """
import torch

_init = torch.nn.SyncBatchNorm.__init__


def __init__(self, num_features, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True):
    _init(self, num_features, eps, momentum, affine, track_running_stats)


torch.nn.SyncBatchNorm.__init__ = __init__
"""


def test_a_syncbn_constructor_exactly_as_printed_turns_syncbn_signature_red(run_spec):
    run = run_spec("tests/test_dist_sampler_syncbn.py::test_syncbn_constructor_has_more_parameters_than_the_notes_call",
                   "--claim", "dist.syncbn-signature", "-m", "cpu", patch=NOTES_SYNCBN_SIGNATURE)
    assert_goes_red(run, "dist.syncbn-signature", "parameters after the note's five")

"""Wrong-world checks for the distributed claims.

The launches and the spawn world run in child processes, so patching torch in the pytest
process is not enough: spec_runner.wrong_world patches one torch module right after each child
first imports it (through a sitecustomize.py every child Python imports at start-up). The checks
of DataParallel and DDP on GPUs need that many CUDA GPUs, like the tests they check (the `gpu`
marker selects them): without them they skip with the reason; the timing ones declare
needs(serial=True) too.

    launcher env without LOCAL_RANK  -> dist.launch-env-vars, dist.local-rank-meaning red
    workers of a default single-node launch told the note's default address 127.0.0.1, not the
      free-port rendezvous' host name (socket.getfqdn())
                                     -> dist.launch-master-defaults red
    the notes' meanings: RANK = machine index, WORLD_SIZE = number of machines
                                     -> dist.rank-meaning, dist.world-size-meaning red
    DDP without its construction-time broadcast, and a set_epoch that does nothing
                                     -> dist.ddp-same-seed, dist.sampler-set-epoch red
    DDP that sums the gradients instead of averaging them
                                     -> dist.ddp-grad-average red
    SyncBatchNorm whose constructor is exactly the note's five parameters
                                     -> dist.syncbn-signature red
    DataParallel on three GPUs that talks to no other GPU (its communication does not grow)
                                     -> dist.dp-comm-scaling red (three GPUs)
    DDP ranks that lose 10 ms per forward
                                     -> dist.ddp-faster failed or inconclusive, never holds (two GPUs)
    DataParallel whose scatter sends the whole batch to device_ids[0] only
                                     -> dist.dp-auto-split red (two GPUs)
    SyncBatchNorm inside DataParallel that normalizes with the whole batch's statistics, as
      the note says (the whole batch on device_ids[0])
                                     -> dist.syncbn-with-dp red (two GPUs)
    DDP whose buffer broadcast lands on the running statistics a forward saved for backward
      (plain BatchNorm always hits the in-place error, as the note says; NCCL spawn world,
      fresh processes; its gloo case goes red on CPU too, supporting evidence)
                                     -> dist.bn-inplace-error red (two GPUs)
    the same, in the spawn world on gloo with CUDA tensors, both ranks on one GPU
                                     -> dist.bn-inplace-error red (one GPU)
    SyncBatchNorm that normalizes each rank with its own batch's statistics, as BatchNorm does
      (gloo with CUDA tensors on one GPU; NCCL on two where present)
                                     -> dist.syncbn-global-stats red (one GPU)

Not covered: dist.dp-low-utilization (a DataParallel that keeps both GPUs busy cannot be
made by patching Python; doing less work instead would make the check depend on how GEMM
time scales with rows).
"""
from __future__ import annotations

import pytest

from spec_runner import assert_goes_red, assert_not_holding, wrong_world

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


# the note's world for a default launch: MASTER_ADDR is --master_addr's default, whatever the rendezvous
NOTES_MASTER_ADDR = wrong_world(WORKER_POPEN, edit_worker_env('env["MASTER_ADDR"] = "127.0.0.1"'))


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


def test_workers_told_the_default_master_address_turn_master_defaults_red(run_spec):
    run = run_spec("--claim", "dist.launch-master-defaults", "-m", "cpu", patch=NOTES_MASTER_ADDR)
    assert_goes_red(run, "dist.launch-master-defaults", "MASTER_ADDR '127.0.0.1'", "and a free port")


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


DATAPARALLEL_QUIET_ON_THREE_GPUS = """
import torch

_forward = torch.nn.DataParallel.forward


def forward(self, *inputs, **kwargs):
    if len(self.device_ids) > 2:  # the main GPU talks to no other one: no replicate, scatter or gather
        return self.module(*inputs, **kwargs)
    return _forward(self, *inputs, **kwargs)


torch.nn.DataParallel.forward = forward
"""


@pytest.mark.needs(gpus=3, serial=True)
def test_dataparallel_quiet_on_three_gpus_turns_comm_scaling_red(run_spec):
    run = run_spec("tests/test_dist_ddp.py", "--claim", "dist.dp-comm-scaling", "-m", "gpu and benchmark",
                   "-k", "grows_from_two_to_three", patch=DATAPARALLEL_QUIET_ON_THREE_GPUS, timeout=300)
    # pinned to "the opposite": the three-GPU side is a single-GPU pass here, so it talks less by construction
    assert_goes_red(run, "dist.dp-comm-scaling", "measured the opposite of the claim")


SLOW_DDP_FORWARD = wrong_world(
    "torch.nn.parallel.distributed",
    '''
import time

original = module.DistributedDataParallel.forward

def forward(self, *args, **kwargs):
    time.sleep(0.01)  # every DDP step loses 10 ms
    return original(self, *args, **kwargs)

module.DistributedDataParallel.forward = forward
''',
)


@pytest.mark.needs(gpus=2, processes=True, serial=True)
def test_ddp_ranks_that_lose_time_every_step_do_not_hold_ddp_faster(run_spec):
    run = run_spec("tests/test_dist_ddp.py", "--claim", "dist.ddp-faster", "-m", "gpu and benchmark",
                   "-k", "ddp_steps_faster", patch=SLOW_DDP_FORWARD, timeout=500)
    # 10 ms more per forward may only cancel DDP's real lead (inconclusive), or reverse it (failed)
    assert_not_holding(run, "dist.ddp-faster", "failed", "inconclusive")


DATAPARALLEL_DOES_NOT_SPLIT = """
from torch import nn

_scatter = nn.DataParallel.scatter


def scatter(self, inputs, kwargs, device_ids):
    return _scatter(self, inputs, kwargs, list(device_ids)[:1])  # the whole batch to device_ids[0]


nn.DataParallel.scatter = scatter
"""


@pytest.mark.needs(gpus=2)
def test_dataparallel_that_does_not_split_turns_dp_auto_split_red(run_spec):
    run = run_spec("tests/test_dist_ddp.py", "--claim", "dist.dp-auto-split", "-m", "gpu",
                   "-k", "scatters_from_wherever", patch=DATAPARALLEL_DOES_NOT_SPLIT)
    assert_goes_red(run, "dist.dp-auto-split", "('cuda:0', 8, ")


SYNCBN_SYNCED_UNDER_DATAPARALLEL = """
from torch import nn

_forward = nn.DataParallel.forward


def forward(self, *inputs, **kwargs):
    if len(self.device_ids) < 2 or not any(isinstance(m, nn.SyncBatchNorm) for m in self.module.modules()):
        return _forward(self, *inputs, **kwargs)
    # the replicas' SyncBatchNorm layers agree on one set of statistics, those of the whole
    # batch: the same as running the whole batch through the module on device_ids[0]
    ids = self.device_ids
    self.device_ids = ids[:1]
    try:
        return _forward(self, *inputs, **kwargs)
    finally:
        self.device_ids = ids


nn.DataParallel.forward = forward
"""


# min_torch 2.0: before, SyncBatchNorm without a process group raises in the DataParallel replicas
# (get_world_size of an uninitialized default group), in the real world as in this one
@pytest.mark.needs(gpus=2, min_torch="2.0")
def test_syncbn_synced_across_dataparallel_replicas_turns_syncbn_with_dp_red(run_spec):
    run = run_spec("tests/test_dist_sampler_syncbn.py", "--claim", "dist.syncbn-with-dp", "-m", "gpu",
                   patch=SYNCBN_SYNCED_UNDER_DATAPARALLEL)
    assert_goes_red(run, "dist.syncbn-with-dp", "not per-replica statistics")


BUFFER_BROADCAST_HITS_SAVED_STATS = wrong_world(
    "torch.nn.parallel.distributed",
    '''
original = module.DistributedDataParallel.forward

def forward(self, *inputs, **kwargs):
    import torch

    out = original(self, *inputs, **kwargs)
    if self.broadcast_buffers:  # rank 0's buffers land in place after the forward saved them
        with torch.no_grad():
            for buffer in self.module.buffers():
                buffer.add_(0)
    return out

module.DistributedDataParallel.forward = forward
''',
)


@pytest.mark.needs(gpus=2, processes=True)
def test_a_buffer_broadcast_that_hits_saved_stats_turns_bn_inplace_error_red(run_spec):
    run = run_spec("tests/test_dist_sampler_syncbn.py", "--claim", "dist.bn-inplace-error", "-m", "gpu",
                   "-k", "inplace_error_needs_two_forwards", patch=BUFFER_BROADCAST_HITS_SAVED_STATS, timeout=300)
    assert_goes_red(run, "dist.bn-inplace-error", "default/train_loop", "modified by an inplace operation")


@pytest.mark.needs(gpus=1, processes=True)
def test_a_buffer_broadcast_that_hits_saved_stats_on_one_gpu_turns_bn_inplace_error_red(run_spec):
    run = run_spec("tests/test_dist_sampler_syncbn.py", "--claim", "dist.bn-inplace-error", "-m", "gpu",
                   "-k", "on_one_gpu and inplace_error", patch=BUFFER_BROADCAST_HITS_SAVED_STATS, timeout=300)
    assert_goes_red(run, "dist.bn-inplace-error", "default/train_loop", "modified by an inplace operation")


SYNCBN_WITH_LOCAL_STATS = wrong_world(
    "torch.nn.modules.batchnorm",
    '''
def forward(self, input):
    self._check_input_dim(input)
    return module._BatchNorm.forward(self, input)  # each rank's own statistics, no collective

module.SyncBatchNorm.forward = forward
''',
)


@pytest.mark.needs(gpus=1, processes=True)
def test_syncbn_with_each_ranks_own_statistics_turns_syncbn_global_stats_red(run_spec):
    run = run_spec("tests/test_dist_sampler_syncbn.py", "--claim", "dist.syncbn-global-stats", "-m", "gpu",
                   patch=SYNCBN_WITH_LOCAL_STATS, timeout=300)
    assert_goes_red(run, "dist.syncbn-global-stats", "rank 0 output")

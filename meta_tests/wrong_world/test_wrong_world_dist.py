"""Wrong-world checks for the distributed claims.

The launches and the spawn world run in child processes, so patching torch in the pytest
process is not enough: these worlds patch one torch module right after each child first imports
it (their TARGET and patch(); see wrong_world/world_hook.py). The checks
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
    launched workers without MASTER_ADDR (no process group forms)
                                     -> dist.launch-is-current red (its holding half)
    DDP that sums the gradients instead of averaging them
                                     -> dist.ddp-grad-average, dist.ddp-loss-sync red
    the note's DDP, which synchronizes the loss: every rank's loss is the ranks' mean
                                     -> dist.ddp-loss-sync red (the loss it leaves local)
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

from spec_runner import assert_goes_red, assert_holding_half_goes_red, assert_not_holding


def test_workers_without_local_rank_turn_env_vars_and_local_rank_claims_red(run_spec):
    run = run_spec("--claim", "dist.launch-env-vars", "--claim", "dist.local-rank-meaning", "-m", "cpu",
                   world="workers_without_local_rank")
    assert_goes_red(run, "dist.launch-env-vars", "LOCAL_RANK")
    assert_goes_red(run, "dist.local-rank-meaning", "LOCAL_RANK")


def test_workers_told_the_default_master_address_turn_master_defaults_red(run_spec):
    run = run_spec("--claim", "dist.launch-master-defaults", "-m", "cpu",
                   world="workers_told_the_default_master_address")
    assert_goes_red(run, "dist.launch-master-defaults", "MASTER_ADDR '127.0.0.1'", "and a free port")


def test_a_launch_whose_workers_cannot_form_a_group_turns_launch_is_current_red(run_spec):
    """dist.launch-is-current is partly (it launches, deprecated): its holding half must go red."""
    run = run_spec("tests/test_dist_launch.py", "--claim", "dist.launch-is-current", "-m", "cpu",
                   world="workers_without_master_addr")
    assert_holding_half_goes_red(run, "dist.launch-is-current")


def test_the_notes_rank_and_world_size_turn_those_claims_red(run_spec):
    run = run_spec("--claim", "dist.rank-meaning", "--claim", "dist.world-size-meaning", "-m", "cpu",
                   world="notes_rank_and_world_size")
    assert_goes_red(run, "dist.rank-meaning", "RANK per machine")
    assert_goes_red(run, "dist.world-size-meaning", "WORLD_SIZE")


def test_ddp_without_its_broadcast_and_a_dead_set_epoch_turn_seed_and_epoch_claims_red(run_spec):
    run = run_spec("--claim", "dist.ddp-same-seed", "--claim", "dist.sampler-set-epoch", "-m", "cpu",
                   world="ddp_without_initial_broadcast")
    assert_goes_red(run, "dist.ddp-same-seed", "kept its own weights")
    assert_goes_red(run, "dist.sampler-set-epoch", "distinct orders")


def test_ddp_that_sums_gradients_turns_grad_average_red(run_spec):
    run = run_spec("--claim", "dist.ddp-grad-average,dist.ddp-loss-sync", "-m", "cpu", world="ddp_sums_gradients")
    assert_goes_red(run, "dist.ddp-grad-average", "not the mean")
    assert_goes_red(run, "dist.ddp-loss-sync", "not the mean")


def test_ddp_that_synchronizes_the_loss_turns_loss_sync_red(run_spec):
    """The note's world for dist.ddp-loss-sync (refuted): every rank's loss is the ranks' mean."""
    run = run_spec("--claim", "dist.ddp-loss-sync", "-m", "cpu", world="ddp_synchronizes_the_loss")
    assert_goes_red(run, "dist.ddp-loss-sync", "its own data gives")


def test_a_syncbn_constructor_exactly_as_printed_turns_syncbn_signature_red(run_spec):
    run = run_spec("tests/test_dist_sampler_syncbn.py::test_syncbn_constructor_has_more_parameters_than_the_notes_call",
                   "--claim", "dist.syncbn-signature", "-m", "cpu", world="syncbn_with_the_notes_signature")
    assert_goes_red(run, "dist.syncbn-signature", "parameters after the note's five")


@pytest.mark.needs(gpus=3, serial=True)
def test_dataparallel_quiet_on_three_gpus_turns_comm_scaling_red(run_spec):
    run = run_spec("tests/test_dist_ddp.py", "--claim", "dist.dp-comm-scaling", "-m", "gpu and benchmark",
                   "-k", "grows_from_two_to_three", world="dataparallel_quiet_on_three_gpus", timeout=300)
    # pinned to "the opposite": the three-GPU side is a single-GPU pass here, so it talks less by construction
    assert_goes_red(run, "dist.dp-comm-scaling", "measured the opposite of the claim")


@pytest.mark.needs(gpus=2, processes=True, serial=True)
def test_ddp_ranks_that_lose_time_every_step_do_not_hold_ddp_faster(run_spec):
    run = run_spec("tests/test_dist_ddp.py", "--claim", "dist.ddp-faster", "-m", "gpu and benchmark",
                   "-k", "ddp_steps_faster", world="slow_ddp_forward", timeout=500)
    # 10 ms more per forward may only cancel DDP's real lead (inconclusive), or reverse it (failed)
    assert_not_holding(run, "dist.ddp-faster", "failed", "inconclusive")


@pytest.mark.needs(gpus=2)
def test_dataparallel_that_does_not_split_turns_dp_auto_split_red(run_spec):
    run = run_spec("tests/test_dist_ddp.py", "--claim", "dist.dp-auto-split", "-m", "gpu",
                   "-k", "scatters_from_wherever", world="dataparallel_does_not_split")
    assert_goes_red(run, "dist.dp-auto-split", "('cuda:0', 8, ")


# min_torch 2.0: before, SyncBatchNorm without a process group raises in the DataParallel replicas
# (get_world_size of an uninitialized default group), in the real world as in this one
@pytest.mark.needs(gpus=2, min_torch="2.0")
def test_syncbn_synced_across_dataparallel_replicas_turns_syncbn_with_dp_red(run_spec):
    run = run_spec("tests/test_dist_sampler_syncbn.py", "--claim", "dist.syncbn-with-dp", "-m", "gpu",
                   world="syncbn_synced_under_dataparallel")
    assert_goes_red(run, "dist.syncbn-with-dp", "not per-replica statistics")


@pytest.mark.needs(gpus=2, processes=True)
def test_a_buffer_broadcast_that_hits_saved_stats_turns_bn_inplace_error_red(run_spec):
    run = run_spec("tests/test_dist_sampler_syncbn.py", "--claim", "dist.bn-inplace-error", "-m", "gpu",
                   "-k", "inplace_error_needs_two_forwards", world="buffer_broadcast_hits_saved_stats", timeout=300)
    assert_goes_red(run, "dist.bn-inplace-error", "default/train_loop", "modified by an inplace operation")


@pytest.mark.needs(gpus=1, processes=True)
def test_a_buffer_broadcast_that_hits_saved_stats_on_one_gpu_turns_bn_inplace_error_red(run_spec):
    run = run_spec("tests/test_dist_sampler_syncbn.py", "--claim", "dist.bn-inplace-error", "-m", "gpu",
                   "-k", "on_one_gpu and inplace_error", world="buffer_broadcast_hits_saved_stats", timeout=300)
    assert_goes_red(run, "dist.bn-inplace-error", "default/train_loop", "modified by an inplace operation")


@pytest.mark.needs(gpus=1, processes=True)
def test_syncbn_with_each_ranks_own_statistics_turns_syncbn_global_stats_red(run_spec):
    run = run_spec("tests/test_dist_sampler_syncbn.py", "--claim", "dist.syncbn-global-stats", "-m", "gpu",
                   world="syncbn_with_local_stats", timeout=300)
    assert_goes_red(run, "dist.syncbn-global-stats", "rank 0 output")

"""Wrong-world checks for the distributed claims.

The launches and the spawn world run in child processes, so patching torch in the pytest
process is not enough: these worlds patch one torch module right after each child first imports
it (their TARGET and patch(); see wrong_world/world_hook.py). The checks
of DataParallel and DDP on GPUs need that many CUDA GPUs, like the tests they check (the `gpu`
marker selects them): without them they skip with the reason; the timing ones declare
needs(serial=True) too.

    launcher env without LOCAL_RANK  -> dist.launch-env-vars, dist.local-rank-meaning red (their holding
                                        halves)
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
                                     -> dist.syncbn-signature red (its failing half)
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

    torch.distributed.launch that does not warn (no FutureWarning naming torchrun, in the
      launchers nor in-process)      -> the failing half (the deprecation test) of the 14 launcher
                                        claims that are partly from 1.9, and of dist.launch-is-current, red
    the launcher of the torch 1.6 source: --local_rank=<n> (underscore), CalledProcessError for a
      failing worker, --master_port defaulting to 29500 (in-process parser)
                                     -> dist.launch-local-rank-arg, dist.launch-failure,
                                        dist.launch-master-defaults red
      with, in the same run, a launcher that tells every worker GROUP_RANK 0 and runs the
      --no_python program through python -u
                                     -> dist.launch-nnodes-node-rank, dist.launch-no-python-runs-the-program,
                                        dist.launch-no-python-needs-use-env red (their holding halves)
    LOCAL_RANK only for the processes that have a GPU of their own
                                     -> dist.local-rank-meaning red (its failing half; fewer GPUs than
                                        processes per machine)
    the note's SyncBatchNorm(num_feature, eps=-1e-05): batch normalization that takes a negative
      eps as its magnitude (no ValueError, no NaN)
                                     -> dist.syncbn-negative-eps red
    DDP that syncs the replicas at its first forward, not at construction (a checkpoint loaded
      after the wrapping line reaches every rank, one loaded before does not)
                                     -> dist.ddp-load-after-wrap red
    the note's DataParallel: wrapping moves the model to device_ids[0] itself, whatever the ids
                                     -> dist.dp-wrap-one-line red (two GPUs)
    --nproc_per_node capped at the node's GPUs (at least one process)
                                     -> dist.launch-nproc-gpus red (both halves; fewer GPUs than
                                        processes per machine)
    the added cases, two worlds in one run: a launcher whose module option is -m only (--module
      sets nothing; in-process parser), and one that resolves a --master_addr given as a host name
      (localhost reaches the workers as 127.0.0.1; launcher processes)
                                     -> dist.launch-module, dist.launch-master-node0 red (their holding
                                        halves, on the added case alone)

Not covered: dist.dp-low-utilization (a DataParallel that keeps both GPUs busy cannot be
made by patching Python; doing less work instead would make the check depend on how GEMM
time scales with rows).
"""
from __future__ import annotations

import pytest

from spec_runner import (
    assert_failing_half_goes_red,
    assert_goes_red,
    assert_holding_half_goes_red,
    assert_not_holding,
    claim_args,
    red_tests,
)

# the launcher claims that hold before 1.9 and are partly from 1.9 (torch.distributed.launch is deprecated):
# one test decides their failing half, test_every_launch_through_the_module_warns_that_it_is_deprecated_for_torchrun
DEPRECATED_LAUNCHER_CLAIMS = [
    "dist.spawn-and-launch", "dist.launch-help-options", "dist.launch-master-defaults", "dist.launch-master-node0",
    "dist.launch-use-env", "dist.launch-local-rank-arg", "dist.launch-module", "dist.launch-no-python-needs-use-env",
    "dist.launch-no-python-runs-the-program", "dist.launch-nnodes-node-rank", "dist.launch-defaults",
    "dist.launch-script-args", "dist.launch-env-vars", "dist.launch-omp-threads",
]
# processes per machine in the launch tests (tests/test_dist_launch.py's NPROC): with as many GPUs, every
# process has a GPU of its own and the failing halves that need fewer GPUs than processes skip
NPROC = 2


def test_workers_without_local_rank_turn_env_vars_and_local_rank_claims_red(run_spec):
    run = run_spec("--claim", "dist.launch-env-vars", "--claim", "dist.local-rank-meaning", "-m", "cpu",
                   world="workers_without_local_rank")
    assert_holding_half_goes_red(run, "dist.launch-env-vars", "LOCAL_RANK")
    assert_holding_half_goes_red(run, "dist.local-rank-meaning", "LOCAL_RANK")


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
    assert_failing_half_goes_red(run, "dist.syncbn-signature", "parameters after the note's five")


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


def test_a_launch_module_that_does_not_warn_turns_the_launcher_claims_failing_halves_red(run_spec):
    """The 14 launcher claims (partly from 1.9; on torch >= 2.12 dist.launch-master-defaults and >= 2.0
    dist.launch-local-rank-arg are refuted, their deprecation test still left-out) and
    dist.launch-is-current: their failing half is the deprecation, absent here."""
    run = run_spec("tests/test_dist_launch.py", *claim_args(*DEPRECATED_LAUNCHER_CLAIMS, "dist.launch-is-current"),
                   "-m", "cpu", "-k", "deprecat", world="launch_that_does_not_warn", timeout=300)
    for cid in DEPRECATED_LAUNCHER_CLAIMS:
        assert_failing_half_goes_red(run, cid, "no deprecation warning in stderr")
    assert_failing_half_goes_red(run, "dist.launch-is-current", "torch.distributed.launch is deprecated")


def test_the_torch_1_6_launcher_and_one_that_ignores_node_rank_and_no_python_turn_their_claims_red(run_spec):
    run = run_spec("tests/test_dist_launch.py",
                   *claim_args("dist.launch-local-rank-arg", "dist.launch-failure", "dist.launch-master-defaults",
                               "dist.launch-nnodes-node-rank", "dist.launch-no-python-runs-the-program",
                               "dist.launch-no-python-needs-use-env"),
                   "-m", "cpu", "-k", "not deprecat",
                   world=("launcher_as_in_torch_1_6_source", "launcher_ignores_node_rank_and_no_python"), timeout=300)
    assert_goes_red(run, "dist.launch-local-rank-arg", "expected --local-rank=0 (dash)")
    assert_goes_red(run, "dist.launch-failure", "subprocess.CalledProcessError")
    assert_goes_red(run, "dist.launch-master-defaults", "--master_port default 29500, expected None")
    assert_holding_half_goes_red(run, "dist.launch-nnodes-node-rank",
                                 "(--node_rank given, GROUP_RANK, GROUP_WORLD_SIZE)")
    assert_holding_half_goes_red(run, "dist.launch-no-python-runs-the-program", "'-u'")
    assert_holding_half_goes_red(run, "dist.launch-no-python-needs-use-env", "'-u'")


def test_local_rank_only_for_processes_with_a_gpu_turns_local_rank_meanings_failing_half_red(run_spec):
    import torch

    if torch.cuda.device_count() >= NPROC:
        pytest.skip(f"{torch.cuda.device_count()} GPUs: every one of {NPROC} processes per machine has a GPU here")
    run = run_spec("tests/test_dist_launch.py", "--claim", "dist.local-rank-meaning", "-m", "cpu",
                   world="local_rank_only_for_processes_with_a_gpu")
    assert_failing_half_goes_red(run, "dist.local-rank-meaning", "LOCAL_RANK")


def test_nproc_per_node_capped_at_the_gpus_turns_nproc_gpus_failing_half_red(run_spec):
    import torch

    if torch.cuda.device_count() >= NPROC:
        pytest.skip(f"{torch.cuda.device_count()} GPUs: {NPROC} processes per node is one per GPU at most here")
    run = run_spec("tests/test_dist_launch.py", "--claim", "dist.launch-nproc-gpus", "-m", "cpu",
                   world="launcher_caps_processes_at_the_gpus")
    assert_failing_half_goes_red(run, "dist.launch-nproc-gpus", "test_nproc_per_node_starts_processes_beyond_the_gpus")
    # and its holding half: --nproc_per_node is no longer the number of processes whatever the GPUs
    assert_holding_half_goes_red(run, "dist.launch-nproc-gpus", "test_nproc_per_node_is_the_number_of_processes")
    # one process per node (no GPU, or one), where the launch asked for two: the workers() check says so
    assert f"{NPROC} workers recorded, expected {2 * NPROC}" in run.output, run.output[-3000:]


def test_batch_norm_that_takes_a_negative_eps_turns_syncbn_negative_eps_red(run_spec):
    run = run_spec("tests/test_dist_sampler_syncbn.py", "--claim", "dist.syncbn-negative-eps", "-m", "cpu",
                   world="batch_norm_takes_a_negative_eps")
    # the kernel's NaN for a zero-variance channel is gone (the note's own line stays a SyntaxError)
    assert_goes_red(run, "dist.syncbn-negative-eps", "test_negative_eps_is_accepted_by_the_constructor_but_not_valid",
                    "assert (tensor(False))")


def test_ddp_that_syncs_at_its_first_forward_turns_ddp_load_after_wrap_red(run_spec):
    run = run_spec("tests/test_dist_ddp.py", "--claim", "dist.ddp-load-after-wrap", "-m", "cpu",
                   world="ddp_broadcasts_at_its_first_forward", timeout=300)
    # rank 0's checkpoint loaded before the wrapping line no longer reaches rank 1
    assert_goes_red(run, "dist.ddp-load-after-wrap", "rank 1: [", "== {0.25}")


@pytest.mark.needs(gpus=2)
def test_dataparallel_that_moves_the_model_itself_turns_dp_wrap_one_line_red(run_spec):
    run = run_spec("tests/test_dist_ddp.py", "--claim", "dist.dp-wrap-one-line", "-m", "gpu",
                   world="dataparallel_moves_the_model_itself")
    assert_goes_red(run, "dist.dp-wrap-one-line", "DID NOT RAISE")


# the added case of each launcher claim: (its test, what its failure says)
LAUNCHER_ADDED_CASES = {
    "dist.launch-module": ("test_both_spellings_of_the_module_option_set_module[--module]",
                           ("--module did not set module",)),
    "dist.launch-master-node0": ("test_a_master_addr_given_as_a_host_name_reaches_the_workers",
                                 ("MASTER_ADDR / MASTER_PORT ('127.0.0.1', ", "expected localhost:")),
}


def test_a_launcher_with_dash_m_only_and_one_resolving_the_master_host_name_turn_added_cases_red(run_spec):
    run = run_spec("tests/test_dist_launch.py", *claim_args(*LAUNCHER_ADDED_CASES), "-m", "cpu",
                   world=("launcher_takes_only_dash_m", "launcher_resolves_a_master_host_name"), timeout=300)
    for claim, (test, fragments) in LAUNCHER_ADDED_CASES.items():
        assert_holding_half_goes_red(run, claim, *fragments)
        # red on the added case alone: -m, and an address given as an IP, work as before
        red = red_tests(run, claim)
        assert red == [test], f"{claim}: red tests {red}"

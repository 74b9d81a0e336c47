"""DistributedSampler, batch norm under DDP, SyncBatchNorm.

Notes: 003_df07c2a5da61a567.txt › 在多个 GPU 上训练神经网络 (DistributedSampler(dataset),
shuffle=(sampler is None), sampler.set_epoch) and › 经验总结 (SyncBatchNorm or
broadcast_buffers=False, else the in-place error); 000_03e1e7bc9bbd04f1.txt › 3. 多卡同步 BN
(per-card statistics by default, SyncBN's global statistics and gradients, its constructor);
002_d3afcdbaa9416717.txt › 多卡同步batch (DataParallel, SyncBatchNorm(num_feature, eps=-1e-05, xxxxx)).

The process-group parts come from the spawn world (fixtures/dist_workers/spawn_world.py):
each rank feeds its own data (different mean and scale) through DDP(BatchNorm1d) with and
without broadcast_buffers, runs three training patterns for the in-place error, and tries
SyncBatchNorm on CPU; on two GPUs the same world measures SyncBatchNorm's global statistics.
"""
from __future__ import annotations

import inspect

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given
from hypothesis import strategies as st
from torch import nn
from torch.testing import assert_close
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from fixtures import dist_workers, signatures
from fixtures.boundaries import (
    BATCHNORM_EPS_CHECKED_SINCE,
    BROADCAST_BUFFERS_DEPRECATED_SINCE,
    SYNCBN_FALLBACK_SINCE,
    TWO_FORWARDS_OK_SINCE,
)
from fixtures.procs import WORLD_SIZE, world_section
from fixtures.signatures import parameters_without_self, signature_parameters
from fixtures.tensors import f32
from fixtures.versions import torch_at_least

MOMENTUM = 0.1
DATASET = list(range(11))  # 11 items over 2 ranks: one index is repeated to pad


def local_bn(x: torch.Tensor, eps: float = 1e-5) -> torch.Tensor:
    return F.batch_norm(x, None, None, training=True, eps=eps)


def init_params(cls) -> list:
    """(name, default) of a constructor's parameters after self; None where there is no default."""
    return [(n, None if d is inspect.Parameter.empty else d) for n, d in signature_parameters(cls.__init__)]


# --- DistributedSampler ---------------------------------------------------------------------


@pytest.mark.claim("dist.sampler-shard")
@pytest.mark.needs(processes=True)
def test_sampler_takes_rank_and_world_size_from_the_default_group(world):
    shards = world_section(world, dist_workers.SAMPLER)
    for rank, s in enumerate(shards):
        assert (s["num_replicas"], s["rank"]) == (WORLD_SIZE, rank)
        same = DistributedSampler(DATASET, num_replicas=WORLD_SIZE, rank=rank)  # no group needed this way
        assert s["epoch0"] == list(same), f"rank {rank}"
    merged = shards[0]["epoch0"] + shards[1]["epoch0"]
    assert sorted(set(merged)) == DATASET and len(merged) == 12, f"shards {shards[0]['epoch0']} {shards[1]['epoch0']}"


@pytest.mark.claim("dist.sampler-shard")
def test_sampler_without_a_process_group_needs_num_replicas_and_rank():
    # RuntimeError in older releases, ValueError in recent ones; the message is the same
    with pytest.raises((RuntimeError, ValueError), match="Default process group has not been initialized"):
        DistributedSampler(DATASET)


@pytest.mark.claim("dist.sampler-shard")
@given(size=st.integers(1, 40), replicas=st.integers(1, 5), drop_last=st.booleans(), shuffle=st.booleans())
def test_shards_are_equal_sized_disjoint_up_to_padding_and_cover(size, replicas, drop_last, shuffle):
    data = list(range(size))
    shards = [list(DistributedSampler(data, num_replicas=replicas, rank=r, shuffle=shuffle, drop_last=drop_last))
              for r in range(replicas)]
    lengths = {len(s) for s in shards}
    assert len(lengths) == 1, f"unequal shards {shards}"
    flat = [i for s in shards for i in s]
    if drop_last:  # the tail is dropped: disjoint shards, fewer than `replicas` items left out
        assert len(flat) == size // replicas * replicas and len(set(flat)) == len(flat), shards
    else:  # padded up to a multiple of `replicas` by repeating indices: covering
        assert set(flat) == set(data), f"not covering: {shards}"
        assert len(flat) == -(-size // replicas) * replicas, shards


@pytest.mark.claim("dist.sampler-set-epoch")
@pytest.mark.parametrize("rank", [0, 1])
def test_set_epoch_is_what_changes_the_shuffled_order(rank):
    sampler = DistributedSampler(DATASET, num_replicas=2, rank=rank)
    first = list(sampler)
    assert list(sampler) == first, "without set_epoch every epoch repeats the same order"
    orders = []
    for epoch in range(4):
        sampler.set_epoch(epoch)
        orders.append(list(sampler))
    distinct = len({tuple(o) for o in orders})
    assert orders[0] == first and distinct == 4, f"set_epoch(0..3) gave {distinct} distinct orders: {orders}"
    other = DistributedSampler(DATASET, num_replicas=2, rank=1 - rank)
    other.set_epoch(3)  # every rank shuffles with the same (seed, epoch): shards stay disjoint
    assert set(orders[3]) | set(other) == set(DATASET)


@pytest.mark.claim("dist.sampler-set-epoch")
def test_loader_shuffle_must_be_off_when_a_sampler_is_given():
    sampler = DistributedSampler(DATASET, num_replicas=2, rank=0)
    loader = DataLoader(DATASET, shuffle=(sampler is None), sampler=sampler)  # the note's line
    assert [int(b) for b in loader] == list(sampler)
    with pytest.raises(ValueError, match="mutually exclusive"):
        DataLoader(DATASET, shuffle=True, sampler=sampler)


@pytest.mark.claim("dist.sampler-set-epoch")
@pytest.mark.needs(processes=True)
def test_in_a_group_the_order_changes_only_after_set_epoch(world):
    for s in world_section(world, dist_workers.SAMPLER):
        assert s["epoch0_again"] == s["epoch0"] and s["epoch1"] != s["epoch0"], s


# --- batch norm under DDP ----------------------------------------------------------------


@pytest.mark.claim("dist.bn-per-device-default")
@pytest.mark.needs(processes=True)
def test_without_syncbn_each_rank_normalizes_with_its_own_batch(world):
    bn = [s["default"] for s in world_section(world, dist_workers.BN)]
    everything = torch.cat([f32(s["x1"]) for s in bn])
    for rank, s in enumerate(bn):
        x, y = f32(s["x1"]), f32(s["y1"])
        assert_close(y, local_bn(x), msg=lambda m: f"rank {rank}: not normalized with its own statistics\n{m}")
        global_rows = local_bn(everything)[rank * len(x):(rank + 1) * len(x)]
        assert not torch.allclose(y, global_rows, atol=1e-3), "normalized with the global batch"
        assert_close(f32(s["running_mean_1"]), MOMENTUM * x.mean(0))  # from zero, with its own mean


@pytest.mark.claim("dist.bn-inplace-error")
@pytest.mark.needs(processes=True)
def test_broadcast_buffers_copies_rank0s_running_stats_before_each_forward(world):
    for label, source in (("default", 0), ("broadcast_buffers_false", None)):
        bn = [s[label] for s in world_section(world, dist_workers.BN)]
        for rank, s in enumerate(bn):
            start = f32(bn[rank if source is None else source]["running_mean_1"])
            expected = (1 - MOMENTUM) * start + MOMENTUM * f32(s["x2"]).mean(0)
            assert_close(f32(s["running_mean_2"]), expected, msg=lambda m: f"{label}, rank {rank}\n{m}")
        deprecated = any("`broadcast_buffers` is deprecated" in w for w in bn[0]["warnings"])
        assert deprecated == (label != "default" and torch_at_least(BROADCAST_BUFFERS_DEPRECATED_SINCE)), (
            bn[0]["warnings"])


@pytest.mark.claim("dist.bn-inplace-error", decides="wrong")
@pytest.mark.needs(processes=True)
def test_plain_batchnorm_trains_under_ddp_and_the_inplace_error_needs_two_forwards(world):
    """Decided on two GPUs (NCCL, the note's setting); the gloo case is supporting evidence.
    The error needs a saved running statistic that the buffer broadcast overwrites: plain
    BatchNorm saves them in both modes, SyncBatchNorm only in eval (in training its own
    autograd function saves the batch statistics)."""
    two_forwards = ["default/two_forwards_one_backward", "default/eval_two_forwards_one_backward"]
    if world["backend"] == "nccl":
        two_forwards.append("syncbn/eval_two_forwards_one_backward")
    for rank, runs in enumerate(world_section(world, dist_workers.BN_INPLACE)):
        expected_variants = ({"default", "broadcast_buffers_false"}
                             | ({"syncbn"} if world["backend"] == "nccl" else set()))
        assert {k.split("/")[0] for k in runs} == expected_variants, sorted(runs)
        # an ordinary loop, and anything with broadcast_buffers=False, always trains
        failed = {k: v for k, v in runs.items() if v != "ok" and k not in two_forwards}
        assert not failed, f"rank {rank}: {failed}"
        for key in two_forwards:
            if torch_at_least(TWO_FORWARDS_OK_SINCE):
                assert runs[key] == "ok", f"rank {rank}, {key}: {runs[key]}"
            else:  # the buffer broadcast before the second forward bumps a saved tensor's version
                assert "modified by an inplace operation" in runs[key], f"rank {rank}, {key}: {runs[key]}"


@pytest.mark.claim("dist.bn-inplace-error")
@pytest.mark.needs(processes=True)
def test_syncbn_is_no_way_out_on_cpu(gloo_world):
    for s in world_section(gloo_world, dist_workers.SYNCBN):
        assert s["ddp_of_cpu_syncbn"] == "SyncBatchNorm layers only work with GPU modules"
        assert (s["cpu_train_forward_in_group"] or "").startswith("SyncBatchNorm expected input tensor to be on GPU")


@pytest.mark.claim("dist.bn-inplace-error", decides="wrong")
@pytest.mark.needs(gpus=1, processes=True)
def test_plain_batchnorm_trains_under_ddp_on_one_gpu_and_the_inplace_error_needs_two_forwards(gloo_cuda_world):
    """DDP over gloo with CUDA modules, both ranks on one GPU: the CUDA batch-norm kernels and
    SyncBatchNorm (GPU modules) under the buffer broadcast, which one GPU decides as well as two
    (the broadcast is the same collective; NCCL would refuse two ranks on one GPU)."""
    two_forwards = ["default/two_forwards_one_backward", "default/eval_two_forwards_one_backward",
                    "syncbn/eval_two_forwards_one_backward"]
    for rank, runs in enumerate(world_section(gloo_cuda_world, dist_workers.BN_INPLACE)):
        assert {k.split("/")[0] for k in runs} == {"default", "broadcast_buffers_false", "syncbn"}, sorted(runs)
        failed = {k: v for k, v in runs.items() if v != "ok" and k not in two_forwards}
        assert not failed, f"rank {rank}: an ordinary loop or broadcast_buffers=False did not train: {failed}"
        for key in two_forwards:
            if torch_at_least(TWO_FORWARDS_OK_SINCE):
                assert runs[key] == "ok", f"rank {rank}, {key}: {runs[key]}"
            else:  # the buffer broadcast before the second forward bumps a saved tensor's version
                assert "modified by an inplace operation" in runs[key], f"rank {rank}, {key}: {runs[key]}"


# --- SyncBatchNorm ------------------------------------------------------------------------------


NOTE_SYNCBN_PARAMS = [("num_features", None), ("eps", 1e-05), ("momentum", 0.1), ("affine", True),
                      ("track_running_stats", True)]
SYNCBN_EXTRA_PARAMS = [("process_group", None), ("device", None), ("dtype", None)]
SIGNATURES = {"dist.syncbn-signature": (lambda: init_params(nn.SyncBatchNorm), NOTE_SYNCBN_PARAMS)}


@pytest.mark.claim("dist.syncbn-signature", half="failing")
def test_syncbn_constructor_has_more_parameters_than_the_notes_call():
    # the signature rule (fixtures/signatures.py): the printed five are right, more follow
    params = init_params(nn.SyncBatchNorm)
    kinds = {p.name: p.kind for p in parameters_without_self(nn.SyncBatchNorm.__init__)}
    _, missing = signatures.compare(params, NOTE_SYNCBN_PARAMS)
    positional = [(n, d) for n, d in missing if kinds[n] != inspect.Parameter.KEYWORD_ONLY]
    keyword_only = [n for n, _ in missing if kinds[n] == inspect.Parameter.KEYWORD_ONLY]
    assert positional == SYNCBN_EXTRA_PARAMS, f"parameters after the note's five: {missing}"
    assert set(keyword_only) <= {"bias"}, f"keyword-only parameters {keyword_only}"


@pytest.mark.claim("dist.syncbn-signature", half="holding")
def test_syncbn_constructor_starts_with_the_notes_five_parameters():
    wrong, _ = signatures.compare(init_params(nn.SyncBatchNorm), NOTE_SYNCBN_PARAMS)
    assert wrong == [], f"printed vs installed: {wrong}"
    num_features = 8
    sync_bn = torch.nn.SyncBatchNorm(num_features, eps=1e-05, momentum=0.1, affine=True,
                                     track_running_stats=True)
    got = (sync_bn.num_features, sync_bn.eps, sync_bn.momentum, sync_bn.affine, sync_bn.track_running_stats)
    assert got == (8, 1e-05, 0.1, True, True)
    assert sync_bn.weight.shape == sync_bn.running_mean.shape == (8,)


@pytest.mark.claim("dist.syncbn-signature")
@pytest.mark.needs(processes=True)
def test_convert_sync_batchnorm_swaps_only_the_batchnorm_layers(gloo_world):
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU())
    linear = model[0]
    with torch.no_grad():
        model[1].running_mean.fill_(0.5)
        model[1].weight.fill_(2.0)
    converted = nn.SyncBatchNorm.convert_sync_batchnorm(model)
    assert [type(m).__name__ for m in converted] == ["Linear", "SyncBatchNorm", "ReLU"]
    assert converted[0] is linear, "other layers are kept, not copied"
    assert set(converted[1].running_mean.tolist()) == {0.5} and set(converted[1].weight.tolist()) == {2.0}
    for s in world_section(gloo_world, dist_workers.SYNCBN):
        assert s["converted"] == ["Linear", "SyncBatchNorm", "ReLU", "Linear"]


@pytest.mark.claim("dist.syncbn-negative-eps", decides="wrong")
def test_the_notes_line_does_not_even_compile():
    with pytest.raises(SyntaxError, match="positional argument follows keyword argument"):
        compile("sync_bn = torch.nn.SyncBatchNorm(num_feature, eps=-1e-05, xxxxx)", "note 002", "exec")


@pytest.mark.claim("dist.syncbn-negative-eps", decides="wrong")
def test_negative_eps_is_accepted_by_the_constructor_but_not_valid():
    layer = torch.nn.SyncBatchNorm(3, eps=-1e-05)  # accepted without a word, in every version
    assert layer.eps == -1e-05
    x = torch.randn(16, 3)
    x[:, 1] = 4.0  # a channel whose batch variance is exactly 0
    # the kernel itself does not check: 1 / sqrt(0 - 1e-05) is NaN
    raw = torch.batch_norm(x, None, None, None, None, True, MOMENTUM, layer.eps, False)
    assert torch.isnan(raw[:, 1]).all() and not torch.isnan(raw[:, [0, 2]]).any(), raw[:2]
    if torch_at_least(BATCHNORM_EPS_CHECKED_SINCE):  # the layer (no process group: plain batch_norm) refuses
        with pytest.raises(ValueError, match=r"batch_norm eps must be (positive|non-negative)"):
            layer(x)
    elif torch_at_least(SYNCBN_FALLBACK_SINCE):
        assert torch.isnan(layer(x)[:, 1]).all()


def assert_global_batch_statistics(ranks: list[dict]) -> None:
    """Each rank's SyncBatchNorm output, input gradient and running mean equal one BatchNorm's
    over the ranks' batches concatenated."""
    __tracebackhide__ = True
    x = torch.cat([f32(s["x"]) for s in ranks]).requires_grad_()
    weight = torch.cat([f32(s["weight"]) for s in ranks])
    y = local_bn(x)  # one BatchNorm over the whole global batch
    (y * weight).sum().backward()
    rows = len(ranks[0]["x"])
    for rank, s in enumerate(ranks):
        part = slice(rank * rows, (rank + 1) * rows)
        assert_close(f32(s["y"]), y[part].detach(), msg=lambda m: f"rank {rank} output\n{m}")
        assert_close(f32(s["x_grad"]), x.grad[part], msg=lambda m: f"rank {rank} input gradient\n{m}")
        assert_close(f32(s["running_mean"]), MOMENTUM * x.detach().mean(0))


@pytest.mark.claim("dist.syncbn-global-stats")
@pytest.mark.needs(gpus=2, processes=True)
def test_syncbn_normalizes_with_all_ranks_data_and_backpropagates_globally(nccl_world):
    assert_global_batch_statistics(world_section(nccl_world, dist_workers.SYNCBN))


@pytest.mark.claim("dist.syncbn-global-stats")
@pytest.mark.needs(gpus=1, processes=True)
def test_syncbn_on_one_gpu_normalizes_with_both_ranks_data_and_backpropagates_globally(gloo_cuda_world):
    """Two gloo ranks sharing one GPU: SyncBatchNorm gathers over gloo (all_gather, not
    all_gather_into_tensor, since pytorch/pytorch#104250), so the statistics span both ranks
    whether the ranks have a GPU each or share one."""
    assert_global_batch_statistics(world_section(gloo_cuda_world, dist_workers.SYNCBN))


@pytest.mark.claim("dist.syncbn-with-dp", decides="wrong")
def test_without_a_process_group_syncbn_is_plain_batchnorm():
    torch.manual_seed(0)
    x = torch.randn(16, 3) * 3 + 1
    sync, plain = nn.SyncBatchNorm(3), nn.BatchNorm1d(3)
    if torch_at_least(SYNCBN_FALLBACK_SINCE):
        assert torch.equal(sync(x), plain(x))
        assert torch.equal(sync.running_mean, plain.running_mean) and torch.equal(sync.running_var, plain.running_var)
    else:
        with pytest.raises(ValueError, match="expected input tensor to be on GPU"):
            sync(x)


@pytest.mark.claim("dist.syncbn-with-dp", decides="wrong")
@pytest.mark.needs(gpus=2)
def test_syncbn_inside_dataparallel_normalizes_each_replica_separately():
    torch.manual_seed(0)
    x = torch.cat([torch.randn(8, 3), torch.randn(8, 3) * 4 + 10])  # two very different halves
    dp = nn.DataParallel(nn.SyncBatchNorm(3).to("cuda:0"), device_ids=[0, 1])
    y = dp(x.to("cuda:0")).cpu()
    per_replica = torch.cat([local_bn(x[:8]), local_bn(x[8:])])
    assert_close(y, per_replica, msg=lambda m: f"not per-replica statistics\n{m}")

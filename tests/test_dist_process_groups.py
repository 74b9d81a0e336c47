"""Process groups: mp.spawn, init_process_group, the default group and the collectives.

Notes: 003_df07c2a5da61a567.txt › 在多个 GPU 上训练神经网络 (mp.spawn(main_worker, args=...,
nprocs=..., join=True); MASTER_ADDR / MASTER_PORT then init_process_group("gloo", rank=...,
world_size=...), "gloo can be swapped for nccl"; broadcast, all_gather, barrier);
000_03e1e7bc9bbd04f1.txt › DDP使用 (one group by default; spawn or launch).

All of it is measured in one torch.multiprocessing.spawn world of two ranks
(fixtures/dist_workers/spawn_world.py, run once per session): gloo on CPU here, and
the same world on NCCL with one GPU per rank when two GPUs are present.
"""
from __future__ import annotations

import pytest

from fixtures import dist_workers, procs
from fixtures.dist_workers.spawn_world import SPAWN_MARKER
from fixtures.procs import world_section

pytestmark = pytest.mark.needs(processes=True)


@pytest.mark.claim("dist.default-group")
def test_the_world_group_is_the_only_group_until_new_group_is_called(world):
    groups = world_section(world, dist_workers.DEFAULT_GROUP)
    for rank, g in enumerate(groups):
        if g["groups_after_init"] is not None:  # a private registry; absent in some releases
            assert g["groups_after_init"] == 1, f"rank {rank}: {g['groups_after_init']} groups right after init"
        assert g["world_group_size"] == g["default_size"] == procs.WORLD_SIZE
        # a collective without a group argument runs over every rank: 1 + 2
        assert g["all_reduce_without_group"] == 3.0, g
    # new_group([0]) makes a second group; rank 1 is not a member of it
    assert [g["new_group_size_here"] for g in groups] == [1, -1]
    if groups[0]["groups_after_new_group"] is not None:
        assert groups[0]["groups_after_new_group"] == 2


@pytest.mark.claim("dist.init-gloo-env", "dist.spawn-and-launch", decides="holds")
def test_init_process_group_with_master_env_and_explicit_rank(world):
    init = world_section(world, dist_workers.INIT)
    for rank, s in enumerate(init):
        got = (s["initialized"], s["backend"], s["rank"], s["world_size"])
        assert got == (True, world["backend"], rank, procs.WORLD_SIZE), f"rank {rank}: {s}"


@pytest.mark.claim("dist.spawn-args")
def test_spawn_starts_nprocs_processes_each_calling_fn_with_its_index_then_args(gloo_world):
    spawn = world_section(gloo_world, dist_workers.SPAWN)
    driver = gloo_world["driver"]
    assert [s["index"] for s in spawn] == list(range(procs.WORLD_SIZE))
    for s in spawn:
        assert s["args"][0] == procs.WORLD_SIZE and s["args"][2] == "gloo" and s["args"][-1] == SPAWN_MARKER, s["args"]
        assert s["ppid"] == driver["pid"], "each process is a child of the spawning process"
    assert len({s["pid"] for s in spawn} | {driver["pid"]}) == procs.WORLD_SIZE + 1, "one new process per index"
    assert driver["spawn_returned"] == "None", "join=True waits for all of them and returns None"


@pytest.mark.claim("dist.broadcast")
def test_broadcast_overwrites_the_tensor_on_every_rank_with_rank0s(world):
    b = world_section(world, dist_workers.BROADCAST)
    assert b[1]["before"] != b[0]["before"]
    for rank, s in enumerate(b):
        assert s["after"] == b[0]["before"], f"rank {rank}: {s['before']} -> {s['after']}, rank 0 had {b[0]['before']}"
        assert s["returned"] == "None", "without async_op the call returns None (no work handle)"


@pytest.mark.claim("dist.all-gather")
def test_all_gather_fills_the_given_list_with_every_ranks_tensor(world):
    g = world_section(world, dist_workers.ALL_GATHER)
    every = [s["mine"] for s in g]
    for rank, s in enumerate(g):
        assert s["gathered"] == every, f"rank {rank} gathered {s['gathered']}, expected {every}"
        assert s["same_tensors"], "the list's own tensors are written in place"
        assert s["returned"] == "None"
    if world["backend"] == "gloo":
        # the list must be pre-sized: an empty list is an error, not appended to
        for s in g:
            assert s["empty_list_error"] is not None and "2" in s["empty_list_error"], s["empty_list_error"]


@pytest.mark.claim("dist.barrier")
def test_no_rank_leaves_the_barrier_before_the_last_one_enters_it(world):
    b = world_section(world, dist_workers.BARRIER)
    last_in = max(s["enter"] for s in b)
    first_out = min(s["leave"] for s in b)
    # rank 1 arrives 0.5 s late; rank 0 must wait for it
    assert first_out >= last_in, f"a rank left at {first_out:.3f} before the last arrived at {last_in:.3f}"

"""The note's --nproc_per_node, the number of GPUs of each node: a number given there starts at
most one process per GPU of the node (at least one process on a node without a GPU).

Makes dist.launch-nproc-gpus wrong in both halves: a value beyond the node's GPUs no longer starts
that many processes (its failing half), so the value is no longer the number of processes whatever
the GPUs (its holding half).
"""
TARGET = "torch.distributed.run"


def patch(module):
    import torch

    determine = module.determine_local_world_size

    def determine_local_world_size(nproc_per_node):
        n = determine(nproc_per_node)
        return min(n, max(torch.cuda.device_count(), 1)) if nproc_per_node.isdigit() else n

    module.determine_local_world_size = determine_local_world_size

"""The note's ranks, GPU indices: a process group refuses a rank that has no GPU of its own (more
ranks than visible GPUs), on gloo as NCCL does with two ranks on one GPU (in every process the
spec starts: the spawned ranks).

Makes cuda.device-count-rank wrong in its failing half (two gloo ranks on one GPU).
"""

TARGET = "torch.distributed.distributed_c10d"


def patch(module):
    import torch

    original = module.init_process_group

    def init_process_group(*args, **kwargs):
        result = original(*args, **kwargs)
        rank, size = module.get_rank(), module.get_world_size()
        if torch.cuda.is_available() and size > torch.cuda.device_count():
            raise RuntimeError(f"the note's world: rank {rank} of {size} has no GPU of its own "
                               f"({torch.cuda.device_count()} visible)")
        return result

    module.init_process_group = init_process_group

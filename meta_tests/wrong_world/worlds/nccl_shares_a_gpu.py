"""NCCL that lets two ranks share one GPU, as gloo does: init_process_group("nccl") starts gloo, in every
process the spec starts (the spawn workers).

Makes cuda.device-count-rank wrong: no 'Duplicate GPU detected' error.
"""

TARGET = "torch.distributed.distributed_c10d"


def patch(module):
    original = module.init_process_group

    def init_process_group(backend=None, *args, **kwargs):
        if backend == "nccl":
            backend = "gloo"  # a world whose NCCL lets two ranks share one GPU, as gloo does
        return original(backend, *args, **kwargs)

    module.init_process_group = init_process_group

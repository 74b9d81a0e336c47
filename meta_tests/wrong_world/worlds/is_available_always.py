"""torch.cuda.is_available() that says True with no GPU visible: in every process the spec starts, and in
the pytest process too (where this torch sees no GPU, no_gpu_python runs its code there).

Makes cuda.is-available wrong.
"""
TARGET = "torch.cuda"


def patch(module):
    module.is_available = lambda: True


def apply():
    import torch.cuda

    patch(torch.cuda)

"""cudnn.benchmark that is remembered but never reaches cuDNN: in the pytest process, and at start-up in
every Python process the spec starts (the conv workers). Not an after-import patch: torch.backends.cudnn
replaces itself in sys.modules with a CudnnModule (whose class holds the benchmark property) while it
executes, so a patch after its import would reach the module object that import then discards.

Makes cudnn.benchmark-speedup inconclusive or failed: no autotuning, no speed-up and no cost on a new shape.
"""


def apply():
    import torch
    from torch.backends import ContextProp

    state = {"on": torch._C._get_cudnn_benchmark()}
    torch._C._set_cudnn_benchmark(False)
    type(torch.backends.cudnn).benchmark = ContextProp(lambda: state["on"],
                                                       lambda v: state.__setitem__("on", bool(v)))


start_child = apply  # the same, at start-up of every child (torch imported there only then)

"""A torch/torchvision pair that fails to load: torchvision is installed (its files, its version) but
importing it raises what a torchvision built for another torch raises ("operator torchvision::nms
does not exist", the error PyPI's torchvision gives beside a CPU-only build of the same torch).
Read by pipeline/test_torchvision_pairing.py."""
import importlib.abc
import importlib.util
import sys

ERROR = "operator torchvision::nms does not exist"


class FailsToLoad(importlib.abc.Loader):
    def create_module(self, spec):
        return None

    def exec_module(self, module):
        raise RuntimeError(ERROR)


class Finder(importlib.abc.MetaPathFinder):
    def __init__(self, origin: str):
        self.origin = origin

    def find_spec(self, name, path, target=None):
        if name == "torchvision":
            return importlib.util.spec_from_loader(name, FailsToLoad(), origin=self.origin)
        return None


def apply():
    for name in [m for m in sys.modules if m == "torchvision" or m.startswith("torchvision.")]:
        del sys.modules[name]
    real = importlib.util.find_spec("torchvision")
    sys.meta_path.insert(0, Finder(real.origin))

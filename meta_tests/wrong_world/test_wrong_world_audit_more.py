"""Wrong-world checks for claims re-audited against their notes (issue 11): optim, data, tv.

Each patch puts the library into the world the note describes, or another plausible wrong
one; the claim's tests must go red there, for the reason their assertions give. Each run
collects only the test file of its claims.

- optim.no-zero-grad: the note's world, where a gradient that is not cleared turns into
  random values, and a world where backward() overwrites .grad instead of adding to it.
- tv.to-pil-no-clamp: a ToPILImage that clamps float tensors to [0, 1] itself.
- samplers with the note's signatures (no generator parameter, data.weighted-random-sampler,
  data.subset-random-sampler, data.random-sampler-signature) or another one (BatchSampler with
  a drop_last default, data.batch-sampler; SequentialSampler with a generator,
  data.sequential-sampler).
- tv.datasets-download: an MNIST whose download=True fetches nothing (needs the network, like
  the spec test it checks).
"""
import pytest

from spec_runner import assert_goes_red, claim_args

# Walks the autograd graph of the tensor backward() is called on, to the leaves it will
# write a gradient into (the AccumulateGrad nodes).
LEAVES = """
import torch

_backward = torch.Tensor.backward

def _leaves(tensor):
    seen, stack, leaves = set(), [tensor.grad_fn], []
    while stack:
        fn = stack.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        if getattr(fn, "variable", None) is not None:
            leaves.append(fn.variable)
        stack.extend(next_fn for next_fn, _ in fn.next_functions)
    return leaves
"""

# the note's world: without zero_grad the gradients become random values (of the size the
# accumulated gradient would have had, so that training still oscillates at a high level)
UNCLEARED_GRAD_IS_NOISE = LEAVES + """
def backward(self, *args, **kwargs):
    stale = [p for p in _leaves(self) if p.grad is not None]
    _backward(self, *args, **kwargs)
    with torch.no_grad():
        for p in stale:
            p.grad = torch.randn_like(p.grad) * p.grad.abs().max()

torch.Tensor.backward = backward
"""

# backward() that overwrites .grad: no accumulation, so zero_grad would not be needed at all
BACKWARD_OVERWRITES_GRAD = LEAVES + """
def backward(self, *args, **kwargs):
    for p in _leaves(self):
        p.grad = None
    _backward(self, *args, **kwargs)

torch.Tensor.backward = backward
"""


def test_uncleared_gradients_turning_into_noise_turn_optim_no_zero_grad_red(run_spec):
    run = run_spec("tests/test_optim_zero_grad.py", "-m", "cpu", "--claim", "optim.no-zero-grad",
                   patch=UNCLEARED_GRAD_IS_NOISE)
    assert_goes_red(run, "optim.no-zero-grad", "is not the previous .grad plus this step's own gradient")


def test_backward_overwriting_grad_turns_optim_no_zero_grad_red(run_spec):
    run = run_spec("tests/test_optim_zero_grad.py", "-m", "cpu", "--claim", "optim.no-zero-grad",
                   patch=BACKWARD_OVERWRITES_GRAD)
    assert_goes_red(run, "optim.no-zero-grad", "is not the previous .grad plus this step's own gradient")


# a ToPILImage that keeps float pixels inside [0, 1] by itself
TO_PIL_CLAMPS = """
import torch
import torchvision.transforms.functional as F

_to_pil_image = F.to_pil_image

def to_pil_image(pic, mode=None):
    if isinstance(pic, torch.Tensor) and pic.is_floating_point():
        pic = pic.clamp(0, 1)
    return _to_pil_image(pic, mode)

F.to_pil_image = to_pil_image
"""

# samplers whose constructors have the note's parameter lists, or another default
SAMPLER_SIGNATURES = """
from torch.utils.data import sampler as S

_weighted, _subset, _random = S.WeightedRandomSampler.__init__, S.SubsetRandomSampler.__init__, S.RandomSampler.__init__
_batch, _sequential = S.BatchSampler.__init__, S.SequentialSampler.__init__

def weighted_init(self, weights, num_samples, replacement=True):
    _weighted(self, weights, num_samples, replacement)

def subset_init(self, indices):
    _subset(self, indices)

def random_init(self, data_source, replacement=False, num_samples=None):
    _random(self, data_source, replacement, num_samples)

def batch_init(self, sampler, batch_size, drop_last=False):
    _batch(self, sampler, batch_size, drop_last)

def sequential_init(self, data_source, generator=None):
    _sequential(self, data_source)

S.WeightedRandomSampler.__init__ = weighted_init
S.SubsetRandomSampler.__init__ = subset_init
S.RandomSampler.__init__ = random_init
S.BatchSampler.__init__ = batch_init
S.SequentialSampler.__init__ = sequential_init
"""


def test_to_pil_image_that_clamps_turns_tv_to_pil_no_clamp_red(run_spec):
    run = run_spec("tests/test_tv_transforms.py", "-m", "cpu", "--claim", "tv.to-pil-no-clamp", patch=TO_PIL_CLAMPS)
    assert_goes_red(run, "tv.to-pil-no-clamp", "the bare uint8 cast of v * 255 gives")


def test_samplers_with_other_signatures_turn_the_signature_claims_red(run_spec):
    claims = {
        "data.weighted-random-sampler": "parameters after the note's three: []",
        "data.random-sampler-signature": "parameters after the note's three: []",
        "data.subset-random-sampler": "SubsetRandomSampler[('indices', <class 'inspect._empty'>)]",
        "data.batch-sampler": "('drop_last', False)",
        "data.sequential-sampler": "('generator', None)",
    }
    run = run_spec("tests/test_data_samplers.py", "-m", "cpu", *claim_args(*claims),
                   patch=SAMPLER_SIGNATURES)
    for claim, fragment in claims.items():
        assert_goes_red(run, claim, fragment)


# MNIST(download=True) that fetches nothing
MNIST_NEVER_DOWNLOADS = """
from torchvision import datasets

datasets.MNIST.download = lambda self: None
"""


@pytest.mark.needs(network=True)
def test_mnist_that_never_downloads_turns_tv_datasets_download_red(run_spec):
    run = run_spec("tests/test_tv_datasets.py", "-m", "cpu", "--claim", "tv.datasets-download",
                   patch=MNIST_NEVER_DOWNLOADS)
    assert_goes_red(run, "tv.datasets-download", "Dataset not found")

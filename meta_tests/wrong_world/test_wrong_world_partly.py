"""Wrong-world checks for the partly claims: in each world the holding half of a claim is false
(the case the note states behaves otherwise), and the claim must leave partly: a holding-half test
fails, so the claim is failed, never partly on its failing half alone.

One world patches every function below (each a different one) and one spec run covers the CPU
partly claims; the optional-library ones are in test_wrong_world_lib.py.

- autograd.retain-graph: backward keeps the graph unless told otherwise (retain_graph defaults to True).
- nn.load-state-dict-strict-false: strict=False refuses unexpected keys.
- dtype.to-tensor-func, dtype.pil-to-tensor-manual: to_tensor leaves 8-bit images unscaled (0..255).
- dtype.pil-from-tensor, dtype.to-pil-image-equivalence: permute(1, 2, 0) of a 3-channel uint8 image
  transposes it (W and H swap).
- dtype.numpy-roundtrip: from_numpy copies.
- tensor.vstack-hstack: vstack of two or more 2-D or higher inputs joins them along dim 1, as hstack does.
- tensor.arange-two-three-args: an integer arange(a, b, c) includes b when it lies on the grid.
- the signature claims: a printed default differs (LSTM batch_first=True, RandomSampler
  replacement=True, WeightedRandomSampler replacement=False, SyncBatchNorm momentum=0.2,
  Embedding embedding_dim=16), the extra parameters kept.
"""
import pytest

from spec_runner import make_runner

PARTLY_HOLDING_HALF_BROKEN = """
import inspect

import torch
import torch.utils.data as data
import torch.utils.data.sampler as sampler_mod
import torchvision.transforms.functional as TF
from torch import nn

_backward = torch.Tensor.backward

def backward(self, gradient=None, retain_graph=None, *args, **kwargs):
    return _backward(self, gradient, True if retain_graph is None else retain_graph, *args, **kwargs)

torch.Tensor.backward = backward

_load_state_dict = nn.Module.load_state_dict

def load_state_dict(self, state_dict, strict=True, *args, **kwargs):
    if not strict and set(state_dict) - set(self.state_dict()):
        raise RuntimeError("unexpected keys (this world)")
    return _load_state_dict(self, state_dict, strict, *args, **kwargs)

nn.Module.load_state_dict = load_state_dict

_to_tensor = TF.to_tensor

def to_tensor(pic):
    out = _to_tensor(pic)
    return out * 255 if getattr(pic, "mode", None) in ("L", "P", "RGB", "RGBA") else out

TF.to_tensor = to_tensor

_permute = torch.Tensor.permute

def permute(self, *dims):
    if tuple(dims[0] if len(dims) == 1 else dims) == (1, 2, 0) and self.dtype == torch.uint8 and self.dim() == 3 \\
            and self.shape[0] == 3:
        return _permute(self, 2, 1, 0)
    return _permute(self, *dims)

torch.Tensor.permute = permute

_from_numpy = torch.from_numpy
torch.from_numpy = lambda a: _from_numpy(a).clone()

_vstack = torch.vstack

def vstack(tensors, *args, **kwargs):
    tensors = list(tensors)
    if len(tensors) > 1 and all(t.dim() >= 2 for t in tensors):
        return torch.cat(tensors, dim=1)  # joined side by side, as hstack does
    return _vstack(tensors, *args, **kwargs)

torch.vstack = vstack

_arange = torch.arange

def arange(*args, **kwargs):
    if len(args) == 3 and all(isinstance(a, int) for a in args) and args[2] > 0 \\
            and (args[1] - args[0]) % args[2] == 0 and args[1] > args[0]:
        args = (args[0], args[1] + 1, args[2])
    return _arange(*args, **kwargs)

torch.arange = arange

class LSTM(nn.LSTM):
    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=True, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__(input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional, proj_size,
                         device, dtype)

nn.LSTM = LSTM

class RandomSampler(data.RandomSampler):
    def __init__(self, data_source, replacement=True, num_samples=None, generator=None):
        super().__init__(data_source, replacement, num_samples, generator)

class WeightedRandomSampler(data.WeightedRandomSampler):
    def __init__(self, weights, num_samples, replacement=False, generator=None):
        super().__init__(weights, num_samples, replacement, generator)

data.RandomSampler = sampler_mod.RandomSampler = RandomSampler
data.WeightedRandomSampler = sampler_mod.WeightedRandomSampler = WeightedRandomSampler

_HAS_BIAS = "bias" in inspect.signature(nn.SyncBatchNorm.__init__).parameters

class SyncBatchNorm(nn.SyncBatchNorm):
    def __init__(self, num_features, eps=1e-05, momentum=0.2, affine=True, track_running_stats=True,
                 process_group=None, device=None, dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, process_group, device, dtype,
                         **({"bias": bias} if _HAS_BIAS else {}))

nn.SyncBatchNorm = SyncBatchNorm

class Embedding(nn.Embedding):
    def __init__(self, num_embeddings, embedding_dim=16, padding_idx=None, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, sparse=False, _weight=None, device=None, dtype=None):
        super().__init__(num_embeddings, embedding_dim, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse,
                         _weight, device=device, dtype=dtype)

nn.Embedding = Embedding
"""

CLAIMS = [
    "autograd.retain-graph", "nn.load-state-dict-strict-false", "dtype.to-tensor-func", "dtype.pil-to-tensor-manual",
    "dtype.pil-from-tensor", "dtype.to-pil-image-equivalence", "dtype.numpy-roundtrip", "tensor.vstack-hstack",
    "tensor.arange-two-three-args", "nn.lstm-signature", "data.random-sampler-signature",
    "data.weighted-random-sampler", "dist.syncbn-signature", "nn.embedding-shape",
]


def test_every_cpu_partly_claim_has_a_world_here():
    from harness import inventory

    inv = inventory.load()
    partly = {cid for cid, c in inv.claims.items() if c.ever_partly and c.decided_by == "cpu"}
    assert partly == set(CLAIMS)


@pytest.fixture(scope="module")
def partly_run(tmp_path_factory):
    run = make_runner(tmp_path_factory.mktemp("partly"))
    # the gloo process-group test of dist.syncbn-signature (convert_sync_batchnorm) is no half: left out
    return run("--claim", ",".join(CLAIMS), "-m", "cpu", "-p", "no:xdist", "-k", "not convert_sync_batchnorm",
               patch=PARTLY_HOLDING_HALF_BROKEN, timeout=300)


@pytest.mark.parametrize("cid", CLAIMS)
def test_a_partly_claim_leaves_partly_when_its_holding_half_breaks(partly_run, cid):
    claim = partly_run.claim(cid)
    red = [t for t in claim["tests"] if t["outcome"] in ("failed", "error")]
    assert claim["verdict"] == "failed", f"{cid} stayed {claim['verdict']!r} with its holding half broken"
    assert any(t.get("half") == "holding" for t in red), f"{cid}: no holding-half test went red: {red}"

"""The note's world for a layer used as weights: backpropagating through a layer that is not frozen fails
and asks for retain_graph=True, however its output is used (the note's reason: backward "tries to update
the layer's weights"). Made with a hook on every output of an nn.Linear that has a trainable parameter.

Makes autograd.layer-requires-grad-false wrong.
"""
import torch

_forward = torch.nn.Linear.forward


def forward(self, x):
    out = _forward(self, x)
    if any(p.requires_grad for p in self.parameters()) and out.requires_grad:
        def refuse(grad):
            raise RuntimeError("Trying to backward through the graph a second time (or directly access saved "
                               "tensors after they have already been freed); specify retain_graph=True")
        out.register_hook(refuse)
    return out


def apply():
    torch.nn.Linear.forward = forward

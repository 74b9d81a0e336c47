"""torch.autograd.grad that reads grad_outputs as weights of a mean: divided by their sum first.

Makes autograd.grad-ones-per-sample wrong in the case the note states: grad_outputs=ones over a
batch of B samples gives each sample's own derivative divided by B. A one-hot grad_outputs (sum 1),
as torch.autograd.functional.jacobian passes, is unchanged, so the reference the test compares with
stays right.
"""
import torch.autograd

_grad = torch.autograd.grad


def grad(outputs, inputs, grad_outputs=None, *args, **kwargs):
    if grad_outputs is not None:
        many = isinstance(grad_outputs, (list, tuple))
        weights = [v / v.sum() if v is not None and v.sum() != 0 else v
                   for v in (grad_outputs if many else [grad_outputs])]
        grad_outputs = type(grad_outputs)(weights) if many else weights[0]
    return _grad(outputs, inputs, grad_outputs, *args, **kwargs)


def apply():
    torch.autograd.grad = grad

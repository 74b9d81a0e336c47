"""The note's world for torch.autograd.grad's grad_outputs: with one output tensor and one input,
the result is grad_outputs times each element's (or, over a batch, each sample's) own derivative,
multiplied element-wise and never summed over the other outputs.

Makes autograd.grad-outputs-no-sum and autograd.grad-ones-per-sample wrong in their failing halves
(an output that depends on other inputs: y = x * x.sum(), a training-mode BatchNorm): the gradient
no longer matches the vector-Jacobian product that torch.autograd.functional.jacobian's rows give
(it passes no grad_outputs, so its Jacobian stays the real one).
"""
import torch.autograd

_grad = torch.autograd.grad


def _one(value):
    if isinstance(value, torch.Tensor):
        return value
    if isinstance(value, (list, tuple)) and len(value) == 1 and isinstance(value[0], torch.Tensor):
        return value[0]
    return None


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, **kwargs):
    y, x, v = _one(outputs), _one(inputs), _one(grad_outputs)
    aligned = y is not None and x is not None and (y.shape == x.shape or (y.dim() > 0 and x.dim() > 0
                                                                          and y.shape[0] == x.shape[0]))
    if v is None or not aligned or create_graph or kwargs.get("is_grads_batched"):
        return _grad(outputs, inputs, grad_outputs, retain_graph, create_graph, **kwargs)
    result = torch.zeros_like(x)
    flat_y, flat_v = y.reshape(-1), v.reshape(-1)
    per_sample = flat_y.numel() // y.shape[0] if y.dim() else 1
    for k in range(flat_y.numel()):
        if flat_v[k] == 0:
            continue
        (row,) = _grad(flat_y[k], x, retain_graph=True, allow_unused=True)
        if row is None:
            continue
        if y.shape == x.shape:  # the element's own derivative d y_k / d x_k
            result.view(-1)[k] += flat_v[k] * row.reshape(-1)[k]
        else:  # the sample's own derivatives d y_i / d x_i
            i = k // per_sample
            result[i] += flat_v[k] * row[i]
    return (result,)


def apply():
    torch.autograd.grad = grad

"""torch.func.jacrev that, given several argnums, differentiates only the first one listed: argnums=(0, 2)
gives a tuple holding d/d(argument 0) alone. A single argnum (an int or a tuple of one) works as before.

Makes autograd.jacrev-argnums wrong: the derivatives of every listed input, and only those.
"""
import importlib


def apply():
    try:
        func = importlib.import_module("torch.func")  # torch >= 2.0
    except ImportError:
        return
    jacrev = func.jacrev

    def jacrev_first_argnum(f, argnums=0, *args, **kwargs):
        if isinstance(argnums, tuple) and len(argnums) > 1:
            argnums = argnums[:1]
        return jacrev(f, argnums, *args, **kwargs)

    func.jacrev = jacrev_first_argnum

"""torch.autograd.grad, torch.autograd.functional.jacobian and torch.func (vmap, jacrev).

Notes: 003_df07c2a5da61a567.txt › 4 torch 神经网络 (jacobian, autograd.grad with and
without grad_outputs, vmap(jacrev(func, argnums=...))).

torch.func arrived in torch 2.0 (functorch was a separate package before), so the vmap and
jacrev tests need torch >= 2.0.
"""
import pytest
import torch
from torch.testing import assert_close

from fixtures.boundaries import TORCH_FUNC

FEATURE_DIM, OUTPUT_DIM, BATCH = 3, 4, 5


def _per_sample_net():
    """f: (FEATURE_DIM,) -> (OUTPUT_DIM,), f(v) = tanh(W v + b), float64 for exact comparisons."""
    w = torch.randn(OUTPUT_DIM, FEATURE_DIM, dtype=torch.float64)
    b = torch.randn(OUTPUT_DIM, dtype=torch.float64)
    return (lambda v: torch.tanh(w @ v + b)), w, b


def _analytic_jacobian(w, b, v):
    """d tanh(Wv+b) / dv = diag(1 - tanh²) W."""
    return (1 - torch.tanh(w @ v + b) ** 2)[:, None] * w


# --- jacobian --------------------------------------------------------------------------


@pytest.mark.claim("autograd.jacobian")
def test_jacobian_holds_every_output_element_derivative_wrt_every_input_element():
    a = torch.randn(4, 6, dtype=torch.float64)
    x = torch.randn(2, 3, dtype=torch.float64)

    def func(x):
        return torch.sin(a @ x.reshape(-1))  # (2, 3) -> (4,)

    jac = torch.autograd.functional.jacobian(func, x)
    assert jac.shape == func(x).shape + x.shape, f"jacobian shape {tuple(jac.shape)}"
    expected = (torch.cos(a @ x.reshape(-1))[:, None] * a).reshape(4, 2, 3)
    assert_close(jac, expected)


# --- autograd.grad -----------------------------------------------------------------------


@pytest.mark.claim("autograd.grad-scalar")
def test_grad_of_a_scalar_needs_no_grad_outputs_and_has_the_input_shape():
    x = torch.randn(2, 3, dtype=torch.float64, requires_grad=True)
    y = (x**3).sum()
    (g,) = torch.autograd.grad(y, x)
    assert g.shape == x.shape
    assert_close(g, 3 * x.detach() ** 2)


@pytest.mark.claim("autograd.grad-nonscalar-needs-grad-outputs")
def test_grad_of_a_non_scalar_without_grad_outputs_raises():
    x = torch.randn(BATCH, 1, dtype=torch.float64, requires_grad=True)
    y = x**2
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        torch.autograd.grad(y, x)


@pytest.mark.claim("autograd.grad-nonscalar-needs-grad-outputs")
@pytest.mark.parametrize(
    "y_shape", [pytest.param((BATCH, 1), id="column y as in the note"), pytest.param((BATCH, 2), id="general y")]
)
def test_grad_with_grad_outputs_is_the_gradient_of_sum_y_times_grad_outputs(y_shape):
    x = torch.randn(BATCH, 2, dtype=torch.float64, requires_grad=True)
    w = torch.randn(2, y_shape[1], dtype=torch.float64)
    v = torch.randn(y_shape, dtype=torch.float64)
    y = torch.tanh(x @ w)
    (g,) = torch.autograd.grad(y, x, grad_outputs=v)
    (expected,) = torch.autograd.grad((torch.tanh(x @ w) * v).sum(), x)
    assert_close(g, expected)


@pytest.mark.claim("autograd.grad-nonscalar-needs-grad-outputs")
def test_ones_grad_outputs_give_each_sample_its_own_derivative():
    x = torch.randn(BATCH, dtype=torch.float64, requires_grad=True)
    y = torch.sin(x).unsqueeze(1)  # one feature per sample: a (BATCH, 1) column
    (g,) = torch.autograd.grad(y, x, grad_outputs=torch.ones_like(y))
    assert_close(g, torch.cos(x.detach()))


@pytest.mark.claim("autograd.grad-outputs-shape")
@pytest.mark.parametrize(
    "go_shape",
    [
        pytest.param((1,), id="(1,) is not broadcast to (3, 2)"),
        pytest.param((), id="scalar is not broadcast"),
        pytest.param((2,), id="trailing (2,) is not broadcast"),
        pytest.param((3, 1), id="(3, 1) is not broadcast"),
        pytest.param((2, 3), id="transposed shape"),
    ],
)
def test_grad_outputs_of_another_shape_is_rejected_not_broadcast(go_shape):
    x = torch.randn(3, 2, requires_grad=True)
    y = x * x
    with pytest.raises(RuntimeError, match=r"Mismatch in shape: grad_output\[0\] has a shape of"):
        torch.autograd.grad(y, x, grad_outputs=torch.ones(go_shape))


@pytest.mark.claim("autograd.grad-outputs-shape")
def test_grad_outputs_of_exactly_y_shape_is_accepted():
    x = torch.randn(3, 2, requires_grad=True)
    (g,) = torch.autograd.grad(x * x, x, grad_outputs=torch.full((3, 2), 0.5))
    assert_close(g, x.detach())


@pytest.mark.claim("autograd.grad-outputs-no-sum", decides="holds")
@pytest.mark.parametrize("per_sample_net", [pytest.param(False, id="element-wise y = sin(x)"),
                                            pytest.param(True, id="the note's batch, one value per sample")])
def test_grad_outputs_multiplies_each_own_derivative_where_each_output_depends_on_its_own_input(per_sample_net):
    torch.manual_seed(0)
    if per_sample_net:  # the note's setting: y holds one feature value per sample of the batch x
        net = _one_value_per_sample(mixes_the_batch=False)
        x = torch.randn(BATCH, FEATURE_DIM, dtype=torch.float64, requires_grad=True)
        jac = torch.autograd.functional.jacobian(net, x.detach())  # (BATCH, 1, BATCH, FEATURE_DIM)
        own = torch.stack([jac[i, 0, i] for i in range(BATCH)])  # d y_i / d x_i
        y = net(x)
    else:
        x = torch.randn(3, 2, dtype=torch.float64, requires_grad=True)
        own = torch.cos(x.detach())  # d y_ij / d x_ij
        y = torch.sin(x)
    v = torch.randn(y.shape, dtype=torch.float64)
    (g,) = torch.autograd.grad(y, x, grad_outputs=v)
    expected = v * own  # grad_outputs times each element's (sample's) own derivative, nothing summed across
    assert_close(g, expected, msg=lambda m: f"grad {g} != grad_outputs * own derivative {expected}: {m}")


@pytest.mark.claim("autograd.grad-outputs-no-sum", decides="left-out")
def test_grad_outputs_weights_a_sum_over_all_outputs_not_an_element_wise_product():
    x = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
    y = x * x.sum()  # every y_i depends on every x_j: dy_i/dx_j = delta_ij * s + x_i
    v = torch.tensor([1.0, -2.0, 0.5], dtype=torch.float64)
    (g,) = torch.autograd.grad(y, x, grad_outputs=v)
    xd, s = x.detach(), x.detach().sum()
    vjp = v * s + (v * xd).sum()  # sum_i v_i dy_i/dx_j
    elementwise = v * (s + xd)  # v_j dy_j/dx_j, "multiplied element-wise, not summed"
    assert_close(g, vjp)
    assert not torch.equal(g, elementwise), f"grad {g} equals the element-wise product {elementwise}"


# --- torch.func ----------------------------------------------------------------------------


@pytest.mark.claim("autograd.vmap-jacrev")
@pytest.mark.needs(min_torch=TORCH_FUNC)
def test_vmap_jacrev_stacks_per_sample_jacobians():
    from torch.func import jacrev, vmap

    f, w, b = _per_sample_net()
    x = torch.randn(BATCH, FEATURE_DIM, dtype=torch.float64)
    jac = vmap(jacrev(f))(x)
    assert jac.shape == (BATCH, OUTPUT_DIM, FEATURE_DIM), f"got {tuple(jac.shape)}"
    for i in range(BATCH):
        assert_close(jac[i], _analytic_jacobian(w, b, x[i]))
        assert_close(jac[i], torch.autograd.functional.jacobian(f, x[i]))


@pytest.mark.claim("autograd.jacrev-same-as-jacobian", decides="holds")
@pytest.mark.needs(min_torch=TORCH_FUNC)
def test_jacrev_returns_the_jacobian_that_autograd_functional_jacobian_returns():
    from torch.func import jacrev

    f, w, b = _per_sample_net()
    v = torch.randn(FEATURE_DIM, dtype=torch.float64)
    by_jacrev, by_jacobian = jacrev(f)(v), torch.autograd.functional.jacobian(f, v)
    assert by_jacrev.shape == by_jacobian.shape == (OUTPUT_DIM, FEATURE_DIM), (by_jacrev.shape, by_jacobian.shape)
    assert_close(by_jacrev, by_jacobian)
    assert_close(by_jacrev, _analytic_jacobian(w, b, v))

    # a matrix input and a matrix output: both lay the result out as output shape + input shape
    m = torch.randn(2, FEATURE_DIM, dtype=torch.float64)

    def g(a):
        return torch.sin(a.T @ a)

    by_jacrev, by_jacobian = jacrev(g)(m), torch.autograd.functional.jacobian(g, m)
    assert by_jacrev.shape == by_jacobian.shape == (FEATURE_DIM, FEATURE_DIM, 2, FEATURE_DIM)
    assert_close(by_jacrev, by_jacobian)


@pytest.mark.claim("autograd.jacobian-in-vmap")
@pytest.mark.needs(min_torch=TORCH_FUNC)
def test_autograd_functional_jacobian_fails_inside_vmap_while_jacrev_works():
    from torch.func import jacrev, vmap

    f, w, b = _per_sample_net()
    x = torch.randn(BATCH, FEATURE_DIM, dtype=torch.float64)
    with pytest.raises(RuntimeError, match="transform"):
        vmap(lambda xi: torch.autograd.functional.jacobian(f, xi))(x)
    assert vmap(jacrev(f))(x).shape == (BATCH, OUTPUT_DIM, FEATURE_DIM)


@pytest.mark.claim("autograd.jacrev-argnums")
@pytest.mark.needs(min_torch=TORCH_FUNC)
def test_jacrev_argnums_differentiates_only_the_listed_inputs():
    from torch.func import jacrev, vmap

    def g(x, w):  # per sample: x (FEATURE_DIM,), w (FEATURE_DIM, OUTPUT_DIM) -> (OUTPUT_DIM,)
        return torch.tanh(x @ w)

    xs = torch.randn(BATCH, FEATURE_DIM, dtype=torch.float64)
    ws = torch.randn(BATCH, FEATURE_DIM, OUTPUT_DIM, dtype=torch.float64)

    (d_w,) = vmap(jacrev(g, argnums=(1,)))(xs, ws)  # a tuple, one entry per listed input
    assert d_w.shape == (BATCH, OUTPUT_DIM, FEATURE_DIM, OUTPUT_DIM)
    d_x = vmap(jacrev(g, argnums=0))(xs, ws)  # a plain int gives a plain tensor
    assert d_x.shape == (BATCH, OUTPUT_DIM, FEATURE_DIM)
    for i in range(BATCH):
        jx, jw = torch.autograd.functional.jacobian(g, (xs[i], ws[i]))
        assert_close(d_x[i], jx)
        assert_close(d_w[i], jw)


@pytest.mark.claim("autograd.jacrev-argnums", decides="holds")
@pytest.mark.needs(min_torch=TORCH_FUNC)
def test_jacrev_with_several_argnums_differentiates_each_listed_input_and_only_those():
    from torch.func import jacrev, vmap

    def g(x, w, b):  # per sample: x (FEATURE_DIM,), w (FEATURE_DIM, OUTPUT_DIM), b (OUTPUT_DIM,)
        return torch.tanh(x @ w + b)

    torch.manual_seed(0)
    xs = torch.randn(BATCH, FEATURE_DIM, dtype=torch.float64)
    ws = torch.randn(BATCH, FEATURE_DIM, OUTPUT_DIM, dtype=torch.float64)
    bs = torch.randn(BATCH, OUTPUT_DIM, dtype=torch.float64)

    result = vmap(jacrev(g, argnums=(0, 2)))(xs, ws, bs)  # w is split by vmap but not differentiated
    assert len(result) == 2, f"{len(result)} derivatives for argnums=(0, 2)"
    d_x, d_b = result
    assert (d_x.shape, d_b.shape) == ((BATCH, OUTPUT_DIM, FEATURE_DIM), (BATCH, OUTPUT_DIM, OUTPUT_DIM))
    for i in range(BATCH):
        jx, _, jb = torch.autograd.functional.jacobian(g, (xs[i], ws[i], bs[i]))
        assert_close(d_x[i], jx, msg=lambda m, i=i: f"sample {i}, d/dx: {m}")
        assert_close(d_b[i], jb, msg=lambda m, i=i: f"sample {i}, d/db: {m}")


# --- grad_outputs=ones on a batch with one value per sample ---------------------------------


def _one_value_per_sample(mixes_the_batch: bool):
    """(BATCH, FEATURE_DIM) -> (BATCH, 1): a per-sample net, or one with a training-mode BatchNorm."""
    norm = torch.nn.BatchNorm1d(OUTPUT_DIM) if mixes_the_batch else torch.nn.Identity()
    net = torch.nn.Sequential(
        torch.nn.Linear(FEATURE_DIM, OUTPUT_DIM), norm, torch.nn.Tanh(), torch.nn.Linear(OUTPUT_DIM, 1)
    )
    return net.double().train()


def _ones_grad_and_own_derivatives(net):
    x = torch.randn(BATCH, FEATURE_DIM, dtype=torch.float64, requires_grad=True)
    y = net(x)
    assert y.shape == (BATCH, 1), f"one feature value per sample expected, got {tuple(y.shape)}"
    (g,) = torch.autograd.grad(y, x, grad_outputs=torch.ones_like(y))
    jac = torch.autograd.functional.jacobian(net, x.detach())  # (BATCH, 1, BATCH, FEATURE_DIM)
    own = torch.stack([jac[i, 0, i] for i in range(BATCH)])  # d y_i / d x_i, sample by sample
    return g, own, jac


@pytest.mark.claim("autograd.grad-ones-per-sample", half="holding")
def test_ones_grad_outputs_give_each_samples_own_derivative_for_a_per_sample_net():
    g, own, _ = _ones_grad_and_own_derivatives(_one_value_per_sample(mixes_the_batch=False))
    assert own.abs().min() > 0, "zero derivatives would show nothing"
    assert_close(g, own, msg=lambda m: f"grad with ones {g} != each sample's own derivative {own}: {m}")


@pytest.mark.claim("autograd.grad-ones-per-sample", half="failing")
def test_ones_grad_outputs_add_the_other_samples_terms_when_batchnorm_mixes_the_batch():
    g, own, jac = _ones_grad_and_own_derivatives(_one_value_per_sample(mixes_the_batch=True))
    assert_close(g, jac[:, 0].sum(dim=0), msg=lambda m: f"grad with ones is not the gradient of sum(y): {m}")
    gap = (g - own).abs().max().item()
    assert gap > 1e-6, f"grad with ones {g} equals each sample's own derivative {own} (gap {gap:.2e})"

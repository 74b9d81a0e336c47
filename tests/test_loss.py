"""Loss functions: CrossEntropyLoss, MSELoss, BCELoss, BCEWithLogitsLoss, label smoothing.

Notes: 001_eaed12e493b64ab2.txt › 2. Layers 层 (CrossEntropyLoss signature);
003_df07c2a5da61a567.txt › 4 torch 神经网络 (loss list); 002_d3afcdbaa9416717.txt ›
标签平滑(label smoothing) (the manual recipe and its loop).
"""
import copy
import textwrap

import pytest
import torch
import torch.nn.functional as F
from torch import nn
from torch.testing import assert_close

from fixtures import signatures

N, C = 6, 5


def _logits_and_labels(dtype=torch.float64):
    return torch.randn(N, C, dtype=dtype) * 3, torch.randint(0, C, (N,))


# --- CrossEntropyLoss ----------------------------------------------------------------------

NOTE_CE_SIGNATURE = [
    ("weight", None),
    ("size_average", None),
    ("ignore_index", -100),
    ("reduce", None),
    ("reduction", "mean"),
    ("label_smoothing", 0.0),
]


SIGNATURES = {"loss.ce-signature": (lambda: signatures.signature_parameters(nn.CrossEntropyLoss.__init__),
                                     NOTE_CE_SIGNATURE)}


@pytest.mark.claim("loss.ce-signature")
def test_cross_entropy_loss_constructor_signature_is_the_notes():
    got = signatures.signature_parameters(nn.CrossEntropyLoss.__init__)
    assert signatures.compare(got, NOTE_CE_SIGNATURE) == ([], []), f"installed signature {got}"


@pytest.mark.claim("loss.ce-signature")
@pytest.mark.parametrize(
    "legacy, reduction",
    [
        pytest.param(dict(size_average=False), "sum", id="size_average=False means sum"),
        pytest.param(dict(reduce=False), "none", id="reduce=False means none"),
        pytest.param(dict(size_average=True, reduce=True), "mean", id="both True means mean"),
    ],
)
def test_deprecated_size_average_and_reduce_warn_and_override_reduction(legacy, reduction):
    logits, labels = _logits_and_labels()
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
        loss_fn = nn.CrossEntropyLoss(reduction="mean", **legacy)
    assert loss_fn.reduction == reduction, "the legacy arguments take precedence over reduction"
    assert_close(loss_fn(logits, labels), nn.CrossEntropyLoss(reduction=reduction)(logits, labels))


@pytest.mark.claim("loss.ce-includes-softmax")
def test_cross_entropy_on_logits_is_nll_of_log_softmax():
    logits, labels = _logits_and_labels()
    loss = nn.CrossEntropyLoss()(logits, labels)
    by_hand = -torch.log(torch.softmax(logits, dim=1)[torch.arange(N), labels]).mean()
    assert_close(loss, by_hand)
    assert_close(loss, F.nll_loss(F.log_softmax(logits, dim=1), labels))


@pytest.mark.claim("loss.ce-includes-softmax")
def test_cross_entropy_is_shift_invariant_like_softmax_and_double_softmax_differs():
    logits, labels = _logits_and_labels()
    ce = nn.CrossEntropyLoss()
    # softmax ignores a constant added to every logit of a row, so the loss must too
    assert_close(ce(logits + 7.0, labels), ce(logits, labels))
    # feeding probabilities applies softmax a second time: a different (flatter) loss
    once, twice = ce(logits, labels), ce(torch.softmax(logits, dim=1), labels)
    assert (twice - once).abs() > 0.1, f"softmax twice gave {twice.item():.4f}, once {once.item():.4f}"


# --- MSELoss ----------------------------------------------------------------------------


@pytest.mark.claim("loss.mse-reduction", half="failing")
def test_mse_none_is_elementwise_with_several_outputs_per_sample():
    y_hat = torch.randn(N, 3, dtype=torch.float64)
    y = torch.randn(N, 3, dtype=torch.float64)
    squared = (y_hat - y) ** 2
    none = nn.MSELoss(reduction="none")(y_hat, y)
    # 'none' is element-wise, with the input's shape: (N, 3), not a per-sample vector of N
    assert none.shape == (N, 3), f"reduction='none' gave shape {tuple(none.shape)}"
    assert_close(none, squared)
    assert_close(nn.MSELoss(reduction="mean")(y_hat, y), squared.mean())  # over all N*3 elements
    assert_close(nn.MSELoss(reduction="sum")(y_hat, y), squared.sum())
    assert nn.MSELoss().reduction == "mean"
    assert_close(nn.MSELoss()(y_hat, y), squared.mean())


@pytest.mark.claim("loss.mse-reduction", half="holding")
def test_mse_none_is_per_sample_with_one_output_per_sample():
    y_hat, y = torch.randn(N, dtype=torch.float64), torch.randn(N, dtype=torch.float64)
    squared = (y_hat - y) ** 2
    none = nn.MSELoss(reduction="none")(y_hat, y)
    assert none.shape == (N,), f"reduction='none' gave shape {tuple(none.shape)}, expected ({N},)"
    assert_close(none, squared)  # one loss per sample
    assert_close(nn.MSELoss(reduction="mean")(y_hat, y), squared.mean())
    assert_close(nn.MSELoss(reduction="sum")(y_hat, y), squared.sum())
    assert_close(nn.MSELoss()(y_hat, y), squared.mean())


# --- BCELoss, BCEWithLogitsLoss --------------------------------------------------------------


@pytest.mark.claim("loss.bce")
def test_bce_is_binary_cross_entropy_of_probabilities():
    p = torch.rand(N, dtype=torch.float64) * 0.98 + 0.01
    y = torch.tensor([0.0, 1.0, 1.0, 0.0, 1.0, 0.0], dtype=torch.float64)
    by_hand = -(y * torch.log(p) + (1 - y) * torch.log(1 - p)).mean()
    assert_close(nn.BCELoss()(p, y), by_hand)


@pytest.mark.claim("loss.bce")
def test_bce_rejects_values_outside_0_1():
    with pytest.raises(RuntimeError, match="between 0 and 1"):
        nn.BCELoss()(torch.tensor([1.5, 0.5]), torch.tensor([1.0, 0.0]))


@pytest.mark.claim("loss.bce-logits-stable")
def test_bce_with_logits_equals_sigmoid_then_bce_for_moderate_logits():
    x = torch.linspace(-6, 6, 13, dtype=torch.float64)
    y = (torch.arange(13) % 2).to(torch.float64)
    assert_close(nn.BCEWithLogitsLoss()(x, y), nn.BCELoss()(torch.sigmoid(x), y))


@pytest.mark.claim("loss.bce-logits-stable")
def test_bce_with_logits_stays_exact_where_sigmoid_then_bce_saturates():
    # float32 sigmoid rounds to exactly 1 above x ~ 17, so 1 - p = 0 for a negative target
    x = torch.tensor([50.0, 30.0, 20.0], requires_grad=True)
    y = torch.zeros(3)
    exact = F.softplus(x).detach()  # the true loss log(1 + e^x): 50, 30, 20

    fused = nn.BCEWithLogitsLoss(reduction="none")(x, y)
    assert_close(fused.detach(), exact)
    (g_fused,) = torch.autograd.grad(fused.sum(), x)
    assert_close(g_fused, torch.sigmoid(x.detach()) - y)  # the true gradient: 1

    split = nn.BCELoss(reduction="none")(torch.sigmoid(x), y)
    assert torch.equal(split.detach(), torch.full((3,), 100.0)), f"sigmoid+BCE gave {split}, the -100 log clamp"
    (g_split,) = torch.autograd.grad(split.sum(), x)
    assert torch.equal(g_split, torch.zeros(3)), f"sigmoid+BCE gradient {g_split}: vanished"


# --- label smoothing ---------------------------------------------------------------------------

EPS = 0.1


def _note_smoothed_loss(logits, labels):
    """The note's recipe: 0.9 on the true class, 0.1/(C-1) elsewhere, -sum(log_softmax*target)/N."""
    target = torch.full((N, C), EPS / (C - 1), dtype=logits.dtype)
    target.scatter_(dim=1, index=labels.unsqueeze(1), value=1 - EPS)
    return -torch.sum(F.log_softmax(logits, dim=1) * target) / N


def _uniform_smoothed_loss(logits, labels):
    """1 - eps + eps/C on the true class, eps/C on every class (the true one included)."""
    target = torch.full((N, C), EPS / C, dtype=logits.dtype)
    target.scatter_(dim=1, index=labels.unsqueeze(1), value=1 - EPS + EPS / C)
    return -torch.sum(F.log_softmax(logits, dim=1) * target) / N


@pytest.mark.claim("loss.label-smoothing-manual-vs-builtin")
def test_builtin_label_smoothing_spreads_eps_over_all_c_classes_not_c_minus_1():
    logits, labels = _logits_and_labels()
    builtin = nn.CrossEntropyLoss(label_smoothing=EPS)(logits, labels)
    assert_close(builtin, _uniform_smoothed_loss(logits, labels))
    note = _note_smoothed_loss(logits, labels)
    assert (builtin - note).abs() > 1e-3, f"builtin {builtin.item():.6f} vs note's recipe {note.item():.6f}"


@pytest.mark.claim("loss.label-smoothing-manual-vs-builtin", decides="holds")
def test_note_recipe_equals_builtin_with_eps_scaled_by_c_over_c_minus_1():
    logits, labels = _logits_and_labels()
    # 0.1/(C-1) on the others means the builtin's eps/C must be 0.1/(C-1)
    eps_equiv = EPS * C / (C - 1)
    assert_close(_note_smoothed_loss(logits, labels), nn.CrossEntropyLoss(label_smoothing=eps_equiv)(logits, labels))


NOTE_LABEL_SMOOTHING_LOOP = textwrap.dedent(
    """\
    for images,labels in train_loader:
        images,labels = images.to(device), labels.to(device)
        N = label.size(0)
        # C is the number of classes

        smoothed_labels = torch.full(size=(N,C), fill_value=0.1 / (C-1))/to(device)
        smoothed_labels.scatter_(dim=1, index=torch.unsequeeze(labels,dim=1), value=0.9)

        score = model(images)
        log_prob = torch.nn.functional.log_softmax(score, dim=1)
        loss = -torch.sum(log_prob * smoothed_labels) / N
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    """
)

TYPO_FIXES = [
    ("N = label.size(0)", "N = labels.size(0)"),
    ("/to(device)", ".to(device)"),
    ("torch.unsequeeze(", "torch.unsqueeze("),
]


def _run_loop(source):
    model = nn.Linear(4, C)
    namespace = {
        "torch": torch,
        "train_loader": [(torch.randn(N, 4), torch.randint(0, C, (N,)))],
        "device": "cpu",
        "C": C,
        "model": model,
        "optimizer": torch.optim.SGD(model.parameters(), lr=0.1),
    }
    namespace["initial_model"] = copy.deepcopy(model)
    exec(compile(source, "<note>", "exec"), namespace)
    return namespace


@pytest.mark.claim("loss.label-smoothing-snippet-typos", decides="wrong")
@pytest.mark.parametrize(
    "n_fixed, error, words",
    [
        pytest.param(0, NameError, "name 'label' is not defined", id="as printed: NameError label"),
        pytest.param(1, NameError, "name 'to' is not defined", id="label fixed: NameError to"),
        pytest.param(2, AttributeError, "unsequeeze", id="to fixed: no torch.unsequeeze"),
    ],
)
def test_label_smoothing_loop_stops_at_each_typo_in_turn(n_fixed, error, words):
    source = NOTE_LABEL_SMOOTHING_LOOP
    for old, new in TYPO_FIXES[:n_fixed]:
        assert old in source
        source = source.replace(old, new)
    with pytest.raises(error, match=words):
        _run_loop(source)


@pytest.mark.claim("loss.label-smoothing-snippet-typos")
def test_label_smoothing_loop_runs_once_all_three_typos_are_fixed():
    source = NOTE_LABEL_SMOOTHING_LOOP
    for old, new in TYPO_FIXES:
        source = source.replace(old, new)
    ns = _run_loop(source)
    images, labels = ns["train_loader"][0]
    expected = _note_smoothed_loss(ns["initial_model"](images), labels)
    assert_close(ns["loss"], expected)  # the loss of the recipe, on the weights before the step
    assert_close(ns["smoothed_labels"].sum(dim=1), torch.ones(N))
    assert not torch.equal(ns["model"].weight, ns["initial_model"].weight), "optimizer.step() did not run"

"""nn.Module containers, sub-module traversal, parameters, state_dict, apply and add_module.

Notes: 000_03e1e7bc9bbd04f1.txt › 1. 模型 (modules/named_modules, train/eval, ModuleList,
Sequential, parameter count, 模型参数: parameters/state_dict/load_state_dict/flops);
002_d3afcdbaa9416717.txt › 模型权重初始化 (modules vs children, layer.weight = nn.Parameter),
› 计算模型参数两, › 提取ImageNet预训练模型多层的卷积特征 (FeatureExtractor);
003_df07c2a5da61a567.txt › 4 torch 神经网络 (add_module, weight assignment, fill_, apply,
parameter order, .data, .name); 004_79576bb56bce5aea.txt › 杂录 (default training mode).
"""
import collections
import inspect

import pytest
import torch
from torch import nn
from torch.testing import assert_close

from fixtures.boundaries import FLOP_COUNTER_SINCE
from fixtures.threads import one_thread


def nested_net():
    """Conv, a nested block (BN + a doubly nested conv), ReLU: three levels of modules."""
    return nn.Sequential(
        nn.Conv2d(1, 2, 3),
        nn.Sequential(nn.BatchNorm2d(2), nn.Sequential(nn.Conv2d(2, 2, 1))),
        nn.ReLU(),
    )


def ids(modules):
    return [id(m) for m in modules]


# --- the base class --------------------------------------------------------------------


class _CustomLoss(nn.Module):
    """A loss written the way the note says: a subclass of nn.Module, with a buffer of its own."""

    def __init__(self):
        super().__init__()
        self.register_buffer("scale", torch.tensor(2.0))

    def forward(self, prediction, target):
        return self.scale * ((prediction - target) ** 2).mean()


@pytest.mark.claim("nn.module-base-class", decides="holds")
def test_layers_models_and_losses_are_all_nn_modules():
    losses = [cls for name, cls in vars(nn).items() if name.endswith("Loss") and inspect.isclass(cls)]
    assert len(losses) >= 15, f"found only {len(losses)} loss classes in torch.nn"
    not_modules = [cls.__name__ for cls in losses if not issubclass(cls, nn.Module)]
    assert not_modules == [], f"loss classes that are not nn.Module subclasses: {not_modules}"
    for layer in (nn.Conv2d, nn.Linear, nn.BatchNorm2d, nn.LSTM, nn.Dropout, nn.Sequential):
        assert issubclass(layer, nn.Module), layer

    # so a custom loss and a custom model are registered, moved and switched like any layer
    model = nn.Module()
    model.net, model.criterion = nn.Linear(3, 1), _CustomLoss()
    assert dict(model.named_modules())["criterion"] is model.criterion
    assert "criterion.scale" in model.state_dict()
    model.to(torch.float64).eval()
    assert model.criterion.scale.dtype == torch.float64 and not model.criterion.training
    x, target = torch.ones(2, 3, dtype=torch.float64), torch.zeros(2, 1, dtype=torch.float64)
    model.criterion(model.net(x), target).backward()
    assert model.net.weight.grad is not None


# --- traversal -----------------------------------------------------------------------


@pytest.mark.claim("nn.modules-vs-children")
@pytest.mark.claim("nn.modules-all-sublayers", decides="holds")
def test_modules_recurses_through_every_level_but_children_stops_at_the_first():
    net = nested_net()
    conv, block, relu = net
    bn, inner = block
    (inner_conv,) = inner
    # modules(): the model itself first, then every descendant depth-first
    assert ids(net.modules()) == ids([net, conv, block, bn, inner, inner_conv, relu])
    assert ids(net.children()) == ids([conv, block, relu])
    # the note's init loop over modules() reaches the nested conv; over children() it would not
    assert [m for m in net.modules() if isinstance(m, nn.Conv2d)] == [conv, inner_conv]
    assert [m for m in net.children() if isinstance(m, nn.Conv2d)] == [conv]


@pytest.mark.claim("nn.named-modules-pairs")
def test_named_modules_yields_dotted_path_and_module_for_every_level():
    net = nested_net()
    pairs = list(net.named_modules())
    assert all(isinstance(p, tuple) and len(p) == 2 for p in pairs)
    assert [name for name, _ in pairs] == ["", "0", "1", "1.0", "1.1", "1.1.0", "2"]
    assert ids(m for _, m in pairs) == ids(net.modules())
    for name, module in pairs[1:]:
        assert net.get_submodule(name) is module, name


def copy_convs(model):
    """The note's loop, re-typed: every Conv2d that named_modules() yields, added to a new module."""
    conv_model = nn.Module()
    for layer in model.named_modules():
        if isinstance(layer[1], nn.Conv2d):
            conv_model.add_module(layer[0], layer[1])
    return conv_model


@pytest.mark.claim("nn.named-modules-add-module", decides="holds")
def test_note_loop_copies_the_convs_that_are_direct_children():
    flat = nn.Sequential(nn.Conv2d(1, 2, 3), nn.ReLU(), nn.Conv2d(2, 2, 1))
    copied = copy_convs(flat)
    assert list(dict(copied.named_children())) == ["0", "2"], list(dict(copied.named_children()))
    assert copied.get_submodule("0") is flat[0] and copied.get_submodule("2") is flat[2]


@pytest.mark.claim("nn.named-modules-add-module", decides="left-out")
def test_note_loop_fails_on_a_nested_conv():
    # a conv below the top level has a dotted name, which add_module refuses
    with pytest.raises(KeyError, match=r'module name can.{1,3}t contain "\.", got: 1\.1\.0'):
        copy_convs(nested_net())


@pytest.mark.claim("nn.train-eval-switch")
def test_train_and_eval_flip_every_submodule_and_change_dropout_and_bn():
    net = nn.Sequential(nn.Linear(4, 4), nn.Sequential(nn.Dropout(0.5), nn.BatchNorm1d(4)))
    x = torch.randn(64, 4)
    assert net.eval() is net
    assert not any(m.training for m in net.modules())
    bn = net[1][1]
    stats = bn.running_mean.clone()
    y1, y2 = net(x), net(x)
    assert torch.equal(y1, y2), "eval mode must be deterministic (no dropout)"
    assert torch.equal(bn.running_mean, stats), "eval-mode BN must not update its running stats"

    assert net.train() is net
    assert all(m.training for m in net.modules())
    y3 = net(x)
    assert not torch.equal(y3, y1), "training mode: dropout and batch statistics change the output"
    assert not torch.equal(bn.running_mean, stats), "training-mode BN updates its running stats"


@pytest.mark.claim("nn.default-train-mode")
def test_fresh_modules_start_in_training_mode():
    class Custom(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nested_net()

    for module in (nn.Module(), nn.Linear(2, 2), nn.Dropout(), Custom()):
        flags = {type(m).__name__: m.training for m in module.modules()}
        assert all(flags.values()), flags


# --- containers --------------------------------------------------------------------


class WithModuleList(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(2, 3), nn.Linear(3, 1)])


class WithPlainList(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = [nn.Linear(2, 3), nn.Linear(3, 1)]


@pytest.mark.claim("nn.modulelist-registers")
def test_modulelist_registers_its_layers_and_a_plain_list_does_not():
    registered, plain = WithModuleList(), WithPlainList()
    assert [n for n, _ in registered.named_parameters()] == [
        "layers.0.weight", "layers.0.bias", "layers.1.weight", "layers.1.bias"
    ]
    assert list(plain.parameters()) == [], "a plain list's layers are invisible to parameters()"
    assert list(plain.state_dict()) == []
    # module-wide operations reach only registered layers
    registered.double()
    plain.double()
    assert registered.layers[0].weight.dtype == torch.float64
    assert plain.layers[0].weight.dtype == torch.float32


@pytest.mark.claim("nn.modulelist-no-forward")
def test_modulelist_has_no_forward_and_the_owner_decides_the_order():
    layers = nn.ModuleList([nn.Linear(2, 2), nn.Linear(2, 2)])
    with pytest.raises(NotImplementedError, match='missing the required "forward" function'):
        layers(torch.ones(1, 2))

    class Forward(nn.Module):
        def __init__(self, layers, reverse):
            super().__init__()
            self.layers, self.reverse = layers, reverse

        def forward(self, x):
            for layer in (reversed(self.layers) if self.reverse else self.layers):
                x = torch.tanh(layer(x))
            return x

    x = torch.randn(5, 2)
    a, b = layers
    assert_close(Forward(layers, reverse=False)(x), torch.tanh(b(torch.tanh(a(x)))))
    assert_close(Forward(layers, reverse=True)(x), torch.tanh(a(torch.tanh(b(x)))))


@pytest.mark.claim("nn.shared-module-params")
def test_a_layer_called_twice_has_one_set_of_parameters_that_sums_both_gradients():
    class Twice(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(3, 3)

        def forward(self, x):
            return self.lin(torch.tanh(self.lin(x)))

    shared = Twice()
    assert len(list(shared.parameters())) == 2
    # the same computation with two independent copies of the layer
    first, second = nn.Linear(3, 3), nn.Linear(3, 3)
    first.load_state_dict(shared.lin.state_dict())
    second.load_state_dict(shared.lin.state_dict())
    x = torch.randn(4, 3)
    shared(x).sum().backward()
    second(torch.tanh(first(x))).sum().backward()
    assert_close(shared.lin.weight.grad, first.weight.grad + second.weight.grad)
    assert_close(shared.lin.bias.grad, first.bias.grad + second.bias.grad)


@pytest.mark.claim("nn.sequential-forward")
def test_sequential_runs_its_layers_in_definition_order():
    l1, act, l2 = nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2)
    x = torch.randn(5, 3)
    assert torch.equal(nn.Sequential(l1, act, l2)(x), l2(act(l1(x))))
    named = nn.Sequential(collections.OrderedDict([("fc1", l1), ("act", act), ("fc2", l2)]))
    assert torch.equal(named(x), l2(act(l1(x))))
    assert named.fc2 is l2
    # order is definition order: the same layers in another order compute something else
    sq = nn.Linear(3, 3)
    assert not torch.equal(nn.Sequential(sq, nn.ReLU())(x), nn.Sequential(nn.ReLU(), sq)(x))


# --- parameters and state_dict -----------------------------------------------------


@pytest.mark.claim("nn.numel-param-count")
@pytest.mark.claim("nn.numel-total-params", decides="holds")
def test_numel_sum_counts_all_and_trainable_parameters_but_no_buffers():
    model = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.Flatten(), nn.Linear(32, 2))
    conv_n, bn_n, fc_n = 8 * 3 * 3 * 3 + 8, 8 + 8, 32 * 2 + 2
    total_parameters = sum(torch.numel(p) for p in model.parameters())
    assert total_parameters == conv_n + bn_n + fc_n == 306
    model[0].requires_grad_(False)
    trained_parameters = sum(torch.numel(p) for p in model.parameters() if p.requires_grad)
    assert trained_parameters == bn_n + fc_n
    # BN's running statistics are buffers, not parameters: not counted
    assert sum(b.numel() for b in model.buffers()) == 8 + 8 + 1


@pytest.mark.claim("nn.parameters-generator")
def test_parameters_is_a_one_shot_generator_and_state_dict_is_a_dict():
    model = nn.Linear(2, 3)
    params = model.parameters()
    assert inspect.isgenerator(params)
    assert len(list(params)) == 2
    assert list(params) == [], "a generator is exhausted after one pass"
    sd = model.state_dict()
    assert isinstance(sd, dict) and list(sd) == ["weight", "bias"]


@pytest.mark.claim("nn.load-state-dict-strict-false", decides="holds")
def test_load_state_dict_strict_false_loads_matching_keys_and_reports_the_rest(tmp_path):
    src = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    sd = src.state_dict()
    sd["extra.weight"] = torch.zeros(1)
    del sd["2.bias"]
    torch.save(sd, tmp_path / "model.pth")
    model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    untouched_bias = model[2].bias.detach().clone()

    result = model.load_state_dict(torch.load(tmp_path / "model.pth"), strict=False)
    assert result.missing_keys == ["2.bias"]
    assert result.unexpected_keys == ["extra.weight"]
    for key in ("0.weight", "0.bias", "2.weight"):
        assert torch.equal(model.state_dict()[key], src.state_dict()[key]), key
    assert torch.equal(model[2].bias, untouched_bias), "a missing key leaves the parameter as it was"

    with pytest.raises(RuntimeError, match="Missing key.*2.bias(.|\n)*Unexpected key.*extra.weight"):
        model.load_state_dict(sd)  # strict=True is the default


@pytest.mark.claim("nn.load-state-dict-strict-false")
def test_strict_false_still_raises_on_a_matching_key_whose_shape_differs():
    # outside the note's words (a checkpoint of another network): it only confirms where strict=False stops
    # a checkpoint of the same network with another head size: every key matches by name
    src = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 5))
    model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    assert src.state_dict().keys() == model.state_dict().keys()
    with pytest.raises(RuntimeError, match="size mismatch for 2.weight(.|\n)*size mismatch for 2.bias"):
        model.load_state_dict(src.state_dict(), strict=False)
    # dropping the mismatched keys by hand is what makes strict=False load the rest
    wanted = model.state_dict()
    compatible = {k: v for k, v in src.state_dict().items() if v.shape == wanted[k].shape}
    result = model.load_state_dict(compatible, strict=False)
    assert result.missing_keys == ["2.weight", "2.bias"] and result.unexpected_keys == []
    assert torch.equal(model[0].weight, src[0].weight)


class WithLayers(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Conv2d(3, 8, 3), nn.ReLU()])


@pytest.mark.claim("nn.flops-method", decides="wrong")
def test_note_flops_call_raises_because_torch_layers_have_no_flops_method():
    model = WithLayers()
    with pytest.raises(AttributeError, match="'Conv2d' object has no attribute 'flops'"):
        model.layers[0].flops() / 1e9
    module_classes = [c for c in vars(nn).values() if isinstance(c, type) and issubclass(c, nn.Module)]
    assert len(module_classes) > 100
    assert [c.__name__ for c in module_classes if hasattr(c, "flops")] == []


@pytest.mark.claim("nn.flops-method")
@pytest.mark.needs(min_torch=FLOP_COUNTER_SINCE)
def test_flop_counter_mode_is_how_torch_counts_flops():
    from torch.utils.flop_counter import FlopCounterMode

    lin, x = nn.Linear(16, 8), torch.randn(4, 16)
    with FlopCounterMode(display=False) as counter:
        lin(x)
    assert counter.get_total_flops() == 2 * 4 * 16 * 8  # one multiply-add per weight per sample


# --- weight assignment, initialisation, building -----------------------------------


@pytest.mark.claim("nn.parameter-assign")
@pytest.mark.claim("nn.parameter-assign-init", decides="holds")
def test_assigning_a_parameter_sets_the_values_and_registers_it_for_training():
    layer = nn.Linear(3, 2)
    t = torch.arange(6.0).reshape(2, 3)
    layer.weight = nn.Parameter(t)
    assert torch.equal(layer.weight, t)
    assert layer.weight.requires_grad
    assert any(p is layer.weight for p in layer.parameters())
    assert layer.weight.data_ptr() == t.data_ptr(), "nn.Parameter(t) wraps t's memory, no copy"
    opt = torch.optim.SGD(layer.parameters(), lr=0.1)
    layer(torch.ones(1, 3)).sum().backward()
    opt.step()
    assert_close(layer.weight.detach(), torch.arange(6.0).reshape(2, 3) - 0.1)
    # a plain tensor is refused for a parameter slot
    with pytest.raises(TypeError, match=r"cannot assign .* as parameter 'weight' \(torch.nn.Parameter or None"):
        layer.weight = torch.ones(2, 3)



@pytest.mark.claim("nn.parameter-assign", decides="holds")
def test_assigning_a_bias_parameter_sets_it_and_trains_it_too():
    layer = nn.Linear(3, 2)
    t = torch.tensor([1.0, -1.0])
    layer.bias = nn.Parameter(t)
    assert torch.equal(layer.bias, t) and layer.bias.requires_grad
    assert [name for name, p in layer.named_parameters() if p is layer.bias] == ["bias"]
    opt = torch.optim.SGD(layer.parameters(), lr=0.1)
    layer(torch.ones(1, 3)).sum().backward()
    opt.step()
    assert_close(layer.bias.detach(), torch.tensor([0.9, -1.1]))

@pytest.mark.claim("nn.modulelist-as-weight", decides="wrong")
def test_assigning_a_modulelist_to_a_weight_raises_type_error():
    layer = nn.Linear(2, 2)
    before = layer.weight
    with pytest.raises(TypeError, match=r"cannot assign 'torch.nn.modules.container.ModuleList' as parameter 'weight'"):
        layer.weight = nn.ModuleList([nn.Linear(2, 2)])
    assert layer.weight is before
    assert [n for n, _ in layer.named_parameters()] == ["weight", "bias"]


@pytest.mark.claim("nn.fill-data")
def test_data_fill_sets_every_weight_and_bias_value():
    layer = nn.Linear(4, 3)
    layer.weight.data.fill_(0.5)
    layer.bias.data.fill_(-1.0)
    assert torch.equal(layer.weight, torch.full((3, 4), 0.5))
    assert torch.equal(layer.bias, torch.full((3,), -1.0))
    x = torch.randn(2, 4)
    assert_close(layer(x), (0.5 * x.sum(1, keepdim=True) - 1.0).expand(2, 3))
    assert layer.weight.requires_grad and layer.weight.grad_fn is None


@pytest.mark.claim("nn.apply-recursive")
def test_apply_visits_every_module_children_first_and_can_initialise_them():
    net = nested_net()
    seen = []
    assert net.apply(seen.append) is net
    assert sorted(ids(seen)) == sorted(ids(net.modules()))
    assert seen[-1] is net, "apply calls fn on children before the module itself"
    assert ids(seen) == ids([net[0], net[1][0], net[1][1][0], net[1][1], net[1], net[2], net])

    def init_func(layer):
        if isinstance(layer, nn.Conv2d):
            nn.init.constant_(layer.weight, 0.25)

    net.apply(init_func)
    convs = [m for m in net.modules() if isinstance(m, nn.Conv2d)]
    assert len(convs) == 2 and all(torch.all(c.weight == 0.25) for c in convs)


@pytest.mark.claim("nn.sequential-add-module")
def test_empty_sequential_grows_with_add_module_in_insertion_order():
    net = nn.Sequential()
    hidden, act, out = nn.Linear(2, 4), nn.ReLU(), nn.Linear(4, 1)
    net.add_module("hidden", hidden)
    net.add_module("act", act)
    net.add_module("out", out)
    assert len(net) == 3 and list(dict(net.named_children())) == ["hidden", "act", "out"]
    assert net.out is out
    x = torch.randn(5, 2)
    assert torch.equal(net(x), out(act(hidden(x))))


@pytest.mark.claim("nn.param-order")
def test_parameters_come_layer_by_layer_weight_then_bias():
    net = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    assert ids(net.parameters()) == ids([net[0].weight, net[0].bias, net[2].weight, net[2].bias])

    class DefinedBackwards(nn.Module):
        def __init__(self):
            super().__init__()
            self.second = nn.Linear(3, 1)
            self.first = nn.Linear(2, 3)

        def forward(self, x):
            return self.second(self.first(x))

    # the order is registration order, not the order forward() uses the layers
    m = DefinedBackwards()
    assert ids(m.parameters()) == ids([m.second.weight, m.second.bias, m.first.weight, m.first.bias])


@pytest.mark.claim("nn.param-data")
def test_param_data_is_the_plain_tensor_behind_the_parameter():
    net = nn.Sequential(nn.Linear(2, 3))
    p = list(net.parameters())[0]
    data = p.data
    assert type(data) is torch.Tensor and not isinstance(data, nn.Parameter)
    assert not data.requires_grad
    assert data.data_ptr() == p.data_ptr()
    data[0, 0] = 42.0
    assert p[0, 0].item() == 42.0, "writes through .data show in the parameter"


@pytest.mark.claim("nn.param-name-attr", decides="wrong")
def test_param_name_is_always_none_and_names_come_from_named_parameters():
    net = nn.Sequential(collections.OrderedDict([("fc1", nn.Linear(2, 3)), ("fc2", nn.Linear(3, 1))]))
    # Tensor.name is autograd's read-only debug name: never set for module parameters
    assert [p.name for p in net.parameters()] == [None] * 4
    with pytest.raises(AttributeError):
        net.fc1.weight.name = "fc1"
    assert [n for n, _ in net.named_parameters()] == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]


# --- FeatureExtractor (note 002) ---------------------------------------------------


class FeatureExtractor(torch.nn.Module):
    """The note's helper, re-typed (docstring dropped)."""

    def __init__(self, pretrained_model, layers_to_extract):
        torch.nn.Module.__init__(self)
        self._model = pretrained_model
        self._model.eval()
        self._layers_to_extract = set(layers_to_extract)

    def forward(self, x):
        with torch.no_grad():
            conv_representation = []
            for name, layer in self._model.named_children():
                x = layer(x)
                if name in self._layers_to_extract:
                    conv_representation.append(x)
            return conv_representation


@pytest.mark.claim("nn.featureextractor")
@pytest.mark.needs(libs=["torchvision"])
def test_feature_extractor_returns_the_requested_resnet_blocks_in_network_order():
    import torchvision

    resnet = torchvision.models.resnet18(weights=None)
    model = torch.nn.Sequential(collections.OrderedDict(list(resnet.named_children())[:-1]))
    image = torch.randn(1, 3, 64, 64)
    extractor = FeatureExtractor(pretrained_model=model, layers_to_extract={"layer4", "layer2", "layer1", "layer3"})
    with one_thread():
        features = extractor(image)

    # the same blocks' outputs, caught with forward hooks on an ordinary forward pass
    caught = {}
    hooks = [getattr(model, n).register_forward_hook(lambda m, i, o, n=n: caught.__setitem__(n, o))
             for n in ("layer1", "layer2", "layer3", "layer4")]
    try:
        with torch.no_grad(), one_thread():
            model(image)
    finally:
        for h in hooks:
            h.remove()
    assert isinstance(features, list) and len(features) == 4
    assert [tuple(f.shape) for f in features] == [(1, 64, 16, 16), (1, 128, 8, 8), (1, 256, 4, 4), (1, 512, 2, 2)]
    for got, name in zip(features, ("layer1", "layer2", "layer3", "layer4")):
        assert_close(got, caught[name], msg=f"{name} differs from the hooked output")
    assert not features[0].requires_grad and not model.training


@pytest.mark.claim("nn.bias-none-without-bias", decides="holds")
@pytest.mark.parametrize(
    "make",
    [lambda bias: nn.Conv2d(3, 8, 3, bias=bias), lambda bias: nn.Linear(4, 2, bias=bias)],
    ids=["conv2d", "linear"],
)
def test_a_layer_without_bias_has_bias_none_and_the_init_loop_skips_it(make):
    with_bias, without = make(True), make(False)
    assert isinstance(with_bias.bias, nn.Parameter), f"bias of a layer with bias: {type(with_bias.bias)}"
    assert without.bias is None, f"bias of a layer built with bias=False: {without.bias!r}, expected None"
    assert [n for n, _ in without.named_parameters()] == ["weight"]
    model = nn.Sequential(with_bias, without)
    for layer in model.modules():  # the note's loop, the bias half
        if isinstance(layer, (nn.Conv2d, nn.Linear)) and layer.bias is not None:
            nn.init.constant_(layer.bias, val=0.0)
    assert torch.equal(with_bias.bias, torch.zeros_like(with_bias.bias)), f"bias after the loop: {with_bias.bias}"
    assert without.bias is None

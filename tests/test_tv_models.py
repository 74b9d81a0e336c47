"""torchvision.models: builders, the legacy pretrained= flag, classifier heads, feature slices.

Notes: 001_eaed12e493b64ab2.txt › torchvision.models (googlenet(pretrained=True), resnet18,
alexnet, squeezenet1_0, densenet_161, the GoogLeNet fc swap); 002_d3afcdbaa9416717.txt
› 提取ImageNet预训练模型某层的卷积特征 (VGG-16 relu5_3 / pool5 / fc7 slices, ResNet GAP
feature); 000_03e1e7bc9bbd04f1.txt › 以较大学习率微调全连接层... and 003_df07c2a5da61a567.txt
› 4 torch 神经网络 (`models.X(pretrained=True)`).

No network and no downloads: every model is built with random weights (weights=None, the
default). The pretrained= path is exercised offline with SqueezeNet 1.0 (the smallest of
the note's models; every builder shares the same legacy-argument decorator) by placing a
checkpoint file in a torch hub cache under tmp_path, where torchvision's own loader looks
before it would download. Forward passes use small inputs (64 x 64, or 32 x 32 for VGG,
the least its five pools take) on one thread.
"""
import collections
import os
from urllib.parse import urlparse

import pytest
import torch
from torch import nn
from torch.testing import assert_close

from fixtures.boundaries import PRETRAINED_DEPRECATED_IN_TORCHVISION, TORCH_OF_FIRST_WEIGHTS_ENUMS
from fixtures.needs import loads

# torchvision imported only where it loads with this torch; else every test here reads not-run
# with the import's error (fixtures/needs.py)
if loads("torchvision"):
    import torchvision.models as models

pytestmark = [pytest.mark.usefixtures("single_thread"),  # real models run on one intra-op thread (fixtures/threads.py)
              pytest.mark.needs(libs=["torchvision"])]


def _forward(model, size=64):
    with torch.no_grad():
        return model.eval()(torch.rand(1, 3, size, size))


def _n_params(model):
    return sum(p.numel() for p in model.parameters())


def _capture(module):
    """Register a forward hook that keeps the module's latest output; returns the dict."""
    seen = {}
    module.register_forward_hook(lambda m, i, o: seen.update(input=i[0], output=o))
    return seen


# --- tv.models-pretrained-kwarg --------------------------------------------------------


def _cache_a_stand_in_checkpoint(tmp_path, monkeypatch):
    """A random SqueezeNet 1.0 state dict, saved where torchvision's loader looks for the ImageNet
    checkpoint before it would download it (a torch hub cache under tmp_path); returns it."""
    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    assert torch.hub.get_dir() == str(tmp_path / "hub"), "torch.hub.set_dir() was called elsewhere"
    weights = models.SqueezeNet1_0_Weights.IMAGENET1K_V1
    assert models.SqueezeNet1_0_Weights.DEFAULT is weights
    stand_in = models.squeezenet1_0().state_dict()
    cached = tmp_path / "hub" / "checkpoints" / os.path.basename(urlparse(weights.url).path)
    cached.parent.mkdir(parents=True)
    torch.save(stand_in, cached)
    return stand_in


@pytest.mark.claim("tv.models-pretrained-kwarg", half="holding")
@pytest.mark.needs(min_torch=TORCH_OF_FIRST_WEIGHTS_ENUMS)
@pytest.mark.filterwarnings("ignore:The parameter 'pretrained' is deprecated:UserWarning")
@pytest.mark.filterwarnings("ignore:Arguments other than a weight enum:UserWarning")
def test_pretrained_true_loads_the_default_checkpoint(tmp_path, monkeypatch):
    stand_in = _cache_a_stand_in_checkpoint(tmp_path, monkeypatch)
    loaded = models.squeezenet1_0(pretrained=True).state_dict()
    assert loaded.keys() == stand_in.keys()
    for name, tensor in stand_in.items():
        assert torch.equal(loaded[name], tensor), f"{name} was not loaded from the cached checkpoint"


@pytest.mark.claim("tv.models-pretrained-kwarg", half="failing")
@pytest.mark.needs(min_torch=TORCH_OF_FIRST_WEIGHTS_ENUMS)
def test_pretrained_is_deprecated_and_names_the_weights_enum_to_use_instead(tmp_path, monkeypatch):
    _cache_a_stand_in_checkpoint(tmp_path, monkeypatch)
    with pytest.warns(UserWarning) as record:
        models.squeezenet1_0(pretrained=True)  # the note's call
    messages = [str(w.message) for w in record]
    assert any(
        f"The parameter 'pretrained' is deprecated since {PRETRAINED_DEPRECATED_IN_TORCHVISION}" in m
        for m in messages
    ), messages
    assert any("weights=SqueezeNet1_0_Weights.IMAGENET1K_V1" in m for m in messages), messages


@pytest.mark.claim("tv.models-pretrained-kwarg", half="holding")
@pytest.mark.needs(min_torch=TORCH_OF_FIRST_WEIGHTS_ENUMS)
@pytest.mark.filterwarnings("ignore:The parameter 'pretrained' is deprecated:UserWarning")
@pytest.mark.filterwarnings("ignore:Arguments other than a weight enum:UserWarning")
def test_pretrained_false_means_weights_none_random_initialisation():
    a, b = models.squeezenet1_0(pretrained=False), models.squeezenet1_0(weights=None)
    assert a.state_dict().keys() == b.state_dict().keys()
    assert not torch.equal(a.classifier[1].weight, b.classifier[1].weight), "two random inits coincided"


# --- tv.model-constructors -------------------------------------------------------------


@pytest.mark.claim("tv.model-constructors")
@pytest.mark.parametrize(
    "builder, cls, n_params",
    [
        # parameter counts as published by torchvision for these architectures
        pytest.param("resnet18", models.ResNet, 11_689_512, id="resnet18"),
        pytest.param("alexnet", models.AlexNet, 61_100_840, id="alexnet"),
        pytest.param("squeezenet1_0", models.SqueezeNet, 1_248_424, id="squeezenet1_0"),
    ],
)
def test_builders_construct_the_named_architecture(builder, cls, n_params):
    model = getattr(models, builder)()
    assert type(model) is cls
    assert _n_params(model) == n_params
    assert _forward(model).shape == (1, 1000)


# --- tv.densenet-161 -------------------------------------------------------------------


@pytest.mark.claim("tv.densenet-161", decides="wrong")
def test_densenet_161_with_an_underscore_does_not_exist():
    with pytest.raises(AttributeError, match="module 'torchvision.models' has no attribute 'densenet_161'"):
        exec("densenet = models.densenet_161()", {"models": models})


@pytest.mark.claim("tv.densenet-161")
def test_the_builder_is_called_densenet161():
    assert callable(models.densenet161) and models.densenet161.__name__ == "densenet161"


# --- tv.googlenet-fc -------------------------------------------------------------------


@pytest.mark.claim("tv.googlenet-fc", decides="holds")
def test_googlenet_fc_is_1024_to_1000_and_can_be_replaced_by_a_10_way_head():
    google_net = models.googlenet(init_weights=False)  # no scipy-style init: structure is what counts
    assert (google_net.fc.in_features, google_net.fc.out_features) == (1024, 1000)
    assert _forward(google_net).shape == (1, 1000)
    fc_input = _capture(google_net.fc)
    google_net.fc = torch.nn.Linear(google_net.fc.in_features, 10)
    out = _forward(google_net)
    assert out.shape == (1, 10)
    assert fc_input == {}, "the hook on the old fc fired: the new head was not used"


# --- tv.vgg16-feature-slices -----------------------------------------------------------


def _vgg16(real_features=True):
    """VGG-16 whose conv stack (if real_features) holds real, randomly initialised weights.

    Where torch can build on the meta device (>= 2.0, `with torch.device(...)`), the
    124M-parameter classifier stays there: it is checked by module identity and shapes,
    which costs no memory and no initialisation time. Older torch builds it for real.
    """
    if not hasattr(torch.device, "__enter__"):
        return models.vgg16(init_weights=False)
    with torch.device("meta"):
        vgg = models.vgg16()
    if not real_features:
        return vgg
    vgg.features.to_empty(device="cpu")
    for m in vgg.features:
        if isinstance(m, nn.Conv2d):
            m.reset_parameters()
    return vgg


@pytest.mark.claim("tv.vgg16-feature-slices", decides="holds")
def test_vgg16_features_minus_last_ends_at_relu5_3_and_features_at_pool5():
    vgg = _vgg16().eval()
    features = vgg.features
    assert sum(isinstance(m, nn.Conv2d) for m in features) == 13
    assert isinstance(features[-1], nn.MaxPool2d) and isinstance(features[-2], nn.ReLU)
    assert isinstance(features[-3], nn.Conv2d) and features[-3].out_channels == 512  # conv5_3
    relu5_3 = _capture(features[-2])
    x = torch.rand(1, 3, 32, 32)
    with torch.no_grad():
        pool5 = features(x)
        up_to_relu = features[:-1](x)
    assert up_to_relu.shape == (1, 512, 2, 2)
    assert torch.equal(up_to_relu, relu5_3["output"]), "features[:-1] should end with relu5_3's output"
    assert (up_to_relu >= 0).all(), "relu5_3 output must be non-negative"
    assert pool5.shape == (1, 512, 1, 1) and torch.equal(pool5, nn.functional.max_pool2d(up_to_relu, 2))


@pytest.mark.claim("tv.vgg16-feature-slices", decides="holds")
def test_vgg16_classifier_children_minus_3_end_at_fc7():
    vgg = _vgg16(real_features=False).eval()
    old = list(vgg.classifier.children())
    # fc6, relu6, drop6, fc7, relu7, drop7, fc8
    assert [type(m).__name__ for m in old] == ["Linear", "ReLU", "Dropout", "Linear", "ReLU", "Dropout", "Linear"]
    vgg.classifier = nn.Sequential(*list(vgg.classifier.children())[:-3])
    kept = list(vgg.classifier)
    assert len(kept) == 4 and all(a is b for a, b in zip(kept, old)), "[:-3] should keep fc6 .. fc7"
    assert (kept[-1].in_features, kept[-1].out_features) == (4096, 4096)
    # fed with the flattened pool5 feature map (512 x 7 x 7 after the adaptive pool), it outputs 4096 values
    device = kept[0].weight.device
    assert kept[0].in_features == 512 * 7 * 7
    with torch.no_grad():
        fc7 = vgg.classifier(torch.zeros(1, 512 * 7 * 7, device=device))
    assert fc7.shape == (1, 4096), "fc7 output is taken before relu7"


# --- tv.resnet-gap-feature -------------------------------------------------------------


@pytest.mark.claim("tv.resnet-gap-feature", decides="holds")
def test_resnet_children_without_fc_output_the_global_average_pooled_feature():
    model = models.resnet18()
    layer4, fc = _capture(model.layer4), _capture(model.fc)
    x = torch.rand(1, 3, 64, 64)
    with torch.no_grad():
        model.eval()(x)
        # the note's line, as written
        model = torch.nn.Sequential(collections.OrderedDict(list(model.named_children())[:-1]))
        gap = model.eval()(x)
    assert list(dict(model.named_children()))[-1] == "avgpool"
    assert gap.shape == (1, 512, 1, 1), "the feature keeps its 1x1 spatial dims (it is not flattened)"
    assert_close(gap, layer4["output"].mean(dim=(2, 3), keepdim=True))
    assert_close(gap.flatten(1), fc["input"]), "the GAP feature is exactly what fc receives"


# --- tv.package-parts (added claim) ------------------------------------------------------


@pytest.mark.claim("tv.package-parts")
def test_torchvision_has_datasets_models_transforms_and_utils():
    import torchvision
    from torchvision import datasets, transforms, utils

    assert {"datasets", "models", "transforms", "utils"} <= set(dir(torchvision))
    assert issubclass(datasets.MNIST, datasets.VisionDataset) and callable(datasets.ImageFolder)
    for builder, weights in [("alexnet", "AlexNet_Weights"), ("vgg16", "VGG16_Weights"),
                             ("resnet18", "ResNet18_Weights")]:
        assert callable(getattr(models, builder)), builder
        assert getattr(models, weights).DEFAULT.url.startswith("https://"), f"{weights}: no pretrained checkpoint"
    image = torch.rand(3, 40, 40)
    assert transforms.RandomCrop(32)(image).shape == (3, 32, 32)
    assert transforms.RandomRotation(30)(image).shape == (3, 40, 40)
    assert utils.make_grid(torch.rand(4, 3, 8, 8), nrow=2, padding=0).shape == (3, 16, 16)

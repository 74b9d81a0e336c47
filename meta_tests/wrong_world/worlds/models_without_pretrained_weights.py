"""A torchvision whose model architectures come without pretrained models: every weights enum
(AlexNet_Weights, ResNet18_Weights, ...) names no checkpoint to load (its url is empty).

Makes tv.package-parts wrong: torchvision.models holds no "common model architectures with pretrained
models".
"""
from torchvision.models._api import WeightsEnum


def apply():
    WeightsEnum.url = property(lambda self: "")

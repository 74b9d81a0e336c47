"""torchvision's pil_to_tensor that scales into [0, 1] like to_tensor: every conversion of an image
gives floats in [0, 1], as the note says images are "by default".

Makes the note right where tensor.image-layout-convention's failing half says it is wrong: its left-out
test goes red.
"""
import torchvision.transforms.functional as TF

_pil_to_tensor = TF.pil_to_tensor


def pil_to_tensor(pic):
    return _pil_to_tensor(pic).float() / 255


def apply():
    TF.pil_to_tensor = pil_to_tensor

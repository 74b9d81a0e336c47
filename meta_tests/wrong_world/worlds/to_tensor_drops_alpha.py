"""torchvision's to_tensor that drops the alpha channel of an RGBA image: it returns the 3 x H x W
colour channels only. Every other image (RGB, L, P, 16-bit, float) converts as before.

Makes dtype.pil-to-tensor-manual wrong for its RGBA case: the np.asarray recipe keeps 4 channels,
so it and to_tensor no longer agree bit for bit.
"""
import torchvision.transforms.functional as TF

_to_tensor = TF.to_tensor


def to_tensor(pic):
    t = _to_tensor(pic)
    if getattr(pic, "mode", None) == "RGBA":
        t = t[:3]
    return t


def apply():
    TF.to_tensor = to_tensor

"""torchvision's to_tensor that converts every 8-bit image to RGB first: an RGBA, grayscale (L) or
palette (P) image comes back as 3 x H x W, not with its own number of channels. RGB images, and
the 16-bit (I;16) and float (F) ones, convert as before.

Makes dtype.to-tensor-func wrong in its holding half, for its RGBA, L and P cases: to_tensor no
longer gives C x H x W with the image's own C.
"""
import PIL.Image
import torchvision.transforms.functional as TF

_to_tensor = TF.to_tensor


def to_tensor(pic):
    if isinstance(pic, PIL.Image.Image) and pic.mode != "RGB" and not pic.mode.startswith(("I", "F")):
        pic = pic.convert("RGB")
    return _to_tensor(pic)


def apply():
    TF.to_tensor = to_tensor

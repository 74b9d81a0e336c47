"""Image display and conversion where the notes would be wrong (independent patches, one spec run):

- image.show() waits until the viewer closes (PIL's xdg-open viewer run to its end)
                                                        -> tv.pil-show-nonblocking
- ToTensor hands back the image's pixels as a NumPy array, not a tensor
                                                        -> tv.to-tensor-image
- ToPILImage builds the image with its channels in reverse order (BGR)
                                                        -> tv.to-pil-image-show

Makes tv.pil-show-nonblocking, tv.to-tensor-image and tv.to-pil-image-show (holds) wrong: their
tests must go red.
"""
import os
import subprocess

import numpy as np
import torchvision.transforms.functional as F
from PIL import Image, ImageShow

_to_pil_image = F.to_pil_image


def show_file(self, path, **options):
    if not os.path.exists(path):
        raise FileNotFoundError
    subprocess.call(["xdg-open", path])
    return 1


def to_tensor(pic):
    return np.array(pic)


def to_pil_image(pic, mode=None):
    image = _to_pil_image(pic, mode)
    return Image.merge(image.mode, image.split()[::-1]) if image.mode == "RGB" else image


def apply():
    ImageShow.XDGViewer.show_file = show_file
    F.to_tensor, F.to_pil_image = to_tensor, to_pil_image

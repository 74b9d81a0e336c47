"""PIL.Image.open that hands back an RGB copy of every image (its mode, format and alpha lost), not
the image of the file.

Makes lib.pil-image-open wrong (it holds): its tests go red.
"""
from PIL import Image

_open = Image.open


def open(fp, *args, **kwargs):
    return _open(fp, *args, **kwargs).convert("RGB")


def apply():
    Image.open = open

"""PIL calls that the notes' torch recipes rely on.

Notes: 003_df07c2a5da61a567.txt › 5 读取图像 (image = Image.open(path), before the image goes
through torchvision's transforms).

Images come from fixtures/images.py: an 80 (wide) x 48 (high) RGB image, saved under tmp_path.
"""
import numpy as np
import pytest
from PIL import Image

from fixtures.images import IMAGE_H, IMAGE_W


@pytest.mark.claim("lib.pil-image-open")
@pytest.mark.parametrize(
    "mode, suffix",
    [("RGB", ".png"), ("RGBA", ".png"), ("L", ".png"), ("RGB", ".bmp"), ("L", ".bmp")],
    ids=["RGB-png", "RGBA-png", "grayscale-png", "RGB-bmp", "grayscale-bmp"],
)
def test_image_open_gives_the_image_of_the_file_at_path(tmp_path, rgb_image, mode, suffix):
    source = rgb_image.convert(mode)
    path = tmp_path / f"image{suffix}"
    source.save(path)
    image = Image.open(path)  # the note's line; lossless formats, so the pixels must match
    assert isinstance(image, Image.Image)
    assert (image.mode, image.size) == (mode, (IMAGE_W, IMAGE_H)), (image.mode, image.size)
    assert np.array_equal(np.asarray(image), np.asarray(source)), "Image.open gave other pixels than the file's"


@pytest.mark.claim("lib.pil-image-open")
def test_image_open_of_a_jpeg_gives_its_format_size_and_mode(tmp_path, rgb_image):
    path = tmp_path / "image.jpg"
    rgb_image.save(path, quality=95)
    image = Image.open(path)
    # lossy: the pixels differ from the saved ones, the size and mode do not
    assert (image.format, image.mode, image.size) == ("JPEG", "RGB", (IMAGE_W, IMAGE_H))
    assert np.asarray(image).shape == (IMAGE_H, IMAGE_W, 3)

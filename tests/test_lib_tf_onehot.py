"""TensorFlow/Keras to_categorical against PyTorch's one-hot (F.one_hot and the note's scatter_).

Notes: 002_d3afcdbaa9416717.txt › 将整数转换为one-hot (the TensorFlow line; the PyTorch
scatter_ recipe of the same section is tensor.one-hot-scatter, checked without TensorFlow).

Run with tensorflow-cpu installed: `tox -e lib-tf` (requirements-lib-tf.txt).
"""
import importlib.util

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

pytestmark = pytest.mark.needs(libs=["tensorflow"])


@pytest.fixture(scope="module")
def tf():
    # Loading triton (torch's compiler backend) after tensorflow 2.21 segfaults the process
    # (measured: `import tensorflow; import torchvision` dies in triton/knobs.py); the other
    # order is fine, so load it first for every test that runs after this one.
    if importlib.util.find_spec("triton") is not None:
        import triton  # noqa: F401
    import tensorflow

    return tensorflow


def note_scatter_one_hot(tensor, num_classes):
    """The note's PyTorch recipe, as written."""
    N = tensor.size(0)
    one_hot = torch.zeros(N, num_classes).long()
    one_hot.scatter_(dim=1, index=torch.unsqueeze(tensor, dim=1), src=torch.ones(N, num_classes).long())
    return one_hot


def assert_one_hot_equal(actual, expected, labels):
    __tracebackhide__ = True
    assert actual.shape == expected.shape and np.array_equal(actual, expected), (
        f"one-hot differs for labels {labels.tolist()}:\n{actual}\nexpected\n{expected}"
    )


@pytest.mark.claim("lib.tf-to-categorical", decides="wrong")
def test_note_spelling_tf_keras_to_categorical_does_not_exist(tf):
    ns = {"tf": tf, "ndarray": np.array([0, 2, 1]), "num_classes": 3}
    with pytest.raises(AttributeError, match="has no attribute 'to_categorical'"):
        exec(compile("tf.keras.to_categorical(ndarray, num_classes)", "<note>", "exec"), ns)
    assert callable(tf.keras.utils.to_categorical), "the function lives in tf.keras.utils"


@pytest.mark.claim("lib.tf-to-categorical")
@given(
    num_classes=st.integers(min_value=1, max_value=6),
    data=st.data(),
)
def test_utils_to_categorical_equals_torch_one_hot(tf, num_classes, data):
    labels = data.draw(
        hnp.arrays(np.int64, st.integers(0, 12), elements=st.integers(0, num_classes - 1)), label="labels"
    )
    keras_out = tf.keras.utils.to_categorical(labels, num_classes)
    assert keras_out.dtype.kind == "f", f"to_categorical returned {keras_out.dtype}, expected floats"
    torch_out = F.one_hot(torch.from_numpy(labels), num_classes).numpy()
    assert_one_hot_equal(keras_out, torch_out.astype(keras_out.dtype), labels)
    scatter_out = note_scatter_one_hot(torch.from_numpy(labels), num_classes).numpy()
    assert_one_hot_equal(keras_out, scatter_out.astype(keras_out.dtype), labels)


@pytest.mark.claim("lib.tf-to-categorical")
def test_num_classes_defaults_to_max_label_plus_one_like_f_one_hot(tf):
    labels = np.array([0, 3, 1])
    keras_out = tf.keras.utils.to_categorical(labels)
    assert keras_out.shape == (3, 4)
    assert_one_hot_equal(keras_out, F.one_hot(torch.from_numpy(labels)).numpy().astype(keras_out.dtype), labels)


@pytest.mark.claim("lib.tf-to-categorical")
def test_where_to_categorical_and_f_one_hot_part_ways(tf):
    to_cat = tf.keras.utils.to_categorical
    # a trailing axis of size 1 is squeezed: (N, 1) labels give (N, C), F.one_hot gives (N, 1, C)
    column = np.array([[1], [2]])
    assert to_cat(column, 3).shape == (2, 3)
    assert tuple(F.one_hot(torch.from_numpy(column), 3).shape) == (2, 1, 3)
    # a negative label wraps around to the last class (NumPy indexing); F.one_hot refuses it
    assert_one_hot_equal(to_cat(np.array([0, -1]), 3), np.array([[1.0, 0, 0], [0, 0, 1]]), np.array([0, -1]))
    with pytest.raises(RuntimeError, match="Class values must be non-negative"):
        F.one_hot(torch.tensor([0, -1]), 3)
    # a label >= num_classes: IndexError from NumPy, RuntimeError from torch
    with pytest.raises(IndexError, match="out of bounds"):
        to_cat(np.array([0, 5]), 3)
    with pytest.raises(RuntimeError, match="Class values must be smaller than num_classes"):
        F.one_hot(torch.tensor([0, 5]), 3)

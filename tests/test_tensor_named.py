"""Reductions and selection by axis index, and named tensors.

Notes: 000_03e1e7bc9bbd04f1.txt › 4. 张量 › 轴命名 & 替代axis-index (sum/select on a
32×3×56×56 batch, `names=` factories, `sum('C')`, `select('C', index=0)`, `align_to`).

Named tensors (experimental since 1.3) were removed in PyTorch 2.13
(pytorch/pytorch#173895): the `names=` keyword, the name-taking overloads and the
`align_to` / `rename` / `refine_names` methods are gone. Each behaviour gets one test per
side of that boundary; the side that does not apply to the installed torch is skipped.
"""
import pytest
import torch

from fixtures.versions import NAMED_TENSORS_REMOVED

NCHW = ["N", "C", "H", "W"]

# Before their removal, named tensors warn on first use that they are experimental.
quiet_experimental = pytest.mark.filterwarnings("ignore:Named tensors and all their associated APIs:UserWarning")

# The note's line as printed: typographic quotes around the names.
NOTE_NAMES_LINE = "NCHW = [\u2018N\u2019, \u2018C\u2019, \u2018H\u2019, \u2018W\u2019]"


@pytest.mark.claim("tensor.sum-select-dim")
def test_sum_and_select_over_dim_1_drop_the_channel_axis():
    images = torch.randn(32, 3, 56, 56)
    summed = images.sum(dim=1)
    selected = images.select(dim=1, index=0)
    assert summed.shape == (32, 56, 56), f"sum(dim=1) shape {tuple(summed.shape)}"
    assert selected.shape == (32, 56, 56), f"select(dim=1, index=0) shape {tuple(selected.shape)}"
    torch.testing.assert_close(summed, images[:, 0] + images[:, 1] + images[:, 2])
    assert torch.equal(selected, images[:, 0])
    # select is a view of channel 0, not a copy
    assert selected.data_ptr() == images.data_ptr()


@pytest.mark.claim("tensor.named-dims-api", decides="by-version")
@pytest.mark.needs(max_torch=NAMED_TENSORS_REMOVED)
@quiet_experimental
def test_names_keyword_and_reduction_by_name_work_before_removal():
    images = torch.randn(32, 3, 56, 56, names=NCHW)
    assert images.names == tuple(NCHW)
    plain = images.rename(None)

    summed = images.sum("C")
    assert summed.names == ("N", "H", "W")
    torch.testing.assert_close(summed.rename(None), plain.sum(1))

    selected = images.select("C", index=0)
    assert selected.names == ("N", "H", "W")
    assert torch.equal(selected.rename(None), plain[:, 0])


@pytest.mark.claim("tensor.named-dims-api", decides="by-version")
@pytest.mark.needs(min_torch=NAMED_TENSORS_REMOVED)
def test_names_keyword_and_reduction_by_name_are_gone_after_removal():
    with pytest.raises(TypeError, match="names"):
        torch.randn(32, 3, 56, 56, names=NCHW)
    images = torch.randn(32, 3, 56, 56)
    with pytest.raises(TypeError, match="sum"):
        images.sum("C")
    with pytest.raises(TypeError, match="must be int, not str"):
        images.select("C", index=0)
    for attr in ("names", "rename", "refine_names"):
        assert not hasattr(images, attr), f"Tensor.{attr} still exists on torch {torch.__version__}"


@pytest.mark.claim("tensor.named-align-to", decides="by-version")
@pytest.mark.needs(max_torch=NAMED_TENSORS_REMOVED)
@quiet_experimental
def test_align_to_permutes_by_name_before_removal():
    tensor = torch.rand(3, 4, 1, 2, names=("C", "N", "H", "W"))
    aligned = tensor.align_to("N", "C", "H", "W")
    assert aligned.shape == (4, 3, 1, 2), f"align_to shape {tuple(aligned.shape)}"
    assert aligned.names == ("N", "C", "H", "W")
    # the same data as swapping the first two axes by position
    assert torch.equal(aligned.rename(None), tensor.rename(None).permute(1, 0, 2, 3))


@pytest.mark.claim("tensor.named-align-to", decides="by-version")
@pytest.mark.needs(min_torch=NAMED_TENSORS_REMOVED)
def test_align_to_is_gone_after_removal_and_permute_does_the_job():
    tensor = torch.rand(3, 4, 1, 2)  # laid out as C, N, H, W
    with pytest.raises(AttributeError, match="align_to"):
        tensor.align_to("N", "C", "H", "W")
    reordered = tensor.permute(1, 0, 2, 3)
    assert reordered.shape == (4, 3, 1, 2)
    assert torch.equal(reordered[2, 1], tensor[1, 2])


@pytest.mark.claim("tensor.named-example-quotes", decides="wrong")
def test_note_example_with_typographic_quotes_is_a_syntax_error():
    with pytest.raises(SyntaxError, match=r"invalid character '\u2018' \(U\+2018\)"):
        compile(NOTE_NAMES_LINE, "<note>", "exec")
    # with ASCII quotes the same line is valid Python
    namespace: dict = {}
    exec(compile(NOTE_NAMES_LINE.replace("\u2018", "'").replace("\u2019", "'"), "<fixed>", "exec"), namespace)
    assert namespace["NCHW"] == NCHW

"""torchvision.ops.roi_pool: box formats, x/y, spatial_scale, bins, channels.

Notes: 003_df07c2a5da61a567.txt › RoI (`torchvision.ops.roi_pool(X, rois, output_size=(2, 2),
spatial_scale=0.1)` and the description of rois, output_size and spatial_scale).

Every expectation is worked out by hand on a 10 x 10 feature map whose value at row r,
column c is 10*r + c (so a value names its cell). roi_pool takes the max over each bin,
which on this map is the value of the bin's bottom-right cell. Rules used below (Fast
R-CNN RoIPool as implemented by torchvision): a box is scaled by spatial_scale and rounded
to the nearest cell, x2/y2 are inclusive, and bin i of an RoI of size L cut into n bins
covers [floor(i*L/n), ceil((i+1)*L/n)) of the RoI.
"""
import pytest
import torch

from fixtures.needs import loads

# torchvision imported only where it loads with this torch; else every test here reads not-run
# with the import's error (fixtures/needs.py)
if loads("torchvision"):
    from torchvision.ops import roi_pool

pytestmark = [pytest.mark.usefixtures("single_thread"),  # on one intra-op thread (fixtures/threads.py)
              pytest.mark.needs(libs=["torchvision"])]


def _feature_map(batch=1, channels=1):
    """value = 10*row + col, plus 100*sample and 1000*channel: every value says where it came from."""
    base = torch.arange(100.0).reshape(10, 10)
    sample = 100.0 * torch.arange(batch).view(batch, 1, 1, 1)
    channel = 1000.0 * torch.arange(channels).view(1, channels, 1, 1)
    return base + sample + channel


def _box(x1, y1, x2, y2):
    return torch.tensor([[x1, y1, x2, y2]], dtype=torch.float32)


# --- tv.roi-pool-list-4 ----------------------------------------------------------------


@pytest.mark.claim("tv.roi-pool-list-4", decides="wrong")
def test_a_list_of_4_element_boxes_is_rejected():
    with pytest.raises(IndexError, match="Dimension out of range"):
        roi_pool(_feature_map(), [torch.tensor([0.0, 0.0, 4.0, 4.0])], output_size=(2, 2))


@pytest.mark.claim("tv.roi-pool-list-4")
def test_a_list_of_l_by_4_tensors_gives_each_sample_its_own_boxes():
    X = _feature_map(batch=2)
    boxes = [_box(0, 0, 4, 4), torch.tensor([[0.0, 0.0, 4.0, 4.0], [5.0, 5.0, 9.0, 9.0]])]
    out = roi_pool(X, boxes, output_size=(2, 2), spatial_scale=1.0)
    assert out.shape == (3, 1, 2, 2), "one output per box: 1 + 2"
    # box (0,0,4,4): 5x5 cells, bins end at cells 2 and 4 -> values 22, 24, 42, 44 of that sample
    assert out[0, 0].tolist() == [[22.0, 24.0], [42.0, 44.0]]
    assert out[1, 0].tolist() == [[122.0, 124.0], [142.0, 144.0]], "second list entry belongs to sample 1"
    assert out[2, 0].tolist() == [[177.0, 179.0], [197.0, 199.0]]


# --- tv.roi-pool-n5 --------------------------------------------------------------------


@pytest.mark.claim("tv.roi-pool-n5")
def test_an_n_by_5_tensor_selects_the_sample_by_its_first_column():
    X = _feature_map(batch=2)
    rois = torch.tensor([[1.0, 0.0, 0.0, 4.0, 4.0], [0.0, 0.0, 0.0, 4.0, 4.0]])
    out = roi_pool(X, rois, output_size=(2, 2), spatial_scale=1.0)
    assert out[0, 0].tolist() == [[122.0, 124.0], [142.0, 144.0]], "batch index 1 should read sample 1"
    assert out[1, 0].tolist() == [[22.0, 24.0], [42.0, 44.0]]
    as_list = roi_pool(X, [rois[1:, 1:], rois[:1, 1:]], output_size=(2, 2), spatial_scale=1.0)
    assert torch.equal(out, as_list[[1, 0]]), "the two formats describe the same RoIs"


# --- tv.roi-pool-output ----------------------------------------------------------------


@pytest.mark.claim("tv.roi-pool-output")
@pytest.mark.parametrize("output_size, shape", [((2, 3), (2, 3)), ((3, 1), (3, 1)), (4, (4, 4))],
                         ids=["2x3", "3x1", "int-4"])
def test_output_is_k_c_n_m_and_pools_every_channel_alike(output_size, shape):
    X = _feature_map(batch=1, channels=3)
    boxes = [torch.tensor([[0.0, 0.0, 5.0, 5.0], [2.0, 1.0, 9.0, 8.0]])]
    out = roi_pool(X, boxes, output_size=output_size, spatial_scale=1.0)
    assert out.shape == (2, 3, *shape), f"got {tuple(out.shape)}"
    for c in range(3):
        assert torch.equal(out[:, c], out[:, 0] + 1000.0 * c), f"channel {c} was not pooled on its own"


@pytest.mark.claim("tv.roi-pool-output")
def test_output_size_is_rows_then_columns():
    out = roi_pool(_feature_map(), [_box(0, 0, 5, 5)], output_size=(2, 3), spatial_scale=1.0)
    # 6x6 cells: row bins end at rows 2 and 5, column bins at columns 1, 3, 5
    assert out[0, 0].tolist() == [[21.0, 23.0, 25.0], [51.0, 53.0, 55.0]]


# --- tv.roi-pool-spatial-scale ---------------------------------------------------------


@pytest.mark.claim("tv.roi-pool-spatial-scale")
def test_spatial_scale_multiplies_the_box_coordinates():
    X = _feature_map()
    scaled = roi_pool(X, [_box(4, 2, 14, 18)], output_size=(2, 2), spatial_scale=0.5)
    direct = roi_pool(X, [_box(2, 1, 7, 9)], output_size=(2, 2), spatial_scale=1.0)
    assert torch.equal(scaled, direct)
    # x 2..7 (6 cells: bins end at columns 4, 7), y 1..9 (9 cells: bins end at rows 5, 9)
    assert direct[0, 0].tolist() == [[54.0, 57.0], [94.0, 97.0]]


@pytest.mark.claim("tv.roi-pool-spatial-scale")
@pytest.mark.parametrize(
    "box, value",
    [
        pytest.param((26, 26, 34, 34), 33.0, id="2.6..3.4->cell-3"),
        pytest.param((25, 25, 35, 35), 44.0, id="2.5..3.5->cells-3..4"),
        pytest.param((14, 14, 24, 24), 22.0, id="1.4..2.4->cells-1..2"),
    ],
)
def test_scaled_coordinates_are_rounded_to_the_nearest_cell(box, value):
    out = roi_pool(_feature_map(), [_box(*box)], output_size=(1, 1), spatial_scale=0.1)
    assert out.item() == value, f"box {box} * 0.1 pooled to {out.item()}, expected {value}"


# --- tv.roi-pool-xy --------------------------------------------------------------------


@pytest.mark.claim("tv.roi-pool-xy")
def test_x_runs_along_columns_and_y_along_rows():
    X = _feature_map()
    # x in 0..1 (columns), y in 0..4 (rows): the largest cell is row 4, column 1
    tall = roi_pool(X, [_box(0, 0, 1, 4)], output_size=(1, 1), spatial_scale=1.0)
    assert tall.item() == 41.0, f"got {tall.item()}; 14.0 would mean x indexes rows"
    wide = roi_pool(X, [_box(0, 0, 4, 1)], output_size=(1, 1), spatial_scale=1.0)
    assert wide.item() == 14.0
    # the same with a transposed map swaps the roles
    transposed = roi_pool(X.transpose(2, 3).contiguous(), [_box(0, 0, 1, 4)], output_size=(1, 1))
    assert transposed.item() == 14.0


# --- tv.roi-pool-bins-ceil -------------------------------------------------------------


def _spike(row, col):
    X = torch.zeros(1, 1, 10, 10)
    X[0, 0, row, col] = 1.0
    return X


@pytest.mark.claim("tv.roi-pool-bins-ceil", decides="wrong")
def test_bins_overlap_when_the_roi_size_does_not_divide():
    # RoI of 5x5 cells in 2x2 bins: bin 0 = [0, ceil(2.5)) = cells 0..2, bin 1 = [floor(2.5), 5) = cells 2..4
    out = roi_pool(_spike(2, 2), [_box(0, 0, 4, 4)], output_size=(2, 2), spatial_scale=1.0)
    assert out[0, 0].tolist() == [[1.0, 1.0], [1.0, 1.0]], (
        f"the centre cell should land in all four bins, got {out[0, 0].tolist()}"
    )
    # bins whose edges were all rounded up ([0, 3) and [3, 5)) would see it only in bin (0, 0)


@pytest.mark.claim("tv.roi-pool-bins-ceil", decides="wrong")
def test_bins_start_rounded_down_not_up():
    X = _feature_map()
    out = roi_pool(-X, [_box(0, 0, 4, 4)], output_size=(2, 2), spatial_scale=1.0)
    # max of -X = minus the top-left cell of each bin: second bins start at cell 2 = floor(2.5)
    assert out[0, 0].tolist() == [[0.0, -2.0], [-20.0, -22.0]]


@pytest.mark.claim("tv.roi-pool-bins-ceil")
def test_bins_do_not_overlap_when_the_size_divides():
    # RoI of 4x4 cells in 2x2 bins: [0, 2) and [2, 4); the spike at (2, 2) is in bin (1, 1) only
    out = roi_pool(_spike(2, 2), [_box(0, 0, 3, 3)], output_size=(2, 2), spatial_scale=1.0)
    assert out[0, 0].tolist() == [[0.0, 0.0], [0.0, 1.0]]

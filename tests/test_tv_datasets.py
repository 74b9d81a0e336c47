"""torchvision.datasets: no bundled data, download on request.

Notes: 001_eaed12e493b64ab2.txt › 二、Torchvision › torchvision.datasets (the package holds
no data files; `MNIST(root='./data', train=True, transform=None, target_transform=None,
download=True)` fetches the data into root and loads it).

The spec runs offline: the download itself needs the network and is reported not-run;
what the dataset class does without data is checked here with an empty tmp_path root.
"""
import inspect
import pathlib

import pytest

from fixtures.needs import loads

# torchvision imported only where it loads with this torch; else every test here reads not-run
# with the import's error (fixtures/needs.py)
if loads("torchvision"):
    import torchvision
    from torchvision import datasets

pytestmark = pytest.mark.needs(libs=["torchvision"])

NOT_FOUND = "Dataset not found. You can use download=True to download it"


@pytest.mark.claim("tv.datasets-download")
@pytest.mark.needs(network=True)
def test_mnist_download_true_fetches_the_data_into_root_and_loads_it(tmp_path):
    mnist = datasets.MNIST(root=str(tmp_path), train=True, transform=None, target_transform=None, download=True)
    assert len(mnist) == 60_000
    image, label = mnist[0]
    assert image.size == (28, 28) and 0 <= label <= 9
    assert any((tmp_path / "MNIST" / "raw").iterdir()), "nothing was written under root"


@pytest.mark.claim("tv.datasets-no-bundled-data")
def test_mnist_signature_defaults_do_not_download():
    params = inspect.signature(datasets.MNIST.__init__).parameters
    defaults = {name: params[name].default for name in ("train", "transform", "target_transform", "download")}
    assert defaults == {"train": True, "transform": None, "target_transform": None, "download": False}, defaults


@pytest.mark.claim("tv.datasets-no-bundled-data")
@pytest.mark.parametrize("download", [pytest.param({}, id="download-default"),
                                      pytest.param({"download": False}, id="download=False")])
def test_mnist_without_local_files_raises_instead_of_loading(tmp_path, download):
    with pytest.raises(RuntimeError, match=NOT_FOUND):
        datasets.MNIST(root=str(tmp_path), train=True, **download)
    assert list(tmp_path.iterdir()) == [], "a dataset without download=True wrote under root"


@pytest.mark.claim("tv.datasets-no-bundled-data")
def test_the_installed_package_holds_none_of_the_mnist_files():
    package = pathlib.Path(torchvision.__file__).parent
    names = {name for name, _md5 in datasets.MNIST.resources}  # e.g. train-images-idx3-ubyte.gz
    stems = {n.removesuffix(".gz") for n in names}
    shipped = [p for p in package.rglob("*") if p.name in names | stems]
    assert shipped == [], f"data files inside the torchvision package: {shipped}"

"""The torch environments of tox.ini and the release each promises, for the meta tests that read
the project rather than run it: `tox_torch_envs`, `tox_torch_releases` (from harness/releases.py,
which reads the one list of releases) and TOX_INI."""
from harness.releases import tox_torch_envs, tox_torch_releases
from spec_runner import ROOT

TOX_INI = ROOT / "tox.ini"

__all__ = ["TOX_INI", "tox_torch_envs", "tox_torch_releases"]

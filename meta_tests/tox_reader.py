"""The torch environments of tox.ini and the release each promises, for the meta tests that read
the project rather than run it: `tox_torch_envs`, `tox_torch_releases` and TOX_INI, all from
harness/releases.py, which reads the one list of releases."""
from harness.releases import TOX_INI, tox_torch_envs, tox_torch_releases

__all__ = ["TOX_INI", "tox_torch_envs", "tox_torch_releases"]

"""A torch/torchvision pair that fails to load: the claims that need torchvision read not-run, with
the import's error, never failed, and the rest of their files still runs.

The world: torchvision is installed (its files, its version) but importing it raises what a
torchvision built for another torch raises ("operator torchvision::nms does not exist", the error
PyPI's torchvision gives beside a CPU-only build of the same torch). Without the guard
(fixtures/needs.py `loads`, and the `needs(libs=["torchvision"])` marks) the spec's torchvision
modules fail to collect and the run writes no report at all.
"""
from __future__ import annotations

from pipeline.harness_worlds.torchvision_fails_to_load import ERROR
from spec_runner import claim_args

REASON = f"needs torchvision that loads with this torch (installed, fails to load: RuntimeError: {ERROR})"


def test_claims_that_need_torchvision_read_not_run_with_the_import_error_where_it_fails_to_load(run_spec):
    ids = ("tv.roi-pool-n5", "tv.resize-int", "dtype.to-tensor-func", "dtype.pil-from-tensor")
    run = run_spec(*claim_args(*ids), world="pipeline.harness_worlds.torchvision_fails_to_load")
    assert run.report is not None, f"no claims report: the run stopped (exit {run.returncode}):\n{run.output[-3000:]}"
    assert run.returncode == 0, f"exit {run.returncode}, expected 0 (nothing failed):\n{run.output[-3000:]}"
    for cid in ids[:3]:
        claim = run.claim(cid)
        assert (claim["verdict"], claim["reason"]) == ("not-run", REASON), (
            f"{cid}: got {claim['verdict']!r} ({claim['reason']!r}), expected not-run ({REASON!r})")
    # the by-hand PIL/numpy recipe of the same file needs no torchvision and is still decided
    assert run.verdict("dtype.pil-from-tensor") == "partly", run.claim("dtype.pil-from-tensor")


def test_the_same_claims_are_decided_where_torchvision_loads(run_spec):
    """The control: with the real torchvision nothing reads not-run for that reason."""
    ids = ("tv.roi-pool-n5", "dtype.to-tensor-func")
    run = run_spec(*claim_args(*ids))
    assert run.returncode == 0, run.output[-3000:]
    assert {cid: run.verdict(cid) for cid in ids} == {"tv.roi-pool-n5": "holds", "dtype.to-tensor-func": "partly"}

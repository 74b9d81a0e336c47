"""The serial CPU benchmark step collects one file, tests/test_benchmarks_cpu.py (collecting the
whole suite to run two tests cost a second start-up's worth of time): every CPU benchmark must
live there, and every command that runs the step names it."""
import os

import fork_server
from spec_runner import ROOT

STEP_FILE = "tests/test_benchmarks_cpu.py"
STEP = f'{STEP_FILE} -m "cpu and benchmark" -p no:xdist'


def test_every_cpu_benchmark_lives_in_the_file_the_benchmark_step_collects(tmp_path):
    proc = fork_server.run_pytest(["--collect-only", "-q", "-m", "cpu and benchmark", "-p", "no:xdist",
                                   "-p", "no:cacheprovider", f"--claims-report={tmp_path / 'c.json'}"],
                                  cwd=ROOT, env=dict(os.environ), timeout=120, scratch=tmp_path)
    ids = [line for line in proc.stdout.splitlines() if "::" in line]
    assert ids, f"no CPU benchmark collected:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}"
    outside = [i for i in ids if not i.startswith(STEP_FILE + "::")]
    assert not outside, f"CPU benchmarks outside {STEP_FILE}, which the benchmark step never collects: {outside}"


def test_every_command_that_runs_the_benchmark_step_names_its_file():
    for path in ("README.md", ".ci/run", ".ci/gpu", "tox.ini"):
        text = (ROOT / path).read_text(encoding="utf-8")
        assert "cpu and benchmark" in text, f"{path} runs no CPU benchmark step"
        for line in text.splitlines():
            if '-m "cpu and benchmark"' in line and "pytest" in line:
                assert STEP in line, f"{path}: the benchmark step without its file: {line.strip()}"

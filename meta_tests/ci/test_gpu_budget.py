""".ci/gpu fits one command of a lent GPU machine: its preflight and step limits add up to at most
BUDGET_S, every step that runs GPU tests passes a per-test timeout below the moment its pytest gets
SIGINT, and a step's pytest gets SIGINT (then, after the grace, SIGKILL) so that it still writes
the evidence of the tests that finished."""
import re
import subprocess

from spec_runner import ROOT

SCRIPT = ROOT / ".ci" / "gpu"
# a lent GPU machine runs one command for at most 600 s; 60 s of it are left for the machine's own
# start of the command and the copy of the results
BUDGET_S = 540

STEP = re.compile(r"^step (?P<name>[a-z-]+) (?P<limit>\d+) (?P<command>.*)$", re.MULTILINE)
SETTING = re.compile(r"^(?P<key>BUDGET_S|GRACE_S|PREFLIGHT_S)=(?P<value>\d+)$", re.MULTILINE)
TEST_TIMEOUT = re.compile(r"-o gpu_test_timeout=(\d+)")


def settings(text: str) -> dict:
    return {m["key"]: int(m["value"]) for m in SETTING.finditer(text)}


def steps(text: str) -> list[dict]:
    return [{"name": m["name"], "limit": int(m["limit"]), "command": m["command"]} for m in STEP.finditer(text)]


def runs_gpu_tests(command: str) -> bool:
    """The step's -m expression selects GPU tests (-m gpu, -m "gpu and benchmark")."""
    return bool(re.search(r"""-m ("[^"]*\bgpu\b[^"]*"|gpu\b)""", command))


def budget_problems(text: str) -> list[str]:
    """What in .ci/gpu's text breaks the budget; empty when it fits."""
    s = settings(text)
    problems = [f"{key} is not set" for key in ("BUDGET_S", "GRACE_S", "PREFLIGHT_S") if key not in s]
    if problems:
        return problems
    if s["BUDGET_S"] > BUDGET_S:
        problems.append(f"the script's own budget {s['BUDGET_S']} s exceeds the {BUDGET_S} s of one command")
    found = steps(text)
    if not found:
        return problems + ["no step found"]
    total = s["PREFLIGHT_S"] + sum(st["limit"] for st in found)
    if total > BUDGET_S:
        listed = ", ".join(f"{st['name']} {st['limit']}" for st in found)
        problems.append(f"preflight {s['PREFLIGHT_S']} + steps ({listed}) = {total} s > budget {BUDGET_S} s")
    for st in found:
        interrupt_at = st["limit"] - s["GRACE_S"]
        if interrupt_at <= 0:
            problems.append(f"step {st['name']}: limit {st['limit']} s leaves nothing before the "
                            f"{s['GRACE_S']} s grace")
        if not runs_gpu_tests(st["command"]):
            continue
        timeouts = TEST_TIMEOUT.findall(st["command"])
        if not timeouts:
            problems.append(f"step {st['name']} runs GPU tests without -o gpu_test_timeout=... "
                            f"(pytest.ini's default would outlast the step)")
        elif not 0 < int(timeouts[-1]) < interrupt_at:
            problems.append(f"step {st['name']}: gpu_test_timeout={timeouts[-1]} s is not below its SIGINT at "
                            f"{interrupt_at} s (limit {st['limit']} - grace {s['GRACE_S']})")
    return problems


def test_the_gpu_script_fits_one_command_of_a_lent_machine():
    text = SCRIPT.read_text(encoding="utf-8")
    assert steps(text), "no `step NAME LIMIT ...` line found in .ci/gpu"
    assert {"gpu", "gpu-benchmarks"} <= {st["name"] for st in steps(text)}
    assert budget_problems(text) == []


def test_the_budget_check_goes_red_when_a_limit_grows_or_a_test_timeout_outlasts_its_step():
    text = SCRIPT.read_text(encoding="utf-8")
    grown = STEP.sub(lambda m: m[0].replace(f" {m['limit']} ", f" {int(m['limit']) + 200} ", 1)
                     if m["name"] == "gpu" else m[0], text)
    assert any("> budget" in p for p in budget_problems(grown)), budget_problems(grown)
    long_test = TEST_TIMEOUT.sub("-o gpu_test_timeout=900", text)
    assert any("is not below its SIGINT" in p for p in budget_problems(long_test)), budget_problems(long_test)
    no_test = TEST_TIMEOUT.sub("", text)
    assert any("without -o gpu_test_timeout" in p for p in budget_problems(no_test)), budget_problems(no_test)


def test_the_script_refuses_to_start_past_its_budget(tmp_path):
    text = SCRIPT.read_text(encoding="utf-8")
    grown = STEP.sub(lambda m: m[0].replace(f" {m['limit']} ", " 600 ", 1) if m["name"] == "gpu" else m[0], text)
    script = tmp_path / ".ci" / "gpu"
    script.parent.mkdir()
    script.write_text(grown, encoding="utf-8")
    proc = subprocess.run(["bash", str(script), str(tmp_path / "out")], capture_output=True, text=True, timeout=60,
                          env={"PATH": "/usr/bin:/bin", "PY": "false"})
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert "over the budget" in proc.stderr, proc.stderr
    assert not (tmp_path / "out" / "preflight.txt").exists(), "the preflight ran although the budget was exceeded"


# a stand-in pytest that writes its report on Ctrl-C (bash: it is ready in milliseconds, even on a
# loaded machine); the trap ends its sleep, which would otherwise hold the log pipe open
STAND_IN = """trap 'kill $!; echo interrupted: writing the report; sleep 0.5; echo report written; exit 2' INT
sleep 60 &
wait
"""


def test_a_step_past_its_limit_gets_sigint_first_and_keeps_what_it_writes(tmp_path):
    """The script's own step() around a stand-in pytest that writes its report on Ctrl-C."""
    text = SCRIPT.read_text(encoding="utf-8")
    body = re.search(r"^step\(\) \{.*?^\}$", text, re.MULTILINE | re.DOTALL)
    assert body, "no step() function in .ci/gpu"
    stand_in = tmp_path / "stand-in.sh"
    stand_in.write_text(STAND_IN, encoding="utf-8")
    driver = (f"GRACE_S=3\nOUT={tmp_path}\nfailed=0\n{body[0]}\n"
              f"step stand-in 8 bash {stand_in}\necho failed=$failed\n")
    proc = subprocess.run(["bash", "-c", driver], capture_output=True, text=True, timeout=30)
    log = (tmp_path / "log-stand-in.txt").read_text()
    assert "report written" in log, f"the step was not interrupted with time to write:\n{log}\n{proc.stderr}"
    assert "exit status 124" in log, log
    assert "failed=1" in proc.stdout, proc.stdout

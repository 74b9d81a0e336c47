"""TorchScript: script vs trace, save/load, the notes' nested example, deprecation.

Notes: 000_03e1e7bc9bbd04f1.txt › 3. torch.jit.script; 004_79576bb56bce5aea.txt › load and save
(scripted.save / torch.jit.load) and › torchscript (trace vs script, the nested
MyDecisionGate / MyCell / MyRNNLoop / WrapRNN example).

The notes' snippets run as written from files under tmp_path (TorchScript compiles from
source files, so exec() of a string cannot script a class).
"""
import importlib.util
import re
import runpy
import sys
import warnings
import zipfile

import pytest
import torch
from torch import nn
from torch.testing import assert_close

from fixtures.boundaries import JIT_DEPRECATION_FUTUREWARNING_SINCE, JIT_DEPRECATION_WARNING_SINCE
from fixtures.versions import torch_at_least

pytestmark = [
    pytest.mark.filterwarnings(r"ignore:`torch\.jit\.:DeprecationWarning"),
    pytest.mark.filterwarnings(r"ignore:`torch\.jit\.:FutureWarning"),
]

# 004 › load and save, as written
LOAD_AND_SAVE_SNIPPET = '''
import torch
class MyModule(torch.nn.Module):
    def __init__(self):
        super(MyModule, self).__init__()
        self.linear = torch.nn.Linear(3, 3)
    def forward(self, x):
        return self.linear(x)
my_model = MyModule()
torch.save(my_model.state_dict(), "xxx.pth")  # save
my_model.load_state_dict(torch.load("xxx.pth"))  # load

# torchscript
scripted = torch.jit.script(my_model)
scripted.save("yy.pt")
torch.jit.load('yy.pt')
'''

# 004 › torchscript, the nested example, as written
NESTED_SNIPPET = '''
import torch
class MyDecisionGate(torch.nn.Module):
    def forward(self, x):
        return x if x.sum() > 0 else -x

class MyCell(torch.nn.Module):
    def __init__(self, dg):
        super(MyCell, self).__init__()
        self.dg = dg
        self.linear = torch.nn.Linear(4, 4)
    def forward(self, x, h):
        new_h = torch.tanh(self.dg(self.linear(x)) + h)
        return new_h, new_h

x, h = torch.rand(3, 4), torch.rand(3, 4)
# scripted_gate = torch.jit.trace(MyDecisionGate(), x)
scripted_gate = torch.jit.script(MyDecisionGate())
class MyRNNLoop(torch.nn.Module):
    def __init__(self):
        super(MyRNNLoop, self).__init__()
        self.cell = torch.jit.trace(MyCell(scripted_gate), (x, h))
    def forward(self, xs):
        h, y = torch.zeros(3, 4), torch.zeros(3, 4)
        for i in range(xs.size(0)):
            y, h = self.cell(xs[i], h)
        return y, h
rnn_loop = torch.jit.script(MyRNNLoop())
print(rnn_loop.code)
print(rnn_loop.cell.dg.code)

class WrapRNN(torch.nn.Module):
    def __init__(self):
        super(WrapRNN, self).__init__()
        self.loop = torch.jit.script(MyRNNLoop())

    def forward(self, xs):
        y, h = self.loop(xs)
        return torch.relu(y)

traced = torch.jit.trace(WrapRNN(), (torch.rand(10, 3, 4)))
print(traced.code)
print(traced.loop.cell.dg.code)

traced.save('wrapped_rnn.pt')
loaded = torch.jit.load('wrapped_rnn.pt')
'''


def run_snippet(source, name, tmp_path, monkeypatch):
    """Run a note snippet as a file in tmp_path (its relative paths land there); its globals."""
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    monkeypatch.chdir(tmp_path)
    return runpy.run_path(str(path), run_name=name)


def has_statement(code, keyword):
    """Whether TorchScript code has an `if`/`for` statement (not just the letters in `forward`)."""
    return re.search(rf"^\s*{keyword}\b", code, re.M) is not None


class Gate(nn.Module):
    """The notes' decision gate: a data-dependent branch."""

    def forward(self, x):
        return x if x.sum() > 0 else -x


class RowSum(nn.Module):
    """A loop whose trip count depends on the input's length."""

    def forward(self, x):
        acc = torch.zeros_like(x[0])
        for i in range(x.size(0)):
            acc = acc + x[i]
        return acc


class Cell(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 4)

    def forward(self, x, h):
        new_h = torch.tanh(self.linear(x) + h)
        return new_h, new_h


# --- script: a program of its own ---------------------------------------------------

USER_MODEL = '''
import torch
class Gate(torch.nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x * 2
        return -x
'''


@pytest.mark.claim("jit.script-standalone", decides="holds")
def test_scripted_module_runs_after_its_python_source_is_gone(tmp_path, monkeypatch):
    name = "user_gate_model"
    source = tmp_path / f"{name}.py"
    source.write_text(USER_MODEL)
    spec = importlib.util.spec_from_file_location(name, source)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, name, module)
    spec.loader.exec_module(module)
    scripted = torch.jit.script(module.Gate())
    scripted.save(str(tmp_path / "gate.pt"))
    pos, neg = torch.tensor([1.0, 2.0]), torch.tensor([-1.0, -2.0])

    # the Python class disappears: no module, no source file
    monkeypatch.delitem(sys.modules, name)
    source.unlink()
    del module, scripted
    loaded = torch.jit.load(str(tmp_path / "gate.pt"))
    assert type(loaded) is torch.jit.RecursiveScriptModule and loaded.original_name == "Gate"
    assert torch.equal(loaded(pos), pos * 2) and torch.equal(loaded(neg), -neg)
    assert has_statement(loaded.code, "if")
    # what it runs is the TorchScript code stored in the archive
    with zipfile.ZipFile(tmp_path / "gate.pt") as archive:
        assert any(n.endswith(f"code/__torch__/{name}.py") for n in archive.namelist()), archive.namelist()


# --- deprecation scope: every claim of this file makes the deprecated calls --------------------

PYTHON_DEFAULT_FILTERS = [("default", DeprecationWarning, "__main__"), ("ignore", DeprecationWarning, ""),
                          ("ignore", PendingDeprecationWarning, ""), ("ignore", ImportWarning, ""),
                          ("ignore", ResourceWarning, "")]  # Python's own filters, outside -X dev and -W


def torchscript_warnings_of_the_nested_example(tmp_path, monkeypatch, filters):
    """Run the note's nested example as __main__ under `filters` (None: show every warning); the
    torch.jit warnings that were shown, and whether a DeprecationWarning of __main__ itself was."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.resetwarnings()
        for action, category, module in filters or [("always", Warning, "")]:
            warnings.filterwarnings(action, category=category, module=module, append=True)
        run_snippet(NESTED_SNIPPET + 'import warnings\nwarnings.warn("from __main__", DeprecationWarning)\n',
                    "__main__", tmp_path, monkeypatch)
    control = any(str(w.message) == "from __main__" for w in caught)
    return [w for w in caught if str(w.message).startswith("`torch.jit.")], control


@pytest.mark.claim("jit.script-standalone", "jit.script-save-load", "jit.trace-control-flow",
                   "jit.trace-script-usage", "jit.nested-example", "jit.nested-preserves-control-flow",
                   "jit.script-not-superset-of-trace", "jit.script-trace-not-deprecated",
                   "jit.cpp-import-needs-torchscript", decides="left-out")
@pytest.mark.needs(min_torch=JIT_DEPRECATION_WARNING_SINCE)
def test_the_notes_script_trace_and_load_calls_warn_and_the_warning_names_torch_not_the_caller(
        tmp_path, monkeypatch, capsys):
    future = torch_at_least(JIT_DEPRECATION_FUTUREWARNING_SINCE)
    expected = FutureWarning if future else DeprecationWarning
    every, _ = torchscript_warnings_of_the_nested_example(tmp_path, monkeypatch, None)
    for api in ("script", "trace", "load"):
        hits = [w for w in every if str(w.message).startswith(f"`torch.jit.{api}`")]
        assert hits, f"torch.jit.{api} gave no warning; got {[str(w.message) for w in every]}"
        assert {w.category for w in hits} == {expected}, (api, {w.category for w in hits})
        # no stacklevel: the warning is attributed to torch's own file, not to the note's code
        assert all("/torch/jit/" in w.filename.replace("\\", "/") for w in hits), (api, {w.filename for w in hits})
        assert any(m in str(hits[0].message) for m in ("is deprecated", "is not supported in Python 3.14+")), hits[0]
    shown, control = torchscript_warnings_of_the_nested_example(tmp_path, monkeypatch, PYTHON_DEFAULT_FILTERS)
    capsys.readouterr()
    assert control, "Python's default filters show a DeprecationWarning raised in __main__ itself"
    if future:
        assert {str(w.message).split("`")[1] for w in shown} >= {"torch.jit.script", "torch.jit.trace",
                                                                  "torch.jit.load"}, [str(w.message) for w in shown]
    else:
        assert shown == [], f"shown under Python's default filters: {[str(w.message) for w in shown]}"

@pytest.mark.claim("jit.script-save-load", "serial.state-dict-roundtrip", decides="holds")
def test_note_load_and_save_snippet_round_trips(tmp_path, monkeypatch):
    ns = run_snippet(LOAD_AND_SAVE_SNIPPET, "note_load_and_save", tmp_path, monkeypatch)
    assert (tmp_path / "xxx.pth").is_file() and (tmp_path / "yy.pt").is_file()
    loaded = torch.jit.load(str(tmp_path / "yy.pt"))
    my_model = ns["my_model"]
    x = torch.randn(4, 3)
    assert torch.equal(loaded(x), my_model(x))
    assert torch.equal(loaded(x), ns["scripted"](x))
    for key, value in my_model.state_dict().items():
        assert torch.equal(loaded.state_dict()[key], value), key


# --- trace vs script ----------------------------------------------------------------


@pytest.mark.claim("jit.trace-control-flow", decides="holds")
def test_trace_freezes_the_branch_the_example_took_and_script_keeps_the_if():
    with pytest.warns(torch.jit.TracerWarning, match="might cause the trace to be incorrect"):
        traced = torch.jit.trace(Gate(), torch.ones(3))
    scripted = torch.jit.script(Gate())
    other_branch = torch.tensor([-1.0, -2.0, 0.5])  # sum < 0: the original negates
    assert torch.equal(Gate()(other_branch), -other_branch)
    assert torch.equal(scripted(other_branch), -other_branch)
    assert torch.equal(traced(other_branch), other_branch), "the trace kept the 'x' branch"
    assert has_statement(scripted.code, "if") and not has_statement(traced.code, "if")


@pytest.mark.claim("jit.trace-control-flow", decides="holds")
def test_trace_unrolls_a_loop_to_the_example_length_and_script_keeps_it():
    traced = torch.jit.trace(RowSum(), torch.ones(3, 2))
    scripted = torch.jit.script(RowSum())
    x = torch.arange(10.0).reshape(5, 2)
    assert torch.equal(RowSum()(x), x.sum(0))
    assert torch.equal(scripted(x), x.sum(0))
    assert torch.equal(traced(x), x[:3].sum(0)), "the trace summed the example's 3 rows only"
    assert has_statement(scripted.code, "for") and not has_statement(traced.code, "for")


@pytest.mark.claim("jit.trace-script-usage", decides="holds")
def test_traced_and_scripted_modules_are_called_like_the_original():
    my_model = Cell()
    x, h = torch.rand(3, 4), torch.rand(3, 4)
    traced_model = torch.jit.trace(my_model, (x, h))
    scripted_model = torch.jit.script(my_model)
    another = (torch.randn(5, 4), torch.randn(5, 4))  # another batch size too
    want = my_model(*another)
    for converted in (traced_model, scripted_model):
        assert isinstance(converted, nn.Module) and isinstance(converted, torch.jit.ScriptModule)
        got = converted(*another)
        assert isinstance(got, tuple) and len(got) == 2
        assert_close(got, want)


# --- the nested example -------------------------------------------------------------


@pytest.mark.claim("jit.nested-example", decides="holds")
def test_nested_example_runs_prints_code_and_reloads(tmp_path, monkeypatch, capsys):
    ns = run_snippet(NESTED_SNIPPET, "note_nested_example", tmp_path, monkeypatch)
    printed = capsys.readouterr().out
    assert printed.count("def forward(self") == 4, printed
    assert (tmp_path / "wrapped_rnn.pt").is_file()
    traced, loaded = ns["traced"], ns["loaded"]
    for steps in (10, 4):
        xs = torch.rand(steps, 3, 4)
        assert_close(loaded(xs), traced(xs))


def manual_wrap_rnn(xs, linear):
    """WrapRNN by hand with the traced module's own weights; also which branches the gate took."""
    w, b = linear.weight.detach(), linear.bias.detach()
    h, branches = torch.zeros(3, 4), []
    for x in xs:
        z = x @ w.T + b
        branches.append(bool(z.sum() > 0))
        h = torch.tanh((z if branches[-1] else -z) + h)
    return torch.relu(h), branches


@pytest.mark.claim("jit.nested-preserves-control-flow", decides="holds")
def test_traced_wraprnn_keeps_the_loop_and_the_gate_branch(tmp_path, monkeypatch, capsys):
    ns = run_snippet(NESTED_SNIPPET, "note_nested_example", tmp_path, monkeypatch)
    printed = capsys.readouterr().out
    traced = ns["traced"]
    # the printed code: WrapRNN calls the scripted loop once (no ten unrolled cell calls),
    # the loop keeps its for, and the gate keeps its if
    assert re.search(r"\bloop\b", traced.code) and "cell" not in traced.code
    assert not has_statement(traced.code, "for")
    assert has_statement(traced.loop.code, "for")
    assert has_statement(traced.loop.cell.dg.code, "if")
    assert has_statement(printed, "for") and has_statement(printed, "if")

    # behaviour: 4 steps (traced with 10), with inputs that drive the gate down both branches
    linear = traced.loop.cell.linear
    u = linear.weight.detach().sum(0)  # x = c*u makes sum(linear(x)) = 3*(c*|u|^2 + sum(b))
    c = 2 * (linear.bias.detach().sum().abs() + 1) / u.dot(u)
    xs = torch.stack([sign * c * u.expand(3, 4) for sign in (1.0, -1.0, 1.0, -1.0)])
    want, branches = manual_wrap_rnn(xs, linear)
    assert branches == [True, False, True, False]
    assert_close(traced(xs), want)


# --- deprecation (added claim) -------------------------------------------------------


def jit_warnings(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [w for w in caught if str(w.message).startswith("`torch.jit.")]


@pytest.mark.claim("jit.script-trace-not-deprecated", half="holding")
@pytest.mark.parametrize("api", ["script", "trace"])
def test_script_and_trace_turn_a_model_into_torchscript_that_saves_and_loads(api, tmp_path):
    cell, x, h = Cell(), torch.rand(3, 4), torch.rand(3, 4)
    converted = torch.jit.script(cell) if api == "script" else torch.jit.trace(cell, (x, h))
    assert isinstance(converted, torch.jit.ScriptModule), type(converted)
    converted.save(str(tmp_path / "cell.pt"))
    loaded = torch.jit.load(str(tmp_path / "cell.pt"))
    assert_close(loaded(x, h), cell(x, h))


@pytest.mark.claim("jit.script-trace-not-deprecated", half="failing")
@pytest.mark.needs(min_torch=JIT_DEPRECATION_WARNING_SINCE)
@pytest.mark.parametrize("api", ["script", "trace"])
def test_script_and_trace_warn_that_torchscript_is_deprecated(api):
    call = (lambda: torch.jit.script(Cell())) if api == "script" else (
        lambda: torch.jit.trace(Cell(), (torch.rand(3, 4), torch.rand(3, 4))))
    expected = FutureWarning if torch_at_least(JIT_DEPRECATION_FUTUREWARNING_SINCE) else DeprecationWarning
    caught = [w for w in jit_warnings(call) if str(w.message).startswith(f"`torch.jit.{api}`")]
    assert caught, f"torch.jit.{api} gave no deprecation warning"
    # every call warns, not only the first one (the warning filters decide what is shown)
    twice = [w for w in jit_warnings(lambda: (call(), call())) if str(w.message).startswith(f"`torch.jit.{api}`")]
    assert len(twice) == 2 * len(caught), f"two calls gave {len(twice)} warnings, one call {len(caught)}"
    message = str(caught[0].message)
    assert "is deprecated" in message or "is not supported in Python 3.14+" in message, message
    assert "`torch.compile` or `torch.export`" in message, message
    assert caught[0].category is expected, caught[0].category


@pytest.mark.claim("jit.script-trace-not-deprecated", half="holding")
@pytest.mark.needs(max_torch=JIT_DEPRECATION_WARNING_SINCE)
def test_before_2_10_script_and_trace_run_without_a_deprecation_warning():
    def both():
        torch.jit.script(Cell())
        torch.jit.trace(Cell(), (torch.rand(3, 4), torch.rand(3, 4)))

    assert [str(w.message) for w in jit_warnings(both)] == []


# --- jit.script-not-superset-of-trace (added claim) ----------------------------------------


class Sum(nn.Module):
    """Sums however many tensors it is given: plain Python that tracing records and scripting rejects."""

    def forward(self, *xs):
        return sum(xs)


@pytest.mark.claim("jit.script-not-superset-of-trace", decides="holds")
def test_a_module_that_traces_need_not_script():
    x, y = torch.rand(2, 3), torch.rand(2, 3)
    traced = torch.jit.trace(Sum(), (x, y))
    assert_close(traced(x, y), x + y)
    with pytest.raises(torch.jit.frontend.NotSupportedError, match="variable number of arguments"):
        torch.jit.script(Sum())


# --- jit.cpp-import-needs-torchscript (added claim) ----------------------------------------


@pytest.mark.claim("jit.cpp-import-needs-torchscript", decides="holds")
def test_libtorchs_loader_reads_a_torchscript_archive_and_refuses_a_torch_save_file(tmp_path):
    model = Cell()
    x, h = torch.rand(3, 4), torch.rand(3, 4)
    torch.jit.script(model).save(str(tmp_path / "scripted.pt"))
    torch.save(model, tmp_path / "pickled_module.pt")
    torch.save(model.state_dict(), tmp_path / "state_dict.pt")
    # torch.jit.load hands the file to libtorch's torch::jit::load, the loader a C++ program calls
    assert_close(torch.jit.load(str(tmp_path / "scripted.pt"))(x, h), model(x, h))
    for name in ("pickled_module.pt", "state_dict.pt"):
        with pytest.raises(RuntimeError, match=r"constants\.pkl"):
            torch.jit.load(str(tmp_path / name))

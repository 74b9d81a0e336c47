"""A Python that reads the notes' printed code as the author meant it: compile() takes typographic
quotes as ASCII ones, `X1[:. None, :]` as `X1[:, None, :]` and `torchvision.transforms/functional`
as `torchvision.transforms.functional` (only in those lines of the notes).

Makes the note right about tensor.named-example-quotes, tensor.pairwise-dist-snippet and
dtype.to-tensor-slash-typo, which are refuted (runnable code read literally): their wrong tests go red.
"""
import builtins

_compile = builtins.compile

# (what the note printed, what it meant)
READINGS = [("\u2018", "'"), ("\u2019", "'"), ("[:. None", "[:, None"),
            ("transforms/functional", "transforms.functional")]


def compile(source, *args, **kwargs):
    if isinstance(source, str) and "\n" not in source.strip() and any(p in source for p, _ in READINGS):
        for printed, meant in READINGS:
            source = source.replace(printed, meant)
    return _compile(source, *args, **kwargs)


def apply():
    builtins.compile = compile

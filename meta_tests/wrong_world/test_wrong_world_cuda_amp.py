"""Wrong-world checks for CPU-runnable cuda / cudnn / amp claims.

Each run patches torch into a world where a claim's stated behaviour differs and asserts that
the claim's tests go red there, for the reason their assertions give.
"""
from spec_runner import assert_goes_red, claim_args
from worlds import autocast_left_in_float32

# Flag defaults flipped: benchmark on, TF32 on for matmul (the pre-1.12 default), off for cuDNN.
FLIPPED_DEFAULTS = """
import torch

torch.backends.cudnn.benchmark = True
torch.backends.cuda.matmul.allow_tf32 = not torch.backends.cuda.matmul.allow_tf32
torch.backends.cudnn.allow_tf32 = False
"""

# CPU autocast that silently stays in float32, and a device parser that takes 'cuda:1,2' as 'cuda:1'.
NO_CPU_AUTOCAST_LENIENT_DEVICE = autocast_left_in_float32("cpu") + """
import torch

_Device = torch.device


class _LenientDeviceType(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, _Device)

    def __call__(cls, *args, **kwargs):
        if args and isinstance(args[0], str) and "," in args[0]:
            args = (args[0].split(",")[0],) + args[1:]
        return _Device(*args, **kwargs)


class device(metaclass=_LenientDeviceType):
    pass


torch.device = device
"""


def test_flipped_flag_defaults_turn_the_cudnn_default_claims_red(run_spec):
    ids = ["cudnn.benchmark-default", "cudnn.tf32-matmul-default", "cudnn.tf32-cudnn-default"]
    run = run_spec(*claim_args(*ids), "-m", "cpu", patch=FLIPPED_DEFAULTS)
    assert_goes_red(run, "cudnn.benchmark-default", "expected the default False")
    assert_goes_red(run, "cudnn.tf32-matmul-default", "matmul.allow_tf32 defaults to True")
    assert_goes_red(run, "cudnn.tf32-cudnn-default", "expected the default True")


def test_cpu_autocast_left_in_float32_and_a_lenient_device_parser_turn_claims_red(run_spec):
    run = run_spec("--claim", "amp.gpu-only", "--claim", "cuda.device-string-multi", "-m", "cpu",
                   patch=NO_CPU_AUTOCAST_LENIENT_DEVICE)
    assert_goes_red(run, "amp.gpu-only", "CPU autocast left the linear layer in torch.float32")
    assert_goes_red(run, "cuda.device-string-multi", "DID NOT RAISE")

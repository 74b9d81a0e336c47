"""A spec run that gets stuck, for the fork server's timeout: as the run loads its plugins, before
any test, it starts a process of its own (its pid written to the file STUCK_RUN_PID_FILE names),
and torch.manual_seed, which the suite calls before every test, sleeps for ten minutes. Read by
pipeline/test_fork_server.py."""
import os
import pathlib
import subprocess
import sys
import time

PID_FILE_VAR = "STUCK_RUN_PID_FILE"


def manual_seed(seed):
    time.sleep(600)


def apply():
    import torch  # here, not at the top: test_fork_server.py imports this module for PID_FILE_VAR

    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    pathlib.Path(os.environ[PID_FILE_VAR]).write_text(str(child.pid))
    torch.manual_seed = manual_seed

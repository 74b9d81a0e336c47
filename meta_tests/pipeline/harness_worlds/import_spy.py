"""A spec run that records what threads other than the main one do to sys.modules and to logging's
logger dict (a module imported, a logger created), in the file IMPORT_SPY_OUT names, and that lets
the background thread run before each test. Read by pipeline/test_race.py."""
import logging
import os
import sys
import threading
import time

import pytest

OUT_VAR = "IMPORT_SPY_OUT"

_tried = []  # (thread, module) imports started outside the main thread
_get_logger = logging.Manager.getLogger


def note(what):
    if threading.current_thread() is not threading.main_thread():
        with open(os.environ[OUT_VAR], "a") as fh:
            fh.write(f"{threading.current_thread().name}: {what}\n")


class Imports:
    def find_spec(self, name, path=None, target=None):
        if name not in sys.modules and threading.current_thread() is not threading.main_thread():
            _tried.append((threading.current_thread().name, name))
        return None


def get_logger(self, name):
    if not isinstance(self.loggerDict.get(name), logging.Logger):
        note(f"logger {name}")
    return _get_logger(self, name)


def apply():
    sys.meta_path.insert(0, Imports())
    logging.Manager.getLogger = get_logger


def pytest_unconfigure(config):
    # a failed import (an optional module that is not installed) adds nothing to sys.modules
    with open(os.environ[OUT_VAR], "a") as fh:
        for thread, name in _tried:
            if name in sys.modules:
                fh.write(f"{thread}: import {name}\n")


@pytest.hookimpl(trylast=True)
def pytest_runtest_setup(item):
    # after the fixtures: the background thread has started; it takes the launch first, as it does
    # when other tests run before the readers
    time.sleep(3)

"""Imported at start-up by every Python process a wrong-world spec run starts (world_hook.py puts
this folder on PYTHONPATH): switches on the child parts of the run's worlds."""
from wrong_world import world_hook

world_hook.install_in_child()

"""Start-up objects frozen out of the full garbage collections (in a process of its own)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import gc, time
from storage.heap import freeze_start_up_objects

warm = [[i] for i in range(300_000)]  # a warm process's long-lived objects
before = len(gc.get_objects())
start = time.perf_counter(); gc.collect(); slow = time.perf_counter() - start
frozen = freeze_start_up_objects()
after = len(gc.get_objects())
start = time.perf_counter(); gc.collect(); fast = time.perf_counter() - start
fresh = [[i] for i in range(1000)]  # made after the freeze: collected as usual
print(before, frozen, after, len(gc.get_objects()) - after, slow, fast)
"""


def test_start_up_objects_leave_the_full_collections() -> None:
    out = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout.split()
    before, frozen, after, fresh = map(int, out[:4])
    slow, fast = map(float, out[4:])
    assert before > 300_000 and frozen >= 300_000
    assert after < 1_000  # a full pass no longer walks them
    assert fresh >= 1_000  # what is made later is still tracked
    assert fast < slow  # and the pass is shorter for it

"""The bundled examples (python/examples) run as users run them, in a
fresh interpreter, and give the expected results."""

import math
import os
import pathlib
import subprocess
import sys

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"


def run_example(name, *args):
    env = os.environ.copy()
    out = subprocess.run(
        [sys.executable, str(EXAMPLES / name), *map(str, args)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_pi_dartboard_estimates_pi_the_same_way_every_run():
    first = run_example("pi.py", 100, 10)
    assert first == run_example("pi.py", 100, 10)
    lines = first.splitlines()
    assert lines[0] == "16 cores, 1000 darts each"
    estimate = float(lines[1].split()[-1])
    assert abs(estimate - math.pi) < 0.1, estimate


def host_jacobi(cores, local, sweeps):
    """The same sweeps on the host (doubles), halos exchanged by copying."""
    parts = [[0.0] * (local + 2) for _ in range(cores)]
    parts[0][0] = 1.0
    change = 0.0
    for _ in range(sweeps):
        for c in range(cores):
            if c > 0:
                parts[c][0] = parts[c - 1][local]
            if c < cores - 1:
                parts[c][local + 1] = parts[c + 1][1]
        change = 0.0
        for c in range(cores):
            new = [(parts[c][i - 1] + parts[c][i + 1]) * 0.5 for i in range(1, local + 1)]
            change += sum(abs(v - parts[c][i + 1]) for i, v in enumerate(new))
            parts[c][1 : local + 1] = new
    return [v for p in parts for v in p[1 : local + 1]], change


@pytest.mark.timeout(600)
def test_jacobi_with_device_resident_data_matches_the_host():
    sys.path.insert(0, str(EXAMPLES))
    try:
        import jacobi
    finally:
        sys.path.pop(0)
    rod, launches, change = jacobi.solve(cores=4, per_launch=10, tolerance=0.0, max_launches=3)
    want, want_change = host_jacobi(4, jacobi.LOCAL, 30)
    assert launches == 3
    assert len(rod) == 4 * jacobi.LOCAL
    for got, exp in zip(rod, want):
        assert math.isclose(got, exp, rel_tol=1e-5, abs_tol=1e-6), (rod, want)
    assert math.isclose(change, want_change, rel_tol=1e-4, abs_tol=1e-6)
    # The rod cools from the hot end: the profile decreases.
    assert all(a >= b for a, b in zip(rod, rod[1:]))

"""The PI dartboard: every core throws darts at a unit square and counts
those inside the quarter circle; the host averages the cores' estimates.

    python python/examples/pi.py [DARTS [ROUNDS [CORES]]]

It also prints the simulated time of the launch, from the host starting to
write it to the host holding every core's result (handle.profile()).
"""

import sys

from epython import offload


@offload
def dartboard(darts, rounds):
    from random import random

    hits = 0
    for _ in range(rounds):
        for _ in range(darts):
            x = random()
            y = random()
            if x * x + y * y <= 1.0:
                hits += 1
    return 4.0 * hits / (darts * rounds)


def main(argv):
    darts = int(argv[0]) if argv else 100
    rounds = int(argv[1]) if len(argv) > 1 else 10
    cores = int(argv[2]) if len(argv) > 2 else 16
    handle = dartboard(darts, rounds, target=list(range(cores)), async_=True)
    estimates = handle.wait()
    stamps = handle.profile().values()
    cycles = max(p["host_result"] for p in stamps) - min(p["host_begin"] for p in stamps)
    print(f"{len(estimates)} cores, {darts * rounds} darts each")
    print(f"pi is about {sum(estimates) / len(estimates):.6f}")
    print(f"simulated time: {cycles} cycles")


if __name__ == "__main__":
    main(sys.argv[1:])

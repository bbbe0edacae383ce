"""The PI dartboard: every core throws darts at a unit square and counts
those inside the quarter circle; the host averages the cores' estimates.

    python python/examples/pi.py [DARTS [ROUNDS]]
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
    estimates = dartboard(darts, rounds)
    print(f"{len(estimates)} cores, {darts * rounds} darts each")
    print(f"pi is about {sum(estimates) / len(estimates):.6f}")


if __name__ == "__main__":
    main(sys.argv[1:])

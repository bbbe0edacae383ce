"""A 1-D Jacobi solver with device-resident data: the rod u'' = 0 with
u = 1 at the left end and 0 at the right, split over the cores. Each core
keeps its part (and one halo value on each side) on the device between
launches, swaps halos with its neighbours over the mesh, and the host
launches sweeps until the total change is small (or a number of launches
has run), then gathers the parts.

    python python/examples/jacobi.py
"""

from epython import copy_from_device, copy_to_device, define_on_device, offload

LOCAL = 8  # interior points per core

part = [0.0] * (LOCAL + 2)
define_on_device(part)


@offload
def sweeps(count):
    from parallel import coreid, numcores, recv, reduce, send

    me = coreid()
    n = numcores()
    new = [0.0] * (LOCAL + 2)
    change = 0.0
    for _ in range(count):
        if me > 0:
            send(part[1], me - 1)
        if me < n - 1:
            send(part[LOCAL], me + 1)
        if me > 0:
            part[0] = recv(me - 1)
        if me < n - 1:
            part[LOCAL + 1] = recv(me + 1)
        change = 0.0
        for i in range(1, LOCAL + 1):
            v = (part[i - 1] + part[i + 1]) * 0.5
            change += abs(v - part[i])
            new[i] = v
        for i in range(1, LOCAL + 1):
            part[i] = new[i]
    return reduce(change, "sum")


def solve(cores=16, per_launch=20, tolerance=1e-3, max_launches=10):
    for c in range(cores):
        first = [0.0] * (LOCAL + 2)
        if c == 0:
            first[0] = 1.0  # the left end, never overwritten
        copy_to_device("part", first, target=[c])
    launches = 0
    change = None
    while launches < max_launches:
        change = sweeps(per_launch, target=list(range(cores)))[0]
        launches += 1
        if change < tolerance:
            break
    parts = copy_from_device("part", target=list(range(cores)))
    rod = [v for p in parts for v in p[1 : LOCAL + 1]]
    return rod, launches, change


def main():
    rod, launches, change = solve()
    print(f"{launches} launches of 20 sweeps, last total change {change:.3e}")
    print("u at every 16th point:", " ".join(f"{u:.3f}" for u in rod[::16]))


if __name__ == "__main__":
    main()

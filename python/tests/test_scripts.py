"""Whole scripts in fresh interpreters: determinism, the data path in a
trace, other chips, and the seed examples (with the compiler)."""

import json
import textwrap

import pytest
from conftest import needs_chip, needs_compiler, run_script

pytestmark = needs_chip

HANDMADE_SCRIPT = """
import epython
from handmade import add_module, hello_module, coreid_module

def mk(module, params, **opts):
    ns = {}
    exec(f"def {module.name}({', '.join(params)}): pass", ns)
    return epython.Kernel(ns[module.name], dict(epython._DEFAULTS, **opts), code=module)

add = mk(add_module(), ["a", "b"])
hello = mk(hello_module(), ["a", "b"])
coreid = mk(coreid_module(), [])
print(hello(10, 20))
for i in range(3):
    h = add(i, 1, target=[1, 6, 11], async_=True)
    print(h.wait(), h.profile())
print(coreid(auto=5))
print(epython.chip().cycles)
"""


def test_the_same_script_twice_gives_the_same_output_and_cycles(tmp_path):
    first = run_script(HANDMADE_SCRIPT, tmp_path)
    second = run_script(HANDMADE_SCRIPT, tmp_path)
    assert first[2] == 0, first[1]
    assert first == second
    assert "[30, 30, 30" in first[0] and "'kernel_cycles'" in first[0]


def test_other_chips_and_the_functional_mode(tmp_path):
    code = (
        HANDMADE_SCRIPT.replace(
            "import epython\n", "import epython\nepython.configure(chip='2x3', mode='functional')\n"
        )
        .replace("[1, 6, 11]", "[1, 5]")
        .replace("auto=5", "auto=6")
    )
    out, err, rc = run_script(code, tmp_path)
    assert rc == 0, err
    assert out.splitlines()[6] == "[30, 30, 30, 30, 30, 30]"
    assert out.splitlines()[-2] == "[0, 1, 2, 3, 4, 5]"
    out, err, rc = run_script(
        "import epython\nepython.configure(chip='e64')\nc = epython.chip()\n"
        "from handmade import coreid_module\n"
        "k = epython.Kernel(lambda: None, dict(epython._DEFAULTS), code=coreid_module())\n"
        "print(c.ncores, k() == list(range(64)))\n",
        tmp_path,
    )
    assert rc == 0, err
    assert out == "64 True\n"


def test_a_traced_launch_shows_the_host_writing_sram_and_the_core_storing_to_dram(tmp_path):
    trace = tmp_path / "launch.jsonl"
    code = textwrap.dedent(
        f"""
        import epython
        epython.configure(trace={str(trace)!r})
        from handmade import add_module
        if not epython._chip.Ehal  or True:
            pass
        rt = epython._rt()
        if not rt.hal.has("epsim_trace_start"):
            raise SystemExit(77)
        k = epython.Kernel(lambda a, b: None, dict(epython._DEFAULTS), code=add_module())
        print(k(1, 2, target=[5]))
        """
    )
    out, err, rc = run_script(code, tmp_path)
    if rc == 77 or "has no epsim_trace_start" in err:
        pytest.skip("this libe-hal has no epsim_trace_start yet")
    assert rc == 0, err
    assert out == "[3]\n"
    records = [json.loads(line) for line in trace.read_text().splitlines() if line.strip()]
    text = trace.read_text()
    # The host's write of the arguments and the mailbox (which ends SRAM at
    # 0x8000) into core 5's SRAM, and the core's stores of its status into
    # its entry of the DRAM status table (0x8e0ff000 + 5 * 64; protocol 2).
    status = 0x8E0FF000 + 5 * 64
    host = [r for r in records if "host" in json.dumps(r)]
    assert host, "no host access in the trace"
    assert any(
        r.get("host") == "write"
        and r.get("core") == [33, 9]
        and r.get("addr", 0) + r.get("len", 0) == 0x8000
        and r.get("len", 0) > 32
        for r in host
    ), text[:2000]
    stores = [
        r
        for r in records
        if isinstance(r.get("mem"), dict)
        and r["mem"].get("op") == "st"
        and status <= r["mem"].get("addr", 0) < status + 64
    ]
    assert stores, "no store of core 5 into its status"


SEED = """
from epython import offload, offload_single, offload_multiple, waitAll
from epython import define_on_device, copy_to_device, copy_from_device

@offload
def helloworld(a, b):
    print("Hello World")
    return a + b

print(helloworld(10, 20))
h = helloworld(10, 20, target=[9, 10], async_=True)
print(h.wait())

@offload(auto=4)
def four(a, b): return a + b

print(four(1, 2))

@offload_multiple(cores=8)
def adder(a, b): return a + b

@offload_single
def subtractor(a, b): return a - b

print(waitAll(adder(10, 20), subtractor(10, 20)))

a = [0] * 10
define_on_device(a)

@offload
def updateA(i):
    from parallel import coreid
    a[i] = i * coreid()

for i in range(10):
    updateA(i)
print(copy_from_device("a"))
copy_to_device("a", [99] * 10, target=[1, 5, 9])
h = copy_from_device("a", target=[1], async_=True)
print(h.test(), h.wait())
"""


@needs_compiler
def test_the_seed_examples(tmp_path):
    out, err, rc = run_script(SEED, tmp_path, name="seed.py")
    assert rc == 0, err
    lines = out.splitlines()
    hello = [line for line in lines if line.startswith("[device")]
    rest = [line for line in lines if not line.startswith("[device")]
    assert sorted(hello) == sorted(
        [f"[device {n}] Hello World" for n in range(16)]
        + ["[device 9] Hello World", "[device 10] Hello World"]
    )
    assert rest[0] == str([30] * 16)
    assert rest[1] == "[30, 30]"
    assert rest[2] == "[3, 3, 3, 3]"
    assert rest[3] == str([[30] * 8, [-10]])
    assert rest[4] == str([[i * n for i in range(10)] for n in range(16)])
    assert rest[5] == "True [[99, 99, 99, 99, 99, 99, 99, 99, 99, 99]]"

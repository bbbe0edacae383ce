"""Core-to-core functions of the device (`from epython import parallel`).

These names exist so that kernels can import them at module level; the
compiler turns each call into the device's builtin of the same name
(firmware/epython/isa.txt, [builtins] parallel.*). They run only on the
device: called on the host they raise RuntimeError.
"""

__all__ = ["coreid", "numcores", "send", "recv", "sendrecv", "bcast", "reduce", "sync"]


def _device_only(name):
    def f(*args, **kwargs):
        raise RuntimeError(
            f"parallel.{name}() runs only on the device: call it inside an @offload kernel"
        )

    f.__name__ = name
    f.__qualname__ = name
    f.__module__ = __name__
    return f


coreid = _device_only("coreid")
numcores = _device_only("numcores")
send = _device_only("send")
recv = _device_only("recv")
sendrecv = _device_only("sendrecv")
bcast = _device_only("bcast")
reduce = _device_only("reduce")
sync = _device_only("sync")

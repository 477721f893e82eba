"""Loaded by scripts/pypto-compat.sh only when the local torch predates 2.3 (Debian 12 ships 1.13): fills in
what newer torch has and PyPTO's example scripts use in their own CPU reference code.

PyPTO's example scripts name torch.uint16 / uint32 / uint64 (added in torch 2.3) in module-level dtype tables:
those names get placeholder objects so such tables can be built (making a tensor of one still fails in torch,
visibly). fp16 CPU operations newer torch has are filled in below. The package under test (PTO Studio's
pypto) never sees this module."""
try:
    import torch
except ImportError:
    torch = None

if torch is not None:
    class _MissingTorchDtype:
        def __init__(self, name):
            self._name = name

        def __repr__(self):
            return f"torch.{self._name} (placeholder: this torch predates it)"

    for _name in ("uint16", "uint32", "uint64"):
        if not hasattr(torch, _name):
            setattr(torch, _name, _MissingTorchDtype(_name))

    # Many fp16 CPU kernels (matmul, relu, gelu, ...) arrived in torch 2.x. A script computing its own fp16
    # reference on the CPU gets such a call computed in fp32 and rounded once to fp16, which is what newer
    # torch's CPU kernels do for these operations as well. Only calls that fail with "not implemented for
    # 'Half'" are retried; everything else is torch's own.
    import functools

    def _upcasting(native):
        @functools.wraps(native)
        def call(*args, **kwargs):
            try:
                return native(*args, **kwargs)
            except RuntimeError as error:
                if "not implemented for 'Half'" not in str(error):
                    raise
            up = lambda v: v.float() if isinstance(v, torch.Tensor) and v.dtype == torch.float16 else v  # noqa: E731
            result = native(*[up(a) for a in args], **{k: up(v) for k, v in kwargs.items()})
            return result.to(torch.float16) if isinstance(result, torch.Tensor) else result
        return call

    for _module, _names in ((torch, ("matmul", "mm", "bmm", "relu", "sigmoid", "tanh", "softmax", "erf")),
                            (torch.nn.functional, ("relu", "gelu", "silu", "sigmoid", "softmax", "linear"))):
        for _name in _names:
            if hasattr(_module, _name):
                setattr(_module, _name, _upcasting(getattr(_module, _name)))

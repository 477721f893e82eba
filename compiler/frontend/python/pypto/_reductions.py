"""The pypto reductions (sum, amax, amin, prod, argmax, argmin) and the composites built on them: softmax,
rms_norm and layer_norm."""
from ._elementwise import add, div, exp, mul, rsqrt, sub
from ._recording import _as_list, _one
from ._shapes import full


def _reduction(kind):
    def op(x, dim=None, keepdim=False):
        return _one(kind, [x], {"dims": _as_list(dim), "keepdim": bool(keepdim)})
    op.__name__ = kind
    op.__doc__ = f"{kind} over `dim` (an int, a list, or all dims when None)."
    return op


sum = _reduction("sum")  # noqa: A001
amax = _reduction("amax")
amin = _reduction("amin")
prod = _reduction("prod")


def argmax(x, dim=-1, keepdim=False):
    return _one("argmax", [x], {"dims": [int(dim)], "keepdim": bool(keepdim)})


def argmin(x, dim=-1, keepdim=False):
    return _one("argmin", [x], {"dims": [int(dim)], "keepdim": bool(keepdim)})


# --- composites (built from the reductions and the elementwise ops) ---------------------

def softmax(x, dim=-1):
    row_max = amax(x, dim=dim, keepdim=True)
    numerator = exp(sub(x, row_max))
    return div(numerator, sum(numerator, dim=dim, keepdim=True))


def _mean(x, dim):
    """Mean over one dim, kept. A dim whose size is only known at run time is counted with a sum of ones."""
    total = sum(x, dim=dim, keepdim=True)
    size = x.shape[dim]
    if size.is_concrete():
        return mul(total, 1.0 / size.concrete())
    return div(total, sum(full(x.shape, 1.0, x.dtype), dim=dim, keepdim=True))


def rms_norm(x, gamma=None, epsilon=1e-6, dim=-1, *, weight=None, eps=None):
    """x / sqrt(mean(x^2) + epsilon) * gamma, PyPTO's signature (weight/eps: the older names)."""
    weight = gamma if weight is None else weight
    eps = epsilon if eps is None else eps
    mean_square = _mean(mul(x, x), dim)
    normalised = mul(x, rsqrt(add(mean_square, eps)))
    return normalised if weight is None else mul(normalised, weight)


def layer_norm(x, weight=None, bias=None, eps=1e-5, dim=-1):
    mean = _mean(x, dim)
    centred = sub(x, mean)
    variance = _mean(mul(centred, centred), dim)
    result = mul(centred, rsqrt(add(variance, eps)))
    if weight is not None:
        result = mul(result, weight)
    if bias is not None:
        result = add(result, bias)
    return result

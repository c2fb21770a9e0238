"""Cases of the beginner path (issue 25, item 2) run twice: by MindSpore 2.10 (the oracle) and by minims.

``tests/data/oracle_beginner_facts.py`` evaluates every expression of :data:`CASES` with the real
MindSpore and records the result (dtype, shape, values; or the exception type) in
``tests/data/oracle_beginner_facts.json``, and the gradients ``mindspore.grad`` gives for the functions
of :data:`GRADS`.  The tests in ``tests/primitives/test_beginner_ops.py``, ``tests/nn/test_beginner_layers.py``
and ``tests/tensors/test_beginner_tensor_methods.py`` evaluate the same expressions with minims.

An expression sees ``ms`` (the framework), ``ops``, ``nn``, ``Tensor``, ``np`` and the inputs of
:func:`inputs`.  Cases in :data:`RANDOM` draw random numbers: only their dtype and shape can be
compared (MindSpore's random streams are not reproduced).
"""
import numpy as np


def inputs(ms):
    """The named input Tensors, built with the framework ``ms`` (``mindspore`` or ``minims``)."""
    T = ms.Tensor
    return {
        "x": T([[1.0, -2.0, 3.0], [-4.0, 5.0, 0.5]], ms.float32),
        "v": T([0.5, -1.5, 2.0, 0.0], ms.float32),
        "big": T([-100.0, -30.0, 0.0, 30.0, 100.0], ms.float32),
        "ties": T([0.5, 1.5, 2.5, -0.5, -1.5, 0.49, 2.51], ms.float32),
        "nanv": T([1.0, float("nan"), float("inf"), -2.0], ms.float32),
        "i": T([[1, -2, 3], [-4, 5, 0]], ms.int32),
        "m34": T(np.arange(12, dtype=np.float32).reshape(3, 4) / 2.0 - 1.0),
        "m43": T(np.arange(12, dtype=np.float32).reshape(4, 3) / 4.0 - 1.0),
        "b234": T(np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 8.0 - 1.0),
        "b243": T(np.arange(24, dtype=np.float32).reshape(2, 4, 3) / 6.0 - 2.0),
        "logits": T([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0], [2.0, 2.0, -2.0]], ms.float32),
        "labels": T([1, 2, 0], ms.int32),
        "probs": T([[0.2, 0.5, 0.3], [0.0, 0.1, 0.9], [1.0, 0.0, 0.0]], ms.float32),
        "p": T([[0.2, 0.9, 0.5], [0.7, 0.1, 0.999]], ms.float32),
        "y": T([[0.0, 1.0, 1.0], [1.0, 0.0, 0.5]], ms.float32),
        "w3": T([1.0, 2.0, 0.5], ms.float32),
        "mask": T([[True, False, True], [False, False, True]]),
        "img": T(np.arange(2 * 2 * 3 * 3, dtype=np.float32).reshape(2, 2, 3, 3) / 10.0 - 1.5),
        "ids": T([[1, 0, 3], [2, 2, 1]], ms.int32),
        "seq": T(np.sin(np.arange(2 * 3 * 2, dtype=np.float32)).reshape(2, 3, 2)),
    }


def namespace(ms, ops, nn):
    """What an expression sees, built with the framework ``ms``.  ``__name__`` is needed: MindSpore's
    ``grad`` reads the module name of the function it differentiates."""
    env = {"__name__": "beginner_cases", "filled": lambda cell, seed=0: filled(ms, cell, seed), "ms": ms, "ops": ops, "nn": nn, "Tensor": ms.Tensor, "np": np}
    env.update(inputs(ms))
    return env


def filled(ms, cell, seed=0):
    """``cell`` with every Parameter set to ``sin`` of a running count (the same numbers on both
    frameworks, in the order ``get_parameters`` gives them)."""
    for p in cell.get_parameters():
        count = int(np.prod(p.shape))
        p.set_data(ms.Tensor((np.sin(np.arange(count) * 0.7 + seed) * 0.5).reshape(p.shape).astype(np.float32)))
    return cell


def _set(cell, seed=0):
    return f"filled({cell}, {seed})"


CASES = {
    # ----- creation
    "eye": "ops.eye(2, 3)",
    "eye_int": "ops.eye(3, dtype=ms.int32)",
    "arange_int": "ops.arange(5)",
    "arange_float": "ops.arange(0.0, 1.0, 0.3)",
    "arange_mixed": "ops.arange(1, 4, 0.5)",
    "arange_negative_step": "ops.arange(5, 0, -2)",
    "arange_wrong_way": "ops.arange(5, 0, 1)",
    "linspace": "ops.linspace(0, 1, 5)",
    "linspace_third": "ops.linspace(-1.0, 2.0, 7)",
    "linspace_one": "ops.linspace(2.0, 3.0, 1)",
    # ----- composites
    "tensor_dot_1": "ops.tensor_dot(m34, m43, 1)",
    "tensor_dot_pairs": "ops.tensor_dot(b234, b243, ((1, 2), (2, 1)))",
    "dense": "ops.dense(x, m43[:2], Tensor([0.5, -0.5], ms.float32))",
    "bias_add": "ops.bias_add(img, Tensor([1.0, -1.0], ms.float32))",
    "clamp": "ops.clamp(x, -1.0, 2.0)",
    "clamp_min_only": "ops.clamp(x, min=0.0)",
    "clamp_int": "ops.clamp(i, -1, 2)",
    "clamp_int_float_bound": "ops.clamp(i, -1.5, 2.5)",
    "clamp_no_bound": "ops.clamp(x)",
    "clip_by_value": "ops.clip_by_value(x, -1.0, 2.0)",
    "softplus": "ops.softplus(big)",
    "softplus_beta": "ops.softplus(x, beta=2, threshold=3)",
    "logsumexp": "ops.logsumexp(x, 1)",
    "logsumexp_keep": "ops.logsumexp(big, 0, keepdim=True)",
    "split_int": "ops.split(m34, 2, 1)",
    "split_uneven": "ops.split(ops.arange(5), 2)",
    "split_sizes": "ops.split(m34, (1, 3), 1)",
    "shape": "ops.Shape()(b234)",
    "flatten": "ops.Flatten()(img)",
    "partial": "ops.partial(ops.add, x)(Tensor(1.0, ms.float32))",
    "leaky_relu": "ops.leaky_relu(v, 0.1)",
    "gelu_exact": "ops.gelu(x)",
    "gelu_tanh": "ops.gelu(x, approximate='tanh')",
    "erf": "ops.erf(v)",
    "cumsum": "ops.cumsum(x, 1)",
    "cumsum_int": "ops.cumsum(i, 0)",
    "prod": "ops.prod(x, 1)",
    "prod_int": "ops.prod(i)",
    "round": "ops.round(ties)",
    "isnan": "ops.isnan(nanv)",
    "masked_fill": "ops.masked_fill(x, mask, 9.0)",
    "norm": "ops.norm(x)",
    "norm_dim": "ops.norm(x, 1, 1)",
    "norm_fro": "ops.norm(m34, 'fro', (0, 1))",
    "norm_inf": "ops.norm(x, float('inf'), 0)",
    "sort": "ops.sort(Tensor([[3.0, 1.0, 2.0, 1.0], [0.0, -1.0, 5.0, 5.0]], ms.float32))",
    "sort_descending": "ops.sort(Tensor([3.0, 1.0, 2.0, 1.0], ms.float32), descending=True)",
    "topk": "ops.topk(Tensor([[3.0, 1.0, 2.0, 4.0], [0.0, -1.0, 5.0, 5.0]], ms.float32), 2)",
    "swapaxes": "ops.swapaxes(b234, 0, 2)",
    "chunk": "ops.chunk(ops.arange(7), 3)",
    "tile": "ops.tile(x, (2, 1, 2))",
    "diag": "ops.diag(v)",
    "bmm": "ops.bmm(b234, b243)",
    # ----- functional losses
    "bce_logits": "ops.binary_cross_entropy_with_logits(x, y)",
    "bce_logits_weights": "ops.binary_cross_entropy_with_logits(x, y, w3, Tensor([2.0, 1.0, 0.5], ms.float32), 'none')",
    "bce_logits_large": "ops.binary_cross_entropy_with_logits(big, Tensor([1.0, 0.0, 1.0, 0.0, 1.0], ms.float32), "
                        "reduction='sum')",
    "cross_entropy": "ops.cross_entropy(logits, labels)",
    "cross_entropy_probs": "ops.cross_entropy(logits, probs, reduction='sum')",
    "cross_entropy_smoothing": "ops.cross_entropy(logits, labels, w3, label_smoothing=0.2)",
    # ----- loss cells
    "CrossEntropyLoss": "nn.CrossEntropyLoss()(logits, labels)",
    "CrossEntropyLoss_none": "nn.CrossEntropyLoss(reduction='none')(logits, labels)",
    "CrossEntropyLoss_int64_labels": "nn.CrossEntropyLoss()(logits, labels.astype(ms.int64))",
    "BCEWithLogitsLoss": "nn.BCEWithLogitsLoss()(x, y)",
    "BCELoss": "nn.BCELoss()(p, y)",
    "BCELoss_weight_sum": "nn.BCELoss(w3, 'sum')(p, y)",
    "BCELoss_edges": "nn.BCELoss(reduction='none')(Tensor([0.0, 1.0, 0.5], ms.float32), "
                     "Tensor([1.0, 0.0, 1.0], ms.float32))",
    "MAELoss": "nn.MAELoss()(x, y)",
    "MSELoss": "nn.MSELoss()(x, y)",
    "L1Loss_sum": "nn.L1Loss('sum')(x, y)",
    "NLLLoss": "nn.NLLLoss()(ops.log_softmax(logits, 1), labels)",
    "NLLLoss_weight": "nn.NLLLoss(w3, reduction='sum')(ops.log_softmax(logits, 1), labels)",
    # ----- layers
    "LeakyReLU": "nn.LeakyReLU()(v)",
    "GELU": "nn.GELU()(x)",
    "GELU_exact": "nn.GELU(approximate=False)(x)",
    "Conv2dTranspose_same": f"({_set('nn.Conv2dTranspose(2, 3, 3, stride=2)')})(img)",
    "Conv2dTranspose_valid": "(" + _set("nn.Conv2dTranspose(2, 1, 2, pad_mode='valid', has_bias=True)") + ")(img)",
    "Conv2dTranspose_pad": "(" + _set("nn.Conv2dTranspose(2, 2, 3, stride=2, pad_mode='pad', padding=1)") + ")(img)",
    "Embedding": f"({_set('nn.Embedding(4, 3)')})(ids)",
    "Embedding_one_hot": f"({_set('nn.Embedding(4, 3, use_one_hot=True)')})(ids)",
    "LSTM": f"({_set('nn.LSTM(2, 3, batch_first=True)')})(seq)",
    "LSTM_two_layers_bidirectional": f"({_set('nn.LSTM(2, 2, num_layers=2, bidirectional=True)', 1)})(seq)",
    "LSTM_hx": f"({_set('nn.LSTM(2, 2)')})(seq, (ops.ones((1, 3, 2)), ops.ones((1, 3, 2)) * 0.5))",
    # ----- Tensor methods
    "t_swapaxes": "b234.swapaxes(1, 2)",
    "t_norm": "x.norm()",
    "t_clip": "x.clip(-1.0, 1.0)",
    "t_diag": "v.diag()",
    "t_bmm": "b234.bmm(b243)",
    "t_gather": "x.gather(Tensor([2, 0], ms.int32), 1)",
    "t_tile": "x.tile((2,))",
    "t_repeat": "x.repeat(2, 1)",
    "t_chunk": "m34.chunk(2, 1)",
    "t_cumsum": "x.cumsum(0)",
    "t_sort": "v.sort()",
    "t_topk": "v.topk(2)",
    "t_prod": "x.prod()",
    "t_round": "ties.round()",
    "t_isnan": "nanv.isnan()",
    "t_masked_fill": "x.masked_fill(mask, -1.0)",
    "t_float": "i.float()",
    "t_half": "x.half()",
    "t_int": "x.int()",
    "t_is_contiguous": "x.is_contiguous()",
    "t_contiguous": "x.contiguous()",
    "t_from_numpy": "Tensor.from_numpy(np.arange(4, dtype=np.float32).reshape(2, 2))",
    "t_from_numpy_int": "Tensor.from_numpy(np.arange(3))",
    # ----- printing
    "print_arange": "str(ops.arange(1, 4, 0.5))",
    "print_eye": "str(ops.eye(2, dtype=ms.int32))",
    "print_linspace": "repr(ops.linspace(-1.0, 2.0, 7))",
    "print_sort": "str(ops.sort(v))",
    "print_layers": "str(nn.SequentialCell([nn.Conv2dTranspose(2, 3, 3, weight_init='normal'), nn.LeakyReLU(), nn.GELU(), "
                    "nn.GELU(approximate=False), nn.LSTM(2, 3)]))",
    "print_conv_transpose_pad": ("str(nn.Conv2dTranspose(2, 2, 3, stride=2, pad_mode='pad', padding=1, has_bias=True, "
                                 "weight_init='normal', bias_init='zeros'))"),
    "print_losses": "[str(c) for c in (nn.CrossEntropyLoss(), nn.BCEWithLogitsLoss(), nn.BCELoss(), nn.MAELoss(), "
                    "nn.NLLLoss())]",
    "print_embedding": "str(nn.Embedding(4, 3))",
    # ----- refusals (MindSpore's exception types)
    "err_eye_float": "ops.eye(2.5)",
    "err_linspace_zero_steps": "ops.linspace(0.0, 1.0, 0)",
    "err_randint_empty": "ops.randint(3, 3, (2,))",
    "err_randint_float_dtype": "ops.randint(0, 3, (2,), dtype=ms.float32)",
    "err_rand_int_dtype": "ops.rand(2, dtype=ms.int32)",
    "err_bce_out_of_range": "ops.binary_cross_entropy(Tensor([1.5, 0.5], ms.float32), Tensor([1.0, 0.0], ms.float32))",
    "err_bce_logits_shapes": "ops.binary_cross_entropy_with_logits(x, w3)",
    "err_topk_too_many": "ops.topk(v, 5)",
    "err_split_sizes": "ops.split(m34, (1, 2), 1)",
    "err_tensor_dot_sizes": "ops.tensor_dot(m34, m34, 1)",
    "err_bias_add_shape": "ops.bias_add(img, w3)",
    "err_masked_fill_mask": "ops.masked_fill(x, i, 1.0)",
    "err_round_decimals": "ops.round(ties, decimals=1)",
    "err_cumsum_bool": "ops.cumsum(mask, 0)",
    "err_gelu_approximate": "ops.gelu(x, approximate='fast')",
    "err_softplus_int": "ops.softplus(i)",
    "err_LSTM_input_size": "nn.LSTM(3, 2)(seq)",
    "err_Embedding_float_ids": "nn.Embedding(4, 3)(x)",
    "err_Conv2dTranspose_channels": "nn.Conv2dTranspose(3, 2, 3)(img)",
    "err_CrossEntropyLoss_smoothing": "nn.CrossEntropyLoss(label_smoothing=1.5)",
    "err_LeakyReLU_alpha": "nn.LeakyReLU('a')",
    "err_GELU_approximate": "nn.GELU(approximate='tanh')",
    # ----- weights broadcast
    "BCELoss_weight_full": "nn.BCELoss(ops.ones((2, 3)) * w3, 'sum')(p, y)",
}

# Drawn numbers: only the dtype and shape are compared.
RANDOM = {
    "randn": "(ms.set_seed(1), ops.randn(2, 3))[1]",
    "randn_tuple": "(ms.set_seed(1), ops.randn((4,)))[1]",
    "rand": "(ms.set_seed(1), ops.rand(3, 2))[1]",
    "rand_float64": "(ms.set_seed(1), ops.rand(2, dtype=ms.float64))[1]",
    "randint": "(ms.set_seed(1), ops.randint(0, 5, (2, 4)))[1]",
    "randint_int32": "(ms.set_seed(1), ops.randint(-3, 3, (5,), dtype=ms.int32))[1]",
    "standard_normal": "(ms.set_seed(1), ops.standard_normal((3, 2)))[1]",
}

# function, arguments: gradients with respect to every argument
GRADS = {
    "tensor_dot": ("lambda a, b: ops.tensor_dot(a, b, 1).sum()", "(m34, m43)"),
    "dense": ("lambda a, w, b: (ops.dense(a, w, b) ** 2).sum()", "(x, m43[:2], Tensor([0.5, -0.5], ms.float32))"),
    "bias_add": ("lambda a, b: (ops.bias_add(a, b) ** 2).sum()", "(img, Tensor([1.0, -1.0], ms.float32))"),
    "clamp": ("lambda a: (ops.clamp(a, -1.0, 2.0) * a).sum()", "(Tensor([-2.0, -1.0, 0.5, 2.0, 3.0], ms.float32),)"),
    "clip_by_value": ("lambda a: (ops.clip_by_value(a, -1.0, 2.0) * a).sum()",
                      "(Tensor([-2.0, -1.0, 0.5, 2.0, 3.0], ms.float32),)"),
    "softplus": ("lambda a: ops.softplus(a).sum()", "(big,)"),
    "logsumexp": ("lambda a: ops.logsumexp(a, 1).sum()", "(x,)"),
    "leaky_relu": ("lambda a: ops.leaky_relu(a, 0.1).sum()", "(v,)"),
    "gelu": ("lambda a: ops.gelu(a).sum()", "(x,)"),
    "gelu_tanh": ("lambda a: ops.gelu(a, approximate='tanh').sum()", "(x,)"),
    "cumsum": ("lambda a: (ops.cumsum(a, 1) * a).sum()", "(x,)"),
    "prod": ("lambda a: ops.prod(a, 1).sum()", "(x,)"),
    "norm": ("lambda a: ops.norm(a)", "(x,)"),
    "sort": ("lambda a: (ops.sort(a)[0] * Tensor([1.0, 2.0, 3.0, 4.0], ms.float32)).sum()", "(v,)"),
    "topk": ("lambda a: (ops.topk(a, 2)[0] * Tensor([1.0, 2.0], ms.float32)).sum()", "(v,)"),
    "split": ("lambda a: (ops.split(a, 2, 1)[1] ** 2).sum()", "(m34,)"),
    "tile": ("lambda a: (ops.tile(a, (2, 2)) * ops.arange(24).reshape(4, 6).astype(ms.float32)).sum()", "(x,)"),
    "swapaxes": ("lambda a: (ops.swapaxes(a, 0, 1) * m43[:3, :2]).sum()", "(x,)"),
    "masked_fill": ("lambda a: (ops.masked_fill(a, mask, 9.0) ** 2).sum()", "(x,)"),
    "bce_logits": ("lambda a, b: ops.binary_cross_entropy_with_logits(a, b)", "(x, y)"),
    "bce": ("lambda a, b: ops.binary_cross_entropy(a, b)", "(p, y)"),
    "cross_entropy": ("lambda a: ops.cross_entropy(a, labels)", "(logits,)"),
    "cross_entropy_probs": ("lambda a: ops.cross_entropy(a, probs)", "(logits,)"),
    "nll_loss": ("lambda a: nn.NLLLoss()(ops.log_softmax(a, 1), labels)", "(logits,)"),
    "mae": ("lambda a, b: nn.MAELoss()(a, b)", "(x, y)"),
    "bmm": ("lambda a, b: (ops.bmm(a, b) ** 2).sum()", "(b234, b243)"),
    "LSTM_input": (f"lambda a: ({_set('nn.LSTM(2, 3, batch_first=True)')})(a)[0].sum()", "(seq,)"),
    "Conv2dTranspose_input": (f"lambda a: (({_set('nn.Conv2dTranspose(2, 3, 3, stride=2)')})(a) ** 2).sum()",
                              "(img,)"),
}


# ----- comparing minims with the record ---------------------------------------------------------------
def describe(ms, value):
    """A record of a result in the oracle's form (``tests/data/oracle_beginner_facts.py``)."""
    if isinstance(value, ms.Tensor):
        arr = value.asnumpy()
        return {"dtype": str(value.dtype), "shape": list(arr.shape), "values": arr.tolist()}
    if isinstance(value, (tuple, list)):
        return {"seq": type(value).__name__, "items": [describe(ms, v) for v in value]}
    if isinstance(value, (bool, int, float, str)):
        return {"python": type(value).__name__, "value": value}
    return {"printed": str(value)}


def assert_same(got, expected, where, rtol=1e-5, atol=1e-6, values=True):
    """``got`` (from :func:`describe`) is the record ``expected``: same kind, dtype, shape and (with
    ``values``) the same numbers to ``rtol``/``atol``, NaN where MindSpore has NaN."""
    assert got.keys() == expected.keys(), (where, got, expected)
    if "items" in expected:
        assert got["seq"] == expected["seq"] and len(got["items"]) == len(expected["items"]), (where, got)
        for k, (g, e) in enumerate(zip(got["items"], expected["items"])):
            assert_same(g, e, f"{where}[{k}]", rtol, atol, values)
    elif "dtype" in expected:
        assert (got["dtype"], got["shape"]) == (expected["dtype"], expected["shape"]), (where, got, expected)
        if values:
            np.testing.assert_allclose(np.array(got["values"], dtype=float), np.array(expected["values"], dtype=float),
                                       rtol=rtol, atol=atol, err_msg=where)
    else:
        assert got == expected, (where, got, expected)


def evaluate(ms, ops, nn, table, name):
    """minims' (or MindSpore's) outcome of a case: ``{"result": record}`` or ``{"error": exception}``."""
    env = namespace(ms, ops, nn)
    try:
        if table == "grads":
            fn_text, args_text = GRADS[name]
            fn, args = eval(fn_text, env), eval(args_text, env)
            grads = ms.grad(fn, grad_position=tuple(range(len(args))))(*args)
            return {"result": describe(ms, grads if isinstance(grads, tuple) else (grads,))}
        return {"result": describe(ms, eval((CASES if table == "cases" else RANDOM)[name], env))}
    except Exception as exc:                    # compared with MindSpore's exception type
        return {"error": exc}


def assert_outcome(got, expected, name, values=True):
    """minims' outcome is MindSpore's: the same record, or an exception of MindSpore's type (or a
    subclass) whose message says how to fix it where minims wrote it."""
    if "error" in expected:
        assert "error" in got, f"{name}: MindSpore raises {expected['error']}, minims returned {got['result']}"
        names = [c.__name__ for c in type(got["error"]).__mro__]
        assert expected["error"] in names, f"{name}: MindSpore raises {expected['error']}, minims {names[0]}"
        return
    if "error" in got:
        raise AssertionError(f"{name}: minims raised {type(got['error']).__name__}: {got['error']}")
    assert_same(got["result"], expected["result"], name, values=values)

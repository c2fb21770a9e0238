"""Learning-rate schedules, weight decay, parameter groups, Adam's AMSGrad and
``mindspore.experimental.optim`` (issue 25, item 5).

Every expected number is what MindSpore 2.10 (CPU, the oracle) printed for the same code, quoted in
the tests; trajectories start from ``w = [1, -2, 3]`` (float32) and take the gradients ``GRADS`` in
turn.
"""
import numpy as np
import pytest

import minims as ms
from minims import Parameter, Tensor, nn, ops
from minims.experimental import optim

GRADS = [np.array([0.5, -1.0, 2.0], np.float32), np.array([0.1, 0.3, -0.2], np.float32),
         np.array([0.05, -0.02, 0.01], np.float32), np.array([-0.3, 0.0, 0.4], np.float32)]


def trajectory(make, steps=4, scheduler=None):
    """``w`` after each step of the optimizer ``make([w])`` (and ``scheduler(opt).step()``)."""
    w = Parameter(Tensor(np.array([1.0, -2.0, 3.0], np.float32)), name="w")
    opt = make([w])
    sched = scheduler(opt) if scheduler else None
    out = []
    for g in GRADS[:steps]:
        opt((Tensor(g),))
        if sched:
            sched.step()
        out.append(w.asnumpy().copy())
    return np.array(out)


def schedule_values(schedule, steps=7):
    values = [schedule(Tensor(i, ms.int32)) for i in range(steps)]
    assert all(v.dtype == ms.float32 and v.shape == () for v in values)
    return [float(v.asnumpy()) for v in values]


def test_schedule_cells_give_mindspores_rate_at_each_step():
    """Item 5, schedules.  MindSpore 2.10, [float(s(Tensor(i, int32))) for i in range(7)], each a
    Float32 scalar: see the literals (ExponentialDecayLR(0.1, 0.9, 4) ... WarmUpLR(0.1, 4))."""
    expected = {
        "exp": (nn.ExponentialDecayLR(0.1, 0.9, 4), [0.1, 0.09740037471055984, 0.09486832469701767,
                0.09240210801362991, 0.08999999612569809, 0.08766033500432968, 0.08538150042295456]),
        "exp stair": (nn.ExponentialDecayLR(0.1, 0.9, 4, is_stair=True), [0.1] * 4 + [0.08999999612569809] * 3),
        "poly": (nn.PolynomialDecayLR(0.1, 0.01, 4, 0.5), [0.1, 0.08794228732585907, 0.07363960891962051,
                 0.054999999701976776, 0.01, 0.01, 0.01]),
        "cos": (nn.CosineDecayLR(0.01, 0.1, 4), [0.1, 0.08681980520486832, 0.054999999701976776,
                0.023180190473794937, 0.01, 0.01, 0.01]),
        "nat": (nn.NaturalExpDecayLR(0.1, 0.9, 4), [0.1, 0.04065696895122528, 0.01652989163994789,
                0.006720553617924452, 0.0027323728427290916, 0.0011108998442068696, 0.0004516583576332778]),
        "nat stair": (nn.NaturalExpDecayLR(0.1, 0.9, 4, True), [0.1] * 4 + [0.0027323728427290916] * 3),
        "inv": (nn.InverseDecayLR(0.1, 0.9, 4), [0.1, 0.08163265138864517, 0.06896551698446274,
                0.059701498597860336, 0.05263158306479454, 0.0470588244497776, 0.042553193867206573]),
        "inv stair": (nn.InverseDecayLR(0.1, 0.9, 4, True), [0.1] * 4 + [0.05263158306479454] * 3),
        "warm": (nn.WarmUpLR(0.1, 4), [0.0, 0.025, 0.05, 0.075, 0.1, 0.1, 0.1]),
    }
    for name, (schedule, values) in expected.items():
        np.testing.assert_allclose(schedule_values(schedule), values, rtol=1e-6, err_msg=name)
    np.testing.assert_allclose(
        schedule_values(nn.PolynomialDecayLR(0.1, 0.01, 4, 0.5, update_decay_steps=True), 10),
        [0.1, 0.08794228732585907, 0.07363960891962051, 0.054999999701976776, 0.01, 0.06511352211236954,
         0.054999999701976776, 0.04181980341672897, 0.01, 0.054999999701976776], rtol=1e-6)
    assert isinstance(nn.ExponentialDecayLR(0.1, 0.9, 4), nn.LearningRateSchedule)


def test_dynamic_lr_functions_give_mindspores_lists():
    """Item 5, dynamic LR functions.  MindSpore 2.10 prints these lists (Python floats) for
    total_step=6, step_per_epoch=2, decay_epoch=2; and the optimizer page's
    piecewise_constant_lr([1, 3, 10], [0.1, 0.05, 0.01])."""
    assert nn.exponential_decay_lr(0.1, 0.9, 6, 2, 2) == [0.1, 0.1, 0.09486832980505139, 0.09486832980505139,
                                                           0.09000000000000001, 0.09000000000000001]
    assert nn.exponential_decay_lr(0.1, 0.9, 6, 2, 2, True) == [0.1, 0.1, 0.1, 0.1, 0.09000000000000001,
                                                                 0.09000000000000001]
    assert nn.polynomial_decay_lr(0.1, 0.01, 6, 2, 2, 0.5) == [0.1, 0.1, 0.07363961030678928, 0.07363961030678928,
                                                                0.01, 0.01]
    assert nn.polynomial_decay_lr(0.1, 0.01, 6, 2, 2, 0.5, True) == [0.1, 0.1, 0.07363961030678928,
                                                                      0.07363961030678928, 0.01, 0.01]
    assert nn.cosine_decay_lr(0.01, 0.1, 6, 2, 2) == [0.1, 0.1, 0.05500000000000001, 0.05500000000000001, 0.01, 0.01]
    assert nn.natural_exp_decay_lr(0.1, 0.9, 6, 2, 2) == [0.1, 0.1, 0.04065696597405991, 0.04065696597405991,
                                                           0.016529888822158657, 0.016529888822158657]
    assert nn.natural_exp_decay_lr(0.1, 0.9, 6, 2, 2, True) == [0.1, 0.1, 0.1, 0.1, 0.016529888822158657,
                                                                 0.016529888822158657]
    assert nn.inverse_decay_lr(0.1, 0.5, 6, 2, 2) == [0.1, 0.1, 0.08, 0.08, 0.06666666666666667, 0.06666666666666667]
    assert nn.inverse_decay_lr(0.1, 0.5, 6, 2, 2, True) == [0.1, 0.1, 0.1, 0.1, 0.06666666666666667,
                                                             0.06666666666666667]
    assert nn.warmup_lr(0.1, 6, 2, 2) == [0.0, 0.0, 0.05, 0.05, 0.1, 0.1]
    assert nn.piecewise_constant_lr([1, 3, 10], [0.1, 0.05, 0.01]) == [0.1, 0.05, 0.05] + [0.01] * 7


def test_schedules_check_their_arguments_as_mindspore():
    """Item 5, schedule arguments.  MindSpore 2.10: ExponentialDecayLR(1, 0.9, 4) raises TypeError
    (learning_rate must be float), (-0.1, 0.9, 4) ValueError, (0.1, 0.9, 0) ValueError,
    (0.1, 0.9, 4.0) TypeError; CosineDecayLR(0.2, 0.1, 4) ValueError, (0, 0.1, 4) TypeError;
    PolynomialDecayLR power 0.0 ValueError; WarmUpLR(0.1, 0) ValueError;
    cosine_decay_lr(0, 0.1, 4, 1, 2) TypeError; exponential_decay_lr total_step 0 ValueError."""
    for make, error in ((lambda: nn.ExponentialDecayLR(1, 0.9, 4), TypeError),
                        (lambda: nn.ExponentialDecayLR(-0.1, 0.9, 4), ValueError),
                        (lambda: nn.ExponentialDecayLR(0.1, 0.9, 0), ValueError),
                        (lambda: nn.ExponentialDecayLR(0.1, 0.9, 4.0), TypeError),
                        (lambda: nn.CosineDecayLR(0.2, 0.1, 4), ValueError),
                        (lambda: nn.CosineDecayLR(0, 0.1, 4), TypeError),
                        (lambda: nn.PolynomialDecayLR(0.1, 0.01, 4, 0.0), ValueError),
                        (lambda: nn.WarmUpLR(0.1, 0), ValueError),
                        (lambda: nn.cosine_decay_lr(0, 0.1, 4, 1, 2), TypeError),
                        (lambda: nn.exponential_decay_lr(0.1, 0.9, 0, 1, 2), ValueError)):
        with pytest.raises(error):
            make()


def test_an_optimizer_calls_its_schedule_with_the_step_counter():
    """Item 5, schedules in optimizers.  MindSpore 2.10: Momentum(lr=ExponentialDecayLR(0.1, 0.5, 1),
    momentum=0.9) takes w to [0.95, -1.9, 2.8], [0.9225, -1.87, 2.72], [0.908875, -1.856, 2.68375],
    [0.90649372, -1.8497, 2.66243768]; with CosineDecayLR(0.01, 0.1, 3): [0.95, -1.9, 2.8],
    [0.907375, -1.8535, 2.676], [0.8896625, -1.8353, 2.628875], [0.88775748, -1.83026, 2.61182499];
    SGD with learning_rate=[0.1, 0.2, 0.3, 0.4]: [0.95, -1.9, 2.8], [0.93, -1.96, 2.84],
    [0.915, -1.954, 2.837], [1.035, -1.954, 2.677]."""
    np.testing.assert_allclose(trajectory(lambda p: nn.Momentum(p, nn.ExponentialDecayLR(0.1, 0.5, 1), 0.9)),
                               [[0.95, -1.9, 2.8], [0.9225, -1.87, 2.72], [0.908875, -1.856, 2.68375],
                                [0.9064937233924866, -1.8496999740600586, 2.662437677383423]], rtol=1e-6)
    np.testing.assert_allclose(trajectory(lambda p: nn.Momentum(p, nn.CosineDecayLR(0.01, 0.1, 3), 0.9)),
                               [[0.95, -1.9, 2.8], [0.9073749780654907, -1.8535000085830688, 2.675999879837036],
                                [0.889662504196167, -1.8352999687194824, 2.6288750171661377],
                                [0.8877574801445007, -1.830259919166565, 2.6118249893188477]], rtol=1e-6)
    np.testing.assert_allclose(trajectory(lambda p: nn.SGD(p, learning_rate=[0.1, 0.2, 0.3, 0.4])),
                               [[0.95, -1.9, 2.8], [0.93, -1.96, 2.84], [0.915, -1.954, 2.837],
                                [1.035, -1.954, 2.677]], rtol=1e-6)


AMSGRAD = [[0.9000000357627869, -1.9000000953674316, 2.9000000953674316],
           [0.8196962475776672, -1.857215404510498, 2.84073543548584],
           [0.7516781091690063, -1.8229351043701172, 2.794628858566284],
           [0.7330116629600525, -1.7948687076568604, 2.7462127208709717]]


def test_adam_amsgrad_matches_mindspore():
    """Item 5, Adam(use_amsgrad=True).  MindSpore 2.10 (see AMSGRAD) for Adam(lr=0.1,
    use_amsgrad=True); the same with use_nesterov=True (ignored with AMSGrad); with weight_decay=0.1:
    [0.90000004, -1.9, 2.9], [0.8136487, -1.84007061, 2.83013463], [0.73524565, -1.783723, 2.76848698],
    [0.69401217, -1.72964704, 2.70371914]; with beta1=0.8, beta2=0.9, eps=1e-6, lr=0.05:
    [0.95000029, -1.95000017, 2.95000005], [0.91171151, -1.93085575, 2.92319775],
    [0.88135129, -1.91668761, 2.90413809], [0.87780619, -1.90613389, 2.88365865]; with
    lr=PolynomialDecayLR(0.1, 0.01, 3, 1.0): [0.90000004, -1.9, 2.9], [0.84378737, -1.87005079,
    2.85851479], [0.81658012, -1.85633862, 2.84007215], [0.81471348, -1.85353196, 2.83523059].
    The third step differs from plain Adam (2.79462886 vs 2.79460621): v shrinks, max(v) does not."""
    np.testing.assert_allclose(trajectory(lambda p: nn.Adam(p, 0.1, use_amsgrad=True)), AMSGRAD, atol=1e-6)
    np.testing.assert_allclose(trajectory(lambda p: nn.Adam(p, 0.1, use_amsgrad=True, use_nesterov=True)),
                               AMSGRAD, atol=1e-6)
    np.testing.assert_allclose(
        trajectory(lambda p: nn.Adam(p, 0.1, use_amsgrad=True, weight_decay=0.1)),
        [[0.9000000357627869, -1.899999976158142, 2.9000000953674316],
         [0.8136487007141113, -1.8400706052780151, 2.830134630203247],
         [0.7352456450462341, -1.783722996711731, 2.768486976623535],
         [0.6940121650695801, -1.7296470403671265, 2.703719139099121]], atol=1e-6)
    np.testing.assert_allclose(
        trajectory(lambda p: nn.Adam(p, 0.05, beta1=0.8, beta2=0.9, eps=1e-6, use_amsgrad=True)),
        [[0.9500002861022949, -1.9500001668930054, 2.950000047683716],
         [0.9117115139961243, -1.9308557510375977, 2.9231977462768555],
         [0.8813512921333313, -1.9166876077651978, 2.9041380882263184],
         [0.8778061866760254, -1.9061338901519775, 2.8836586475372314]], atol=1e-6)
    np.testing.assert_allclose(
        trajectory(lambda p: nn.Adam(p, nn.PolynomialDecayLR(0.1, 0.01, 3, 1.0), use_amsgrad=True)),
        [[0.9000000357627869, -1.9000000953674316, 2.9000000953674316],
         [0.8437873721122742, -1.8700507879257202, 2.8585147857666016],
         [0.8165801167488098, -1.856338620185852, 2.8400721549987793],
         [0.8147134780883789, -1.8535319566726685, 2.835230588912964]], atol=1e-6)
    plain = trajectory(lambda p: nn.Adam(p, 0.1))
    assert abs(plain[2, 2] - 2.7946062088012695) < 1e-6 and abs(plain[2, 2] - AMSGRAD[2][2]) > 1e-5
    opt = nn.Adam([Parameter(Tensor(np.ones(2, np.float32)), name="w")], use_amsgrad=True)
    assert [p.name for p in opt.vhat] == ["vhat.w"]


def test_adam_first_step_agrees_with_mindspore_to_float32_rounding():
    """Item 5, Adam in float32.  MindSpore 2.10: one step of Adam(lr=0.1) with gradient
    [0.5, -1, 2] takes [1, -2, 3] to [0.90000004, -1.9, 2.90000010] (its kernel forms 1 - beta in
    float32, like the bias correction); minims used to form it in float64 and gave 0.90000075."""
    np.testing.assert_allclose(trajectory(lambda p: nn.Adam(p, 0.1), steps=1)[0],
                               [0.9000000357627869, -1.899999976158142, 2.9000000953674316], atol=2e-7)


class HalvingDecay(nn.Cell):
    """The optimizer page's dynamic weight decay, 0.1 * 0.5 ** step."""

    def construct(self, global_step):
        return 0.1 * ops.pow(0.5, ops.cast(global_step, ms.float32))


def test_weight_decay_as_a_cell():
    """Item 5, weight_decay as a Cell.  MindSpore 2.10 with weight_decay=HalvingDecay():
    Momentum(0.1, 0.9) gives [0.94, -1.88, 2.77], [0.8713, -1.7926, 2.5691500], [0.80229175,
    -1.7074585, 2.38096213], [0.76918149, -1.6286968, 2.16861677]; Adam(0.1) gives [0.90000004, -1.9,
    2.9], [0.81738287, -1.84648907, 2.83479357], [0.74668318, -1.80171609, 2.78217363], [0.71889669,
    -1.76397204, 2.72902107]; SGD raises TypeError ("dynamic weight decay is currently not
    supported"); a plain function as weight_decay raises TypeError ("must be int, float or Cell")."""
    np.testing.assert_allclose(
        trajectory(lambda p: nn.Momentum(p, 0.1, 0.9, weight_decay=HalvingDecay())),
        [[0.94, -1.88, 2.77], [0.8712999820709229, -1.7926000356674194, 2.569149971008301],
         [0.802291750907898, -1.70745849609375, 2.3809621334075928],
         [0.769181489944458, -1.6286967992782593, 2.168616771697998]], atol=1e-6)
    np.testing.assert_allclose(
        trajectory(lambda p: nn.Adam(p, 0.1, weight_decay=HalvingDecay())),
        [[0.9000000357627869, -1.899999976158142, 2.9000000953674316],
         [0.8173828721046448, -1.8464890718460083, 2.8347935676574707],
         [0.7466831803321838, -1.8017160892486572, 2.7821736335754395],
         [0.7188966870307922, -1.7639720439910889, 2.7290210723876953]], atol=1e-6)
    w = [Parameter(Tensor(np.ones(3, np.float32)), name="w")]
    with pytest.raises(TypeError, match="dynamic weight decay"):
        nn.SGD(w, 0.1, weight_decay=HalvingDecay())
    with pytest.raises(TypeError, match="int, float or Cell"):
        nn.Momentum(w, 0.1, 0.9, weight_decay=lambda step: 0.1)


def test_parameter_groups_with_a_schedule_and_order_params():
    """Item 5, parameter groups.  MindSpore 2.10: Momentum([{'params': [w1], 'lr':
    ExponentialDecayLR(0.1, 0.5, 1), 'weight_decay': 0.01}, {'params': [w2], 'lr': 0.05},
    {'order_params': [w2, w1]}], learning_rate=0.2, momentum=0.9) orders its parameters
    ['b.bias', 'a.w'] and, with gradients (w2: [0.5], w1: [1, -1]), gives w1 [0.899, 2.098],
    [0.80310047, 2.19105101], [0.73474491, 2.25737619] and w2 [2.975], [2.9275], [2.85975]."""
    w1 = Parameter(Tensor(np.array([1.0, 2.0], np.float32)), name="a.w")
    w2 = Parameter(Tensor(np.array([3.0], np.float32)), name="b.bias")
    opt = nn.Momentum([{"params": [w1], "lr": nn.ExponentialDecayLR(0.1, 0.5, 1), "weight_decay": 0.01},
                       {"params": [w2], "lr": 0.05}, {"order_params": [w2, w1]}], learning_rate=0.2, momentum=0.9)
    assert [p.name for p in opt.parameters] == ["b.bias", "a.w"]
    got1, got2 = [], []
    for _ in range(3):
        opt((Tensor(np.array([0.5], np.float32)), Tensor(np.array([1.0, -1.0], np.float32))))
        got1.append(w1.asnumpy().copy())
        got2.append(w2.asnumpy().copy())
    np.testing.assert_allclose(got1, [[0.899, 2.098], [0.8031004667282104, 2.1910510063171387],
                                      [0.7347449064254761, 2.257376194000244]], rtol=1e-6)
    np.testing.assert_allclose(got2, [[2.975], [2.9275], [2.85975]], rtol=1e-6)


def test_experimental_optimizers_follow_mindspore():
    """Item 5, mindspore.experimental.optim.  MindSpore 2.10 trajectories (literals below) of
    SGD(lr=0.1), SGD(momentum=0.9, dampening=0.1, weight_decay=0.01), SGD(momentum=0.9,
    nesterov=True), SGD(maximize=True), Adam(lr=0.1), Adam(betas=(0.8, 0.9), eps=1e-6, lr=0.05),
    AdamW(lr=0.1), AdamW(lr=0.1, weight_decay=0.1, amsgrad=True), AdamW(maximize=True), and
    Adam(lr=0.1) with StepLR(step_size=2, gamma=0.5) / ExponentialLR(gamma=0.5) stepped after each
    optimizer step, SGD(lr=0.1) with MultiStepLR([1, 3], 0.5)."""
    cases = {
        "sgd": (lambda p: optim.SGD(p, lr=0.1), None,
                [[0.95, -1.9, 2.8], [0.94, -1.93, 2.82], [0.935, -1.928, 2.819], [0.965, -1.928, 2.779]]),
        "sgd momentum": (lambda p: optim.SGD(p, lr=0.1, momentum=0.9, dampening=0.1, weight_decay=0.01), None,
                         [[0.949, -1.898, 2.797], [0.8932458758354187, -1.8314918279647827, 2.6297826766967773],
                          [0.837763249874115, -1.768186092376709, 2.476020336151123],
                          [0.8140749335289001, -1.7096195220947266, 2.299405813217163]]),
        "sgd nesterov": (lambda p: optim.SGD(p, lr=0.1, momentum=0.9, nesterov=True), None,
                         [[0.905, -1.81, 2.62], [0.8455, -1.786, 2.496], [0.79145, -1.7336, 2.3645],
                          [0.8043050169944763, -1.6882399320602417, 2.1710498332977295]]),
        "sgd maximize": (lambda p: optim.SGD(p, lr=0.1, maximize=True), None,
                         [[1.05, -2.1, 3.2], [1.06, -2.07, 3.18], [1.065, -2.072, 3.181], [1.035, -2.072, 3.221]]),
        "adam": (lambda p: optim.Adam(p, lr=0.1), None,
                 [[0.9000000357627869, -1.899999976158142, 2.9000000953674316],
                  [0.8196962475776672, -1.8572152853012085, 2.84073543548584],
                  [0.7516774535179138, -1.8229237794876099, 2.7946057319641113],
                  [0.73301100730896, -1.7948343753814697, 2.746189594268799]]),
        "adam betas": (lambda p: optim.Adam(p, lr=0.05, betas=(0.8, 0.9), eps=1e-6), None,
                       [[0.9500003457069397, -1.9500001668930054, 2.950000047683716],
                        [0.9105084538459778, -1.930759310722351, 2.921903610229492],
                        [0.8776938319206238, -1.91575288772583, 2.900843381881714],
                        [0.8741487264633179, -1.9039700031280518, 2.8776121139526367]]),
        "adamw": (lambda p: optim.AdamW(p, lr=0.1), None,
                  [[0.8989999890327454, -1.8980000019073486, 2.8970000743865967],
                   [0.8177971243858337, -1.853317379951477, 2.834838390350342],
                   [0.7489604949951172, -1.8171725273132324, 2.7858738899230957],
                   [0.7295451164245605, -1.7872660160064697, 2.7346718311309814]]),
        "adamw amsgrad": (lambda p: optim.AdamW(p, lr=0.1, weight_decay=0.1, amsgrad=True), None,
                          [[0.8899999856948853, -1.8799999952316284, 2.870000123977661],
                           [0.8007961511611938, -1.8184152841567993, 2.7820355892181396],
                           [0.7247693538665771, -1.7659504413604736, 2.7081081867218018],
                           [0.6988552212715149, -1.7202244997024536, 2.632611036300659]]),
        "adamw maximize": (lambda p: optim.AdamW(p, lr=0.1, maximize=True), None,
                           [[1.0989999771118164, -2.0980000495910645, 3.0969998836517334],
                            [1.1782047748565674, -2.1386866569519043, 3.153167486190796],
                            [1.24504554271698, -2.170839548110962, 3.1961441040039062],
                            [1.2624670267105103, -2.1967580318450928, 3.2413642406463623]]),
        "adam steplr": (lambda p: optim.Adam(p, lr=0.1),
                        lambda o: optim.lr_scheduler.StepLR(o, step_size=2, gamma=0.5),
                        [[0.9000000357627869, -1.899999976158142, 2.9000000953674316],
                         [0.8196962475776672, -1.8572152853012085, 2.84073543548584],
                         [0.7856868505477905, -1.8400695323944092, 2.8176705837249756],
                         [0.7763535976409912, -1.8260248899459839, 2.7934625148773193]]),
        "adam explr": (lambda p: optim.Adam(p, lr=0.1), lambda o: optim.lr_scheduler.ExponentialLR(o, gamma=0.5),
                       [[0.9000000357627869, -1.899999976158142, 2.9000000953674316],
                        [0.859848141670227, -1.8786076307296753, 2.8703677654266357],
                        [0.8428434133529663, -1.8700346946716309, 2.858835458755493],
                        [0.8405101299285889, -1.8665235042572021, 2.852783441543579]]),
        "sgd multistep": (lambda p: optim.SGD(p, lr=0.1),
                          lambda o: optim.lr_scheduler.MultiStepLR(o, milestones=[1, 3], gamma=0.5),
                          [[0.95, -1.9, 2.8], [0.945, -1.915, 2.81], [0.9425, -1.914, 2.8095], [0.95, -1.914, 2.7995]]),
    }
    for name, (make, scheduler, expected) in cases.items():
        np.testing.assert_allclose(trajectory(make, scheduler=scheduler), expected, atol=1e-6, err_msg=name)


def test_experimental_param_groups_print_and_schedules_as_the_optimizer_page():
    """Item 5, the optimizer page.  MindSpore 2.10: StepLR(Adam(lr=0.1), 30, 0.1).get_last_lr() is
    [Tensor(shape=[], dtype=Float32, value= 0.1)]; the page's grouped Adam fills each group with the
    defaults after its own keys ({'params', 'weight_decay', 'lr', 'amsgrad', 'betas', 'eps',
    'maximize'} / {'params', 'lr', 'eps', 'betas', 'weight_decay', 'amsgrad', 'maximize'}), its lr is
    a Parameter learning_rate_group_N, and print(optimizer) shows the text below; StepLR(SGD(0.1),
    2, 0.5) stepped 5 times gives 0.1, 0.05, 0.05, 0.025, 0.025; Adam(lr=-1.0) raises ValueError;
    SGD(nesterov=True, momentum=0) ValueError."""
    conv = Parameter(Tensor(np.zeros((6, 1, 5, 5), np.float32)), name="conv.weight")
    param = Parameter(Tensor(np.array([1.0], np.float32)), name="param")
    scheduler = optim.lr_scheduler.StepLR(optim.Adam([conv, param], lr=0.1), step_size=30, gamma=0.1)
    last = scheduler.get_last_lr()
    assert len(last) == 1 and isinstance(last[0], Tensor) and last[0].shape == () and abs(float(last[0]) - 0.1) < 1e-7
    groups = [{"params": [conv], "weight_decay": 0.01, "lr": 0.9, "amsgrad": True},
              {"params": [param], "lr": 0.66, "eps": 1e-6, "betas": (0.8, 0.88)}]
    optimizer = optim.Adam(params=groups, lr=0.01)
    assert list(optimizer.param_groups[0]) == ["params", "weight_decay", "lr", "amsgrad", "betas", "eps", "maximize"]
    assert list(optimizer.param_groups[1]) == ["params", "lr", "eps", "betas", "weight_decay", "amsgrad", "maximize"]
    lr = optimizer.param_groups[1]["lr"]
    assert isinstance(lr, Parameter) and lr.name == "learning_rate_group_1" and abs(float(lr.asnumpy()) - 0.66) < 1e-7
    assert str(optimizer) == (
        "Adam (\nParameter Group 0\n    amsgrad: True\n    betas: (0.9, 0.999)\n    eps: 1e-08\n    lr: 0.9\n"
        "    maximize: False\n    weight_decay: 0.01\n\nParameter Group 1\n    amsgrad: False\n"
        "    betas: (0.8, 0.88)\n    eps: 1e-06\n    lr: 0.66\n    maximize: False\n    weight_decay: 0.0\n)")
    assert str(optim.SGD([conv], lr=0.1)) == (
        "SGD (\nParameter Group 0\n    dampening: 0.0\n    grad_centralization: False\n    lr: 0.1\n"
        "    maximize: False\n    momentum: 0.0\n    nesterov: False\n    weight_decay: 0.0\n)")
    assert [p.name for p in optimizer.parameters] == ["conv.weight", "param"]
    steps = optim.lr_scheduler.StepLR(optim.SGD([conv], lr=0.1), 2, 0.5)
    seen = []
    for _ in range(5):
        steps.step()
        seen.append(float(steps.get_last_lr()[0]))
    np.testing.assert_allclose(seen, [0.1, 0.05, 0.05, 0.025, 0.025], rtol=1e-7)
    with pytest.raises(ValueError, match="learning rate"):
        optim.Adam([conv], lr=-1.0)
    with pytest.raises(ValueError, match="nesterov"):
        optim.SGD([conv], lr=0.1, momentum=0.0, nesterov=True)


def test_experimental_adam_applies_amsgrad_where_mindspore_ignores_it():
    """Item 5, a decided difference.  MindSpore 2.10's experimental Adam gives the same trajectory
    with and without amsgrad=True (its update never reads max_exp_avg_sq).  minims applies AMSGrad,
    so its result is nn.Adam(use_amsgrad=True)'s (AMSGRAD, from MindSpore) to float32 rounding of
    the beta powers."""
    with_ams = trajectory(lambda p: optim.Adam(p, lr=0.1, amsgrad=True))
    np.testing.assert_allclose(with_ams, AMSGRAD, atol=2e-6)
    assert abs(with_ams[2, 2] - trajectory(lambda p: optim.Adam(p, lr=0.1))[2, 2]) > 1e-5

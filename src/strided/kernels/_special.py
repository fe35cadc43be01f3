"""Vectorised special functions for the elementwise kernels: erf, erfc, erfinv, lgamma,
digamma and the exact (``approximate='none'``) GELU.

NumPy has none of these, and mapping Python's ``math`` over the elements costs about 70 ns
each (70 ms for a million). Here every function is a short sequence of whole-array NumPy
operations on piecewise approximations; no Python code runs per element.

Evaluation
----------
* Pieces (``_piecewise``): the most populated piece of the domain is evaluated over all the
  elements, every other piece only over its own elements, gathered and scattered by index.
  On random data this is several times cheaper than ``np.where`` (whose branches mispredict)
  and costs nothing when one piece holds everything (NaN goes to piece 0 and stays NaN).
* Blocks (``_unary``): large arrays go through in 256 KiB blocks, so that the temporaries
  stay in cache and their memory is reused instead of freshly faulted in.
* Signs, exact selections and special values use bit operations (``_copysign_nonneg``),
  0/1 factors and index fix-ups of the (rare) special elements (``_fix``).

Approximations
--------------
Every approximation is a polynomial or rational function whose coefficients were fitted
for this module in 40-digit arithmetic (mpmath), as near-minimax approximations: linearised
least squares on Chebyshev nodes, with Sanathanan-Koerner reweighting of the denominator and
Lawson's iteratively reweighted least squares toward the equioscillating minimax error
(C. L. Lawson, 1961; C. K. Sanathanan and J. Koerner, IEEE Trans. Autom. Control 8, 1963).
The error quoted next to each coefficient set is that of the fit itself; rounding in the
evaluation comes on top. Most variables are chosen so that the coefficients are positive
(Horner's rule then adds no cancellation). float32 inputs get their own lower-degree sets;
float16 and bfloat16 arrive as float32 (the kernels' opmath dtype).

erf, erfc, in the three-piece structure of W. J. Cody, "Rational Chebyshev approximations for
the error function", Math. Comp. 23 (1969) 631-637:

* ``|x| < 1/2`` (float32: 3/4): ``erf(x) = x P(x^2)``, P of degree 8 (float32: 5);
  ``erfc = 1 - erf``, without cancellation since erf < 0.53 there.
* ``|x| >= 1/2``: ``erfc(|x|) = exp(-x^2) R(|x|)``, R approximating the scaled function
  ``erfcx``: for erfc a rational of degree (7, 8) up to 4 and, beyond, Cody's asymptotic
  form ``(1/sqrt(pi) + u S(u)) / |x|``, ``u = 1/x^2``, S of degree (5, 5); for erf one
  rational of degree (6, 7) on [0.45, 6] weighted for the absolute error of ``1 - erfc``
  (float32: (2, 3)); float32 erfc: one (4, 5) rational on [0.45, 10.1].
* ``exp(-x^2)`` must not inherit the rounding of ``x*x`` (up to 350 ulps after exp near
  the underflow of erfc): ``x*x = p + e`` exactly by Veltkamp's splitting (T. J. Dekker,
  Numer. Math. 18, 1971) and ``exp(-x^2) = exp(-p) (1 - e)``; float32 takes the
  exponential in float64, where ``x*x`` is exact.
* ``erf(-x) = -erf(x)``; ``erfc(-x) = 2 - erfc(x)``, formed exactly without a select.

gelu ``= x Phi(x)``: ``Phi(x) = 1/2 + sign(x) (1/2 - exp(-x^2/2) R(|x|/sqrt 2) / 2)`` with one
rational R for erfcx on [0, 6.5] (float32: [0, 4]), weighted for the absolute error of Phi:
the accuracy of torch's ``x/2 (1 + erf(x/sqrt 2))``, with its signed zeros and NaN at -inf.

erfinv, after M. Giles, "Approximating the erfinv function", GPU Computing Gems Jade
Edition (2011): with ``w = -log((1 - y)(1 + y))`` (``1 - |y|`` exact, so w keeps its
accuracy up to ``|y| = 1 - 2**-53``):

* ``w < 5``: ``erfinv(y) = y R(w)``; for float64 a rational of degree (8, 8), final (fit
  error 5e-18); for float32 a polynomial of degree 9.
* ``w >= 5`` (the tails, ``|y| > 0.9966``): Giles' form ``y P(sqrt(w) - c)``, degree 9 for
  ``sqrt(w) < 4`` and 7 beyond, refitted (relative error below 6e-9, float32 uses it as is);
  float64 then takes one Halley step (cubic convergence: 6e-9 becomes ~1e-24) on
  ``erf(x) = y`` with the residual formed from erfc, ``(1 - |y|) - erfc(|x|)``, so that the
  step keeps its relative accuracy where erf(x) rounds to 1.

lgamma, positive arguments in the manner of the rational approximations of the Boost.Math
and fdlibm lgamma, which factor out the zeros at 1 and 2:

* ``x < 1``: ``lgamma(x) = lgamma(1 + x) - log(x)`` with ``lgamma(1 + u) = u (u - 1) G(u)``
  evaluated at u = x itself: nothing is lost to rounding ``1 + x``, even for tiny x;
* ``1 <= x < 3``: ``u (u - 1) G(u)``, ``u = x - 1`` exact, G a (8, 8) rational: the zeros
  at 1 and 2 are exact and the relative error stays small next to them;
* ``3 <= x < 10``: a (9, 8) rational in ``x - 3``;
* ``x >= 10``: Stirling's series, ``(x - 1/2)(log x - 1) + log(2 pi)/2 - 1/2 +
  sum_k B_2k / (2k (2k-1) x^(2k-1))``, eight terms;
* ``x < 0``: ``lgamma(x) = log(pi / |sin(pi x)|) - lgamma(1 - x)``, the sine from the exact
  reduced argument ``r = x - round(x)`` as ``2t / (1 + t^2)``, ``t = tan(pi r / 2)``
  (NumPy's float64 tan is vectorised, its sin is not), and ``lgamma(1 - x)`` evaluated from
  ``-x`` exactly where the pieces above allow. Next to the zeros of lgamma on the negative
  axis (x = -2.457..., ...) the error is small against the two terms, not the result (as
  in torch).
* float32 computes in float64 with (4, 4), (5, 5) and four-term sets, rounded once.

digamma, by recurrence, an asymptotic series and reflection, with the positive zero
handled as in Boost.Math's digamma on [1, 2]:

* ``x < 1``: ``psi(x) = psi(1 + x) - 1/x``, ``psi(1 + u)`` again evaluated at u = x;
* ``1 <= x < 2``: ``psi(x) = (x - x0) R(x)``, x0 = 1.46163... the positive root held in two
  doubles, R a (6, 6) rational: relative accuracy right up to the root;
* ``2 <= x < 10``: a (9, 8) rational in ``x - 2``;
* ``x >= 10``: ``log x - 1/(2x) - sum_k B_2k / (2k x^2k)``, eight terms;
* ``x < 0``: ``psi(x) = psi(1 - x) - pi cot(pi x)``, the cotangent from ``r = x - round(x)``
  as ``1/tan(pi r)`` for ``|r| < 1/4`` and ``sign(r) tan(pi (1/2 - |r|))`` beyond: exactly
  0 at the half-integers, no loss next to the poles.
* float32 computes in float64 and rounds once.

Accuracy (max error over dense grids, random points, tails and the pieces' boundaries,
against 40-digit mpmath; tests/kernels/test_special.py keeps these as bounds):

=========  =========================  ==========
function   float64                    float32
=========  =========================  ==========
erf        1.8 ulp                    2.3 ulp
erfc       4.2 ulp                    4.6 ulp
erfinv     3.0 ulp                    1.9 ulp
lgamma     4.6 ulp (x > 0); x < 0:    0.5 ulp
           2.2 ulp of the larger
           reflection term
digamma    3.9 ulp (x > 0); x < 0:    0.5 ulp
           2.4 ulp of the larger term
gelu       absolute, like torch's     same
=========  =========================  ==========

Special values follow torch: ``erfinv(+-1) = +-inf`` and NaN outside [-1, 1]; lgamma is
+inf at 0, -0.0, the negative integers and +-inf, and exactly 0 at 1 and 2; digamma is -inf
at 0.0, +inf at -0.0, NaN at the negative integers and -inf; signed zeros are kept by erf,
erfinv and gelu. (One exception: torch's float32 gelu returns NaN for +inf from its
vectorised loop but inf from its scalar loop; this module returns inf, as torch's float64.)
"""

from __future__ import annotations

import numpy as np

_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)


# -- coefficients (fitted for this module, see the docstring) ---------------------------------

# erf(x)/x in z = x^2, z in [0, 1/4] (float64): polynomial, fit error 3.9e-18
_ERF_S64_P = (1.1283791670955126, -0.37612638903183465, 0.11283791670924813,
    -0.026866170632715736, 0.005223977370325571, -0.0008548297524332339,
    0.0001205332431088471, -1.4845583674598062e-05, 1.4723214750399488e-06)
# erf(x)/x in z = x^2, z in [0, 9/16] (float32): polynomial, fit error 1.4e-09
_ERF_S32_P = (1.1283791654964208, -0.37612618756487287, 0.11283376571040257,
    -0.026834624408380615, 0.005114345230519757, -0.0006749510992432989)
# erfcx(a) on [0.45, 6], for the absolute error of erf = 1 - erfc: (6, 7), fit error 7.8e-19
_ERFCXA64_P = (1.0000000000277678, 1.487103425243061, 1.104887058231566, 0.49215573656775324,
    0.13682481235762214, 0.022435437114622616, 0.0017096995326821116)
_ERFCXA64_Q = (1.0, 2.615482592841572, 3.0561431236425856, 2.077414176542776,
    0.8922965309244549, 0.24402227425243714, 0.03976630377515199, 0.003030347767661901)
# erfcx(a) on [0.7, 4], for the absolute error of erf = 1 - erfc: (2, 3), fit error 1.5e-09
_ERFCXA32_P = (1.0003283500170423, 0.7193901276006397, 0.21818200576668365)
_ERFCXA32_Q = (1.0, 1.8503095224726884, 1.297096241327229, 0.3848087627029004)
# erfcx(a) on [0.45, 4], relative error: rational (7, 8), fit error 2.1e-18
_ERFCXM64_P = (0.9999999999859074, 1.7178885181039516, 1.468913617946121, 0.7755553305153122,
    0.269507715337068, 0.061396675969316125, 0.00852007720829105, 0.0005624991943568646)
_ERFCXM64_Q = (1.0, 2.846267684957184, 3.680582779579498, 2.834633345051283,
    1.4285789566304155, 0.485237860481855, 0.10932147147836338, 0.015101435107329832,
    0.0009970040440770212)
# (a erfcx(a) - 1/sqrt(pi)) / u, u = 1/a^2 in [0, 1/16]: rational (5, 5), fit error 3.2e-19
_ERFCXL64_P = (-0.2820947917738769, -6.888416751243222, -53.87767756695076,
    -154.37457628898636, -130.82709842679427, -6.992705075226118)
_ERFCXL64_Q = (1.0, 25.918801594761085, 226.11959655703845, 802.3525128649352,
    1100.4720964234186, 428.50454614163226)
# erfcx(a) on [0.45, 10.1] (float32): rational (4, 5), fit error 9.2e-10
_ERFCX32_P = (1.0000071448653425, 1.3069230766672788, 0.8097013624476066, 0.26907021807068743,
    0.042528441319728126)
_ERFCX32_Q = (1.0, 2.435375544692694, 2.5573881870499857, 1.4726140206746512,
    0.476927440452963, 0.07537938952173112)
# erfcx(a) on [0, 6.5], weighted for the absolute error of Phi: rational (7, 8), fit error 1.9e-19
_GELU64_P = (1.0, 1.5867906503116687, 1.2705298511503864, 0.6259764303877007,
    0.20177629025930124, 0.04220435559361821, 0.005297732790574508, 0.00030890289062815223)
_GELU64_Q = (1.0, 2.7151698174071814, 3.3342709082391817, 2.4253812213537778,
    1.146749062521575, 0.3623216423204273, 0.07508011940935115, 0.009389924728517216,
    0.0005475178661447332)
# erfcx(a) on [0, 4], weighted for the absolute error of Phi: rational (3, 4), fit error 5.3e-10
_GELU32_P = (0.9999999994817752, 0.8422389222364259, 0.3458480503237237, 0.05620434741822064)
_GELU32_Q = (1.0, 1.9706180098507826, 1.5694542870641475, 0.6087608927868392,
    0.09994493389329333)
# erfinv(y)/y in w = -log(1 - y^2) on [0, 5] (float64, final): rational (8, 8), fit error 4.7e-18
_EINV_C64_P = (0.886226925452758, 0.3495293515491169, 0.09340992608266704,
    0.017984167920534453, 0.002560336625841805, 0.00027569241548930433, 2.186139732950214e-05,
    1.163525984227422e-06, 3.212415119454974e-08)
_EINV_C64_Q = (1.0, 0.13260225077727833, 0.05765458956767241, 0.006105826780290737,
    0.0010330444643747126, 7.953991752138906e-05, 5.546324209913626e-06,
    2.3637561218953034e-07, 1.951837749805152e-09)
# erfinv(y)/y in w on [0, 5] (float32): polynomial, fit error 5.6e-09
_EINV_C32_P = (0.8862269204970105, 0.2320138179742026, 0.01154865420977887,
    -0.0023342967813342343, -0.0001274810622019278, 4.456489122210212e-05,
    3.983344183354861e-06, -1.9764816591972283e-06, 2.210326332769056e-07,
    -8.791109386914179e-09)
# erfinv(y)/y in sqrt(w) - 3.1 on [sqrt 5, 4] (float32, float64 guess): poly, fit error 5.7e-09
_EINV_T1_P = (2.933231655726987, 1.0033560694798707, 0.007461200929996941,
    -0.005695358870229934, 0.004109306342041455, -0.002721785672870338, 0.0013638147398458875,
    -0.0002851736847183271, -0.00020265638331366616, 0.00012896569450959833)
# erfinv(y)/y in sqrt(w) - 5, sqrt(w) in [4, 6.1] (float64 guess): polynomial, fit error 7.7e-10
_EINV_T2_P = (4.849906397745423, 1.01030047021853, -0.0001386145457896763,
    -0.00021507676307032456, 7.553393891329257e-05, -1.9539106182093405e-05,
    5.154290725417348e-06, -1.1773601287595253e-06)
# lgamma(1 + u) / (u (u - 1)) on u in [0, 2]: rational (8, 8), fit error 5.0e-20
_LG_G_P = (0.5772156649015329, 1.8389544875629644, 2.3022547095485275, 1.4394614851536929,
    0.4726364596398048, 0.07854600229234382, 0.005806961450006769, 0.00013813795643349055,
    2.2508202401864228e-07)
_LG_G_Q = (1.0, 3.610792261573651, 5.253447492287914, 3.9530846251148217, 1.644275118816152,
    0.3751466181473042, 0.04382216956533855, 0.002233837964411013, 3.358288029642899e-05)
# lgamma(x) in x - 3 on [3, 10]: rational (9, 8), fit error 1.9e-19
_LG_H_P = (0.6931471805599453, 1.678836405623373, 1.530081478413556, 0.6947853845602872,
    0.17257153867885439, 0.023898885323436637, 0.0017850206154941951, 6.550784725606127e-05,
    9.686049886504756e-07, 3.5292003732619817e-09)
_LG_H_Q = (1.0, 1.0907525728001146, 0.47044129513406646, 0.10238444078466721,
    0.011912328592828042, 0.0007248051634879412, 2.098183040706814e-05,
    2.3306733572842772e-07, 5.655042307369682e-10)
# digamma(x) / (x - x0) in x - 1.5 on [1, 2]: rational (6, 6), fit error 1.7e-20
_DG_D_P = (0.9510558760318328, 1.1679429791287554, 0.5154440171068305, 0.10043652077384559,
    0.00838321741174525, 0.00023010552443747823, 4.335711216279635e-07)
_DG_D_Q = (1.0, 1.6734772798532653, 1.0344632973704118, 0.29916862705673947,
    0.04169094951217425, 0.0025328451929116608, 4.749338465487174e-05)
# digamma(x) in x - 2 on [2, 10]: rational (9, 8), fit error 9.1e-19
_DG_P_P = (0.42278433509846713, 1.2636824148040935, 1.0955479377355506, 0.4280313721775066,
    0.08561570074224441, 0.00896007842930353, 0.00046704024057237214, 1.0557406621675786e-05,
    7.366996694746558e-08, 2.6621369395020534e-11)
_DG_P_Q = (1.0, 1.4635082158655657, 0.8366878949968306, 0.24081201940965732,
    0.03740303419528058, 0.0031161899541842127, 0.00013006555587877087, 2.31744527519179e-06,
    1.1903558247362468e-08)
# lgamma(1 + u) / (u (u - 1)) on [0, 2] for float32 (in float64): rational (4, 4), fit error 1.1e-10
_LG_G32_P = (0.5772156648376208, 0.8359206856223395, 0.340270478682971, 0.03622183708729434,
    0.00026499831405800786)
_LG_G32_Q = (1.0, 1.8730816066428422, 1.116068551756697, 0.23204975353965593,
    0.012385667785034436)
# lgamma(x) in x - 3 on [3, 10] for float32 (in float64): rational (5, 5), fit error 1.7e-11
_LG_H32_P = (0.6931471805482443, 1.3264747657427813, 0.807987626306521, 0.19108864693143984,
    0.016827635420270746, 0.0003998281156908257)
_LG_H32_Q = (1.0, 0.5824021809655768, 0.10544513136587186, 0.006442901953322688,
    9.230555288565526e-05, -1.3467328474321448e-07)


# -- evaluation helpers ------------------------------------------------------------------

def _poly(v, c):
    """Horner's rule for ``sum c[k] v**k`` (coefficients lowest degree first), in place."""
    r = v * c[-1]
    r += c[-2]
    for ck in c[-3::-1]:
        r *= v
        r += ck
    return r


def _rational(v, p, q):
    r = _poly(v, p)
    r /= _poly(v, q)
    return r


def _piecewise(key, edges, branches, args):
    """``branches[k](*args)`` where ``edges[k-1] <= key < edges[k]`` (NaN keys: piece 0).

    The most populated piece is evaluated over all the elements, the others only over
    their own elements, gathered by index and scattered back: this costs far less than
    NumPy's ``where`` over random masks, and nothing when one piece holds everything.
    Every branch must return a new array and must tolerate (not raise on) arguments outside
    its piece, whose results are overwritten."""
    n = key.size
    ge = [key >= e for e in edges]
    masks = [~ge[0]] + [ge[k] & ~ge[k + 1] for k in range(len(edges) - 1)] + [ge[-1]]
    counts = [int(np.count_nonzero(m)) for m in masks]
    base = counts.index(max(counts))
    out = branches[base](*args)
    if counts[base] == n:
        return out
    for k, (m, c) in enumerate(zip(masks, counts)):
        if k != base and c:
            idx = np.flatnonzero(m)
            out[idx] = branches[k](*[a[idx] for a in args])
    return out


def _fix(out, mask, value):
    """Set the (rare) special-value elements: a cheap test first, an index only if needed.
    ``value``: a scalar, an array indexed like ``out``, or a function of the indices."""
    if mask.any():
        idx = np.flatnonzero(mask)
        if callable(value):
            value = value(idx)
        elif isinstance(value, np.ndarray):
            value = value[idx]
        out[idx] = value
    return out


# Large arrays go through in blocks of 256 KiB: the dozens of temporaries of a block stay in
# cache, and NumPy reuses their memory instead of faulting in fresh pages for every one.
_BLOCK_BYTES = 1 << 18


def _unary(fn64, fn32):
    """A float64 and a float32 implementation over flat arrays as one array function:
    float32 (and narrower) inputs use ``fn32``, the result keeps the input's dtype."""
    def flat(x):
        if x.dtype == _F64:
            return fn64(x)
        if x.dtype == _F32:
            return fn32(x)
        if x.dtype.kind in "fV" and x.dtype.itemsize == 2:     # float16, bfloat16
            return fn32(x.astype(_F32)).astype(x.dtype)
        return fn64(x.astype(_F64))      # bool, integers: float64 results

    def apply(x):
        x = np.asarray(x)
        shape = x.shape
        x = x.reshape(-1)
        block = _BLOCK_BYTES // max(x.dtype.itemsize, 4)
        with np.errstate(all="ignore"):
            if x.size <= block:
                return flat(x).reshape(shape)
            out = np.empty(x.size, _F64 if x.dtype.kind in "biu" else x.dtype)
            for i in range(0, x.size, block):
                out[i:i + block] = flat(x[i:i + block])
        return out.reshape(shape)

    apply.__name__ = fn64.__name__.strip("_").removesuffix("64")
    apply.__doc__ = fn64.__doc__
    return apply


_SIGN = {_F32: np.uint32(1 << 31), _F64: np.uint64(1 << 63)}
_UINT = {_F32: np.uint32, _F64: np.uint64}


def _copysign_nonneg(v, x):
    """``copysign(v, x)`` in place for ``v >= 0`` (or NaN): OR in the sign bit of x, cheaper
    than ``np.copysign``."""
    u = _UINT[v.dtype]
    bits = x.view(u) & _SIGN[v.dtype]
    vb = v.view(u)
    vb |= bits
    return v


def _exp_neg_sq(a):
    """``exp(-a*a)`` for float64 ``0 <= a <= 28`` without the rounding error of ``a*a``:
    ``a*a = p + e`` exactly (Veltkamp's split of a into 26-bit halves), and
    ``exp(-p - e) = exp(-p) (1 - e)`` since ``|e| <= ulp(p)/2``."""
    p = a * a
    c = a * 134217729.0          # 2**27 + 1
    hi = c - (c - a)
    lo = a - hi
    e = hi * hi
    e -= p
    e += 2.0 * hi * lo
    e += lo * lo
    r = np.exp(-p)
    e *= r
    r -= e
    return r


_TWO_OVER_SQRT_PI = 1.1283791670955126
_INV_SQRT_PI = 0.5641895835477563


# -- erf, erfc ------------------------------------------------------------------------------

def _erf_small(x, c):
    """erf(x) = x P(x^2) for |x| < 1/2."""
    r = _poly(x * x, c)
    r *= x
    return r


def _erfc_mid64(a, e=None):
    """erfc(a) for float64 0.45 <= a < 4: exp(-a^2) R(a) (``e``: exp(-a^2) if known)."""
    r = _rational(a, _ERFCXM64_P, _ERFCXM64_Q)
    r *= _exp_neg_sq(a) if e is None else e
    return r


def _erfc_large64(a, e=None):
    """erfc(a) for float64 a >= 4: exp(-a^2) (1/sqrt(pi) + u R(u)) / a, u = 1/a^2 (0 from
    a = 28 on, where erfc has underflowed)."""
    a = np.minimum(a, 28.0)
    u = 1 / a
    u *= u
    r = _rational(u, _ERFCXL64_P, _ERFCXL64_Q)
    r *= u
    r += _INV_SQRT_PI
    r /= a
    r *= _exp_neg_sq(a) if e is None else e
    return r


def _exp_neg_sq32(a):
    """exp(-a*a) for float32 a, taken in float64 (where a*a is exact)."""
    e = a.astype(_F64)
    e *= e
    np.negative(e, out=e)
    return np.exp(e, out=e)


def _erfc_tail32(a):
    """erfc(a) for float32 a >= 0.45: exp(-a^2) R(a), the exponential in float64."""
    a = np.minimum(a, np.float32(10.1))
    r = _rational(a, _ERFCX32_P, _ERFCX32_Q)
    r *= _exp_neg_sq32(a)
    return r


def _erf_tail(x, a, p, q, amax):
    """erf(x) = sign(x) (1 - exp(-x^2) R(|x|)) for |x| >= 1/2, absolute accuracy."""
    a = np.minimum(a, amax)
    r = _rational(a, p, q)
    a *= a
    np.negative(a, out=a)
    r *= np.exp(a, out=a)
    np.subtract(1, r, out=r)
    return _copysign_nonneg(r, x)


def _erfc_reflect(x, r):
    """erfc(x) from r = erfc(|x|): r for x >= 0, 2 - r for x < 0 (exactly, no select)."""
    s = _copysign_nonneg(np.ones_like(r), x)
    r *= s
    s -= 1
    r -= s
    return r


def _erf64(x):
    """erf of a flat float64 array."""
    a = np.abs(x)
    return _piecewise(a, (0.5,), (
        lambda x, a: _erf_small(x, _ERF_S64_P),
        lambda x, a: _erf_tail(x, a, _ERFCXA64_P, _ERFCXA64_Q, 6.0)), (x, a))


def _erf32(x):
    a = np.abs(x)
    return _piecewise(a, (0.75,), (
        lambda x, a: _erf_small(x, _ERF_S32_P),
        lambda x, a: _erf_tail(x, a, _ERFCXA32_P, _ERFCXA32_Q, np.float32(4.0))), (x, a))


def _erfc_small(x, c):
    r = _erf_small(x, c)
    return np.subtract(1, r, out=r)


def _erfc64(x):
    """erfc of a flat float64 array."""
    a = np.abs(x)
    return _piecewise(a, (0.5, 4.0), (
        lambda x, a: _erfc_small(x, _ERF_S64_P),
        lambda x, a: _erfc_reflect(x, _erfc_mid64(a)),
        lambda x, a: _erfc_reflect(x, _erfc_large64(a))), (x, a))


def _erfc32(x):
    a = np.abs(x)
    return _piecewise(a, (0.5,), (
        lambda x, a: _erfc_small(x, _ERF_S32_P),
        lambda x, a: _erfc_reflect(x, _erfc_tail32(a))), (x, a))


erf = _unary(_erf64, _erf32)
erfc = _unary(_erfc64, _erfc32)


# -- gelu -----------------------------------------------------------------------------------

def _gelu_coefficients(p, q):
    """R(a / sqrt 2) as a rational in a, its numerator times -1/2."""
    return (tuple(-0.5 * c * 0.5 ** (k / 2) for k, c in enumerate(p)),
            tuple(c * 0.5 ** (k / 2) for k, c in enumerate(q)))


_GELU64_R = _gelu_coefficients(_GELU64_P, _GELU64_Q)
_GELU32_R = _gelu_coefficients(_GELU32_P, _GELU32_Q)


def _gelu_impl(x, r, big):
    """x Phi(x), Phi(x) = 1/2 + sign(x) (1/2 - erfc(|x|/sqrt 2)/2): absolute accuracy like
    torch's x/2 (1 + erf(x/sqrt 2)), with its signed zeros and nan at -inf."""
    e = x * x
    e *= -0.5
    np.exp(e, out=e)                     # exp(-x^2/2)
    a = np.abs(x)
    h = _rational(a, *r)                 # -erfcx(|x|/sqrt 2)/2
    h *= e
    h += 0.5                             # 1/2 - erfc/2 >= 0
    _copysign_nonneg(h, x)
    h += 0.5
    h *= x
    # |x| beyond the rational's range (its powers overflow): Phi is 0 or 1 there
    return _fix(h, a > big, lambda i: x[i] * (x[i] > 0))


def _gelu64(x):
    """gelu(x) = x (1 + erf(x / sqrt 2)) / 2 of a flat float64 array."""
    return _gelu_impl(x, _GELU64_R, 1e30)


def _gelu32(x):
    return _gelu_impl(x, _GELU32_R, 1e8)


gelu = _unary(_gelu64, _gelu32)


# -- erfinv ---------------------------------------------------------------------------------

def _erfinv_central(ay, w, p):
    """|y| P(w), P a polynomial or (float64) a rational (p, q) pair, for w < 5."""
    r = _rational(w, *p) if isinstance(p[0], tuple) else _poly(w, p)
    r *= ay
    return r


def _erfinv_tail(ay, w, p, c):
    """Giles' tail form |y| P(sqrt(w) - c)."""
    s = np.sqrt(w)
    s -= c
    r = _poly(s, p)
    r *= ay
    return r


def _halley_large(ax, ay):
    """One Halley step on erf(x) = |y| in the tails (|x| > 2), from the residual
    ``(1 - |y|) - erfc(|x|)``: 1 - |y| is exact, erfc accurate to a few ulps."""
    e = _exp_neg_sq(np.minimum(ax, 28.0))
    r = _piecewise(ax, (4.0,), (_erfc_mid64, _erfc_large64), (ax, e))
    np.subtract(1 - ay, r, out=r)
    return _halley(ax, r, e)


def _halley(x, f, e):
    """x - u / (1 + x u), u = f / f', f' = 2/sqrt(pi) exp(-x^2), f''/f' = -2x."""
    e *= _TWO_OVER_SQRT_PI
    f /= e
    d = x * f
    d += 1
    f /= d
    return x - f


def _erfinv_w(ay):
    """w = -log((1 - |y|)(1 + |y|)), accurate also as |y| -> 1 (1 - |y| is exact)."""
    w = 1 - ay
    w *= 1 + ay
    np.log(w, out=w)
    return np.negative(w, out=w)


def _erfinv64(y):
    """erfinv of a flat float64 array."""
    ay = np.abs(y)
    w = _erfinv_w(ay)

    def tail(p, c):
        return lambda ay, w: _halley_large(_erfinv_tail(ay, w, p, c), ay)

    ax = _piecewise(w, (5.0, 16.0), (
        lambda ay, w: _erfinv_central(ay, w, (_EINV_C64_P, _EINV_C64_Q)),
        tail(_EINV_T1_P, 3.1), tail(_EINV_T2_P, 5.0)), (ay, w))
    _fix(ax, ay == 1, np.inf)
    return _copysign_nonneg(ax, y)


def _erfinv32(y):
    ay = np.abs(y)
    w = _erfinv_w(ay)
    ax = _piecewise(w, (5.0,), (
        lambda ay, w: _erfinv_central(ay, w, _EINV_C32_P),
        lambda ay, w: _erfinv_tail(ay, w, _EINV_T1_P, 3.1)), (ay, w))
    _fix(ax, ay == 1, np.inf)
    return _copysign_nonneg(ax, y)


erfinv = _unary(_erfinv64, _erfinv32)


# -- lgamma ---------------------------------------------------------------------------------

_HALF_LOG_2PI_MINUS_HALF = 0.4189385332046727      # log(2 pi)/2 - 1/2
# B_2k / (2k (2k - 1)), k = 1..8: Stirling's series for lgamma
_STIRLING = (0.08333333333333333, -0.002777777777777778, 0.0007936507936507937,
             -0.0005952380952380953, 0.0008417508417508417, -0.0019175269175269176,
             0.00641025641025641, -0.029550653594771242)
_TWO_POW_52 = 4503599627370496.0


def _lgamma_below1(y, w, k):
    """lgamma(y) = y (y - 1) G(y) - log(y), y < 1 (lgamma(1 + y) = y (y - 1) G(y))."""
    r = _rational(y, *k[0])
    r *= y
    r *= y - 1
    r -= np.log(y)
    return r


def _lgamma_1to3(y, w, k):
    """u (u - 1) G(u) with u = y - 1 = w, exact."""
    r = _rational(w, *k[0])
    r *= w
    r *= w - 1
    r += 0.0                                  # +0.0 at 1 (not -0.0), as torch
    return r


def _lgamma_3to10(y, w, k):
    return _rational(w - 2, *k[1])


def _lgamma_stirling(y, w, k):
    """(y - 1/2)(log y - 1) + log(2 pi)/2 - 1/2 + sum B_2k / (2k (2k-1) y^(2k-1)), y >= 10."""
    inv = 1 / y
    s = _poly(inv * inv, k[2])
    s *= inv
    s += _HALF_LOG_2PI_MINUS_HALF
    r = np.log(y)
    r -= 1
    r *= y - 0.5
    r += s
    return r


def _reflected(x):
    """For reflection: y = 1 - x where x < 0, else x; w = y - 1 without rounding error
    (|x| where x < 0); the indices of the negative elements (None if there are none)."""
    neg = x < 0
    y = np.abs(x)
    if not neg.any():
        return y, y - 1, None
    idx = np.flatnonzero(neg)
    w = y - 1
    w[idx] = y[idx]
    y[idx] += 1
    return y, w, idx


def _lgamma_impl(x, k):
    y, w, idx = _reflected(x)
    out = _piecewise(y, (1.0, 3.0, 10.0), (
        lambda y, w: _lgamma_below1(y, w, k), lambda y, w: _lgamma_1to3(y, w, k),
        lambda y, w: _lgamma_3to10(y, w, k), lambda y, w: _lgamma_stirling(y, w, k)), (y, w))
    if idx is not None:                       # lgamma(x) = log(pi / |sin(pi x)|) - lgamma(1 - x)
        xn = x[idx]
        t = xn - np.rint(xn)                  # exact; 0 at the poles
        t *= np.pi / 2
        np.tan(t, out=t)                      # |sin(pi x)| = 2|t| / (1 + t^2), t = tan(pi r/2)
        s = t * t
        s += 1
        s *= np.pi / 2
        np.abs(t, out=t)
        s /= t
        np.log(s, out=s)
        s -= out[idx]
        s[xn <= -_TWO_POW_52] = np.inf        # integers (poles) and -inf
        out[idx] = s
    return out


# coefficient sets: (G, H, Stirling terms); float32 needs about half the degrees
_LGAMMA64_K = ((_LG_G_P, _LG_G_Q), (_LG_H_P, _LG_H_Q), _STIRLING)
_LGAMMA32_K = ((_LG_G32_P, _LG_G32_Q), (_LG_H32_P, _LG_H32_Q), _STIRLING[:4])


def _lgamma64(x):
    """lgamma of a flat float64 array."""
    return _lgamma_impl(x, _LGAMMA64_K)


def _lgamma32(x):
    """float32: the float64 algorithm with float32-grade approximations, rounded once."""
    return _lgamma_impl(x.astype(_F64), _LGAMMA32_K).astype(_F32)


lgamma = _unary(_lgamma64, _lgamma32)


# -- digamma --------------------------------------------------------------------------------

_DIGAMMA_ROOT_M1_HI = 1.4616321449683622 - 1     # exact; the root is 1.4616321449683622 + lo
_DIGAMMA_ROOT_LO = 9.549995429965697e-17
# B_2k / (2k), k = 1..8: the asymptotic series for digamma
_DIGAMMA_ASYMPTOTIC = (0.08333333333333333, -0.008333333333333333, 0.003968253968253968,
                       -0.004166666666666667, 0.007575757575757576, -0.021092796092796094,
                       0.08333333333333333, -0.4432598039215686)


def _digamma_root(u):
    """psi(1 + u) = (u - (x0 - 1)) R(u - 1/2), 0 <= u < 1, x0 - 1 held in two doubles."""
    r = _rational(u - 0.5, _DG_D_P, _DG_D_Q)
    d = u - _DIGAMMA_ROOT_M1_HI
    d -= _DIGAMMA_ROOT_LO
    r *= d
    return r


def _digamma_below1(y, w):
    """psi(y) = psi(1 + y) - 1/y (-inf at 0)."""
    r = _digamma_root(y)
    r -= 1 / y
    return r


def _digamma_1to2(y, w):
    return _digamma_root(w)


def _digamma_2to10(y, w):
    return _rational(w - 1, _DG_P_P, _DG_P_Q)


def _digamma_asymptotic(y, w):
    """log y - 1/(2y) - sum B_2k / (2k y^2k), y >= 10."""
    inv = 1 / y
    u = inv * inv
    s = _poly(u, _DIGAMMA_ASYMPTOTIC)
    s *= u
    inv *= 0.5
    s += inv
    r = np.log(y)
    r -= s
    return r


def _pi_cot_pi(x):
    """pi cot(pi x), from the exact ``r = x - round(x)``: pi / tan(pi r) for |r| < 1/4,
    pi sign(r) tan(pi (1/2 - |r|)) beyond (exactly 0 at half-integers), selected by 0/1
    factors; NaN at the integers."""
    r = x - np.rint(x)
    ar = np.abs(r)
    m = (ar < 0.25).astype(x.dtype)
    one_m = 1 - m
    arg = 0.5 - ar                            # exact for |r| >= 1/4
    arg *= one_m
    arg += m * r
    arg *= np.pi
    t = np.tan(arg, out=arg)
    num = np.copysign(one_m, r)
    num *= t
    num += m
    t *= m
    t += one_m
    num /= t
    num *= np.pi
    num[r == 0] = np.nan
    return num


def _digamma64(x):
    """digamma of a flat float64 array."""
    y, w, idx = _reflected(x)
    out = _piecewise(y, (1.0, 2.0, 10.0), (_digamma_below1, _digamma_1to2, _digamma_2to10,
                                           _digamma_asymptotic), (y, w))
    if idx is not None:                       # psi(x) = psi(1 - x) - pi cot(pi x)
        res = out[idx]
        res -= _pi_cot_pi(x[idx])
        out[idx] = res
    _fix(out, x == 0, lambda i: np.copysign(np.inf, -x[i]))   # -inf at 0.0, +inf at -0.0
    return out


def _digamma32(x):
    return _digamma64(x.astype(_F64)).astype(_F32)


digamma = _unary(_digamma64, _digamma32)

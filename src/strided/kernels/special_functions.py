"""Kernels of torch.special and of the elementwise torch operators that came with it (issue
14): Bessel, Airy, error-function relatives, zeta, polygamma, the incomplete gamma
functions, the orthogonal polynomials, xlogy/xlog1py, and ldexp, frexp, gcd, lcm, heaviside,
nextafter, logaddexp2, logcumsumexp, signbit, deg2rad, rad2deg, complex, polar, angle,
isreal, mvlgamma.

Note [Special functions as Chebyshev series]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
NumPy has none of these functions. Each one here is a few whole-array pieces, and every
smooth piece is a Chebyshev series ``sum c_k T_k(t)`` of a variable ``t`` in [-1, 1]
evaluated by Clenshaw's recurrence (``_cheb``). The coefficients below were computed for
this module with mpmath at 40 digits (interpolation at the Chebyshev points, cut where the
terms fall below 1e-18 of the largest; the script is tests/special/fit_coefficients.py),
so each series carries the function to float64's rounding level over its piece. float32
inputs use the same series cut at 1e-9 (fewer terms), computed in float64 and rounded once.

What is smooth and what is factored out:

* ``i0e``, ``i1e`` (``i0 = exp|x| i0e``): ``i0e(x)`` and ``i1e(x)/x`` in ``t = x/4 - 1`` on
  [0, 8]; beyond, ``sqrt(x) i0e(x)``, ``sqrt(x) i1e(x)`` in ``t = 16/x - 1``.
* ``k0``, ``k1``: on (0, 2] the logarithmic singularity is taken out,
  ``k0 + log(x/2) i0`` and ``x (k1 - log(x/2) i1)`` are series in ``x^2``; beyond 2,
  ``sqrt(x) e^x k`` in ``t = 4/x - 1``.
* ``j0``, ``j1``, ``y0``, ``y1``: on [0, 5], ``j0``, ``j1/x`` and (singular parts out)
  ``y0 - 2/pi log(x) j0``, ``(y1 - 2/pi (log(x) j1 - 1/x)) / x`` in ``x^2``; beyond 5
  Hankel's form ``sqrt(2/(pi x)) (P cos(phi) -+ Q sin(phi))``, ``phi = x - (2n+1) pi/4``, with
  ``P`` and ``x Q`` series in ``t = 50/x^2 - 1``; ``cos(phi)``/``sin(phi)`` are formed from
  ``cos x`` and ``sin x`` (no rounding of ``x - pi/4``).
* ``airy_ai``: a series on [-5, 2]; beyond 2 ``Ai = exp(-zeta) S / (2 sqrt(pi) x^(1/4))``,
  ``zeta = 2/3 x^(3/2)``, ``S`` in ``zeta0/zeta``; below -5 the modulus-phase form
  ``(sin(zeta + pi/4) P - cos(zeta + pi/4) Q/zeta) / (sqrt(pi) |x|^(1/4))``.
* ``erfcx``: a series on [0, 3], ``x erfcx(x)`` in ``3/x`` beyond; ``erfcx(-x) = 2 e^(x^2)
  - erfcx(x)``.

The edge values (signed zeros, infinities, NaN, the domain ends) follow torch's kernels, as
observed: e.g. ``i0(inf)`` is NaN there and ``airy_ai(-inf)`` too.
"""

from __future__ import annotations

import math

import numpy as np

from ..core import dtypes as dt
from ..core.checks import check
from . import _special
from . import elementwise as _ew
from ._special import _fix, _piecewise, _unary
from .elementwise import COMPLEX, FLOATS, INTS, REAL, Op, elementwise

_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)
F = frozenset((dt.float32, dt.float64))


def _c(*cs):
    """A coefficient table: (float64 series, float32 series)."""
    m = max(abs(c) for c in cs)
    last = max(i for i, c in enumerate(cs) if abs(c) > 1e-9 * m)
    return cs, cs[:last + 1]


# -- coefficient tables (Note [Special functions as Chebyshev series]) ---------------------

_I0E_A = _c(
    0.33839763720473803, -0.3046826723431984, 0.17162090152220877, -0.09490109704804764,
    0.04930528423967071, -0.02373741480589947, 0.010546460394594998, -0.004324309995050576,
    0.0016394756169413357, -0.0005763755745385824, 0.00018850288509584165, -5.754195010082104e-05,
    1.6448448070728896e-05, -4.4167383584587505e-06, 1.1173875391201037e-06,
    -2.670793853940612e-07, 6.046995022541919e-08, -1.300025009986248e-08, 2.6598237246823866e-09,
    -5.189795601635263e-10, 9.675809035373237e-11, -1.726826291441556e-11, 2.95505266312964e-12,
    -4.856446783111929e-13, 7.676185498604936e-14, -1.1685332877993451e-14, 1.715391285555133e-15,
    -2.431279846547955e-16, 3.3307945188222384e-17, -4.4153416464793395e-18,
    5.669178006921496e-19,
)
_I0E_B = _c(
    0.4022452055070544, 0.0033691164782556943, 6.889758346916825e-05, 2.8913705208347567e-06,
    2.0489185894690638e-07, 2.266668990498178e-08, 3.3962320257083865e-09, 4.94060238822497e-10,
    1.1889147107846439e-11, -3.1499165279632416e-11, -1.3215811840447713e-11,
    -1.7941785315068062e-12, 7.180124451383666e-13, 3.8527783827421426e-13, 1.54008621752141e-14,
    -4.150569347287222e-14, -9.554846698828307e-15, 3.8116806693526224e-15,
    1.7725601330565263e-15, -3.425485619677219e-16, -2.8276239805165836e-16,
    3.461222867697461e-17, 4.46562142029676e-17, -4.830504485944182e-18, -7.233180487874754e-18,
    9.921475412173699e-19, 1.193650890845982e-18,
)
_I1E_A = _c(
    0.12629359322181682, -0.17641651835783406, 0.1026436586898471, -0.05294598120809499,
    0.024726449030626516, -0.010564084894626197, 0.004156422944312888, -0.0015135724506312532,
    0.0005122859561685758, -0.00016176081582589674, 4.781565107550054e-05,
    -1.3273163656039436e-05, 3.4702513081376785e-06, -8.568720264695455e-07,
    2.0032947535521353e-07, -4.445059128796328e-08, 9.381537386495773e-09,
    -1.8872497517228294e-09, 3.625590281552117e-10, -6.663489723502027e-11,
    1.1736186298890901e-11, -1.9839743977649436e-12, 3.223793365945575e-13,
    -5.042185504727912e-14, 7.600684294735408e-15, -1.1055969477353862e-15,
    1.5536319577362005e-16, -2.111421214358166e-17, 2.7779141127610464e-18,
    -3.541581772542136e-19,
)
_I1E_B = _c(
    0.38928811750914005, -0.009761097491361469, -0.00011058893876262371, -3.882564808877691e-06,
    -2.512236237870209e-07, -2.6314688468895196e-08, -3.835380385964237e-09,
    -5.589743462196584e-10, -1.8974958123505413e-11, 3.2526035830154884e-11,
    1.4125807436613782e-11, 2.0356285441470896e-12, -7.198551776245908e-13,
    -4.0835511110921974e-13, -2.1015418427726643e-14, 4.272440016711951e-14,
    1.0420276984128802e-14, -3.8144030724370075e-15, -1.8803547755107825e-15,
    3.3082023109209285e-16, 2.96262899764595e-16, -3.209525921993424e-17, -4.6503053684893586e-17,
    4.414348323071708e-18, 7.517296310842105e-18, -9.314178867326884e-19, -1.242193275194891e-18,
)
_K0_A = _c(
    -0.2676636966169514, 0.3442898999246285, 0.0359799365153615, 0.001264615411446926,
    2.286212103119452e-05, 2.5347910790261494e-07, 1.904516377220209e-09, 1.0349695257633625e-11,
    4.2598161427910826e-14, 1.3744654358807508e-16, 3.5708965285083736e-19,
)
_K1_A = _c(
    0.7626501136694739, -0.3531559607765449, -0.12261118082265715, -0.006975723859639864,
    -0.0001730288957513052, -2.4334061415659684e-06, -2.213387630734726e-08,
    -1.4114883926335278e-10, -6.666901694199329e-13, -2.427449850519366e-15,
    -7.023863479386288e-18,
)
_K0_B = _c(
    1.2201515410329777, -0.0314481013119645, 0.0015698838857300533, -0.00012849549581627802,
    1.39498137188765e-05, -1.8317555227191195e-06, 2.766813639445015e-07, -4.660489897687948e-08,
    8.574034017414225e-09, -1.6975345093890614e-09, 3.5773972814003283e-10,
    -7.957489244477396e-11, 1.8559491149549264e-11, -4.514597883374519e-12,
    1.1403405882073441e-12, -2.9800969231481784e-13, 8.032890775068375e-14,
    -2.2275133267462965e-14, 6.340076476276646e-15, -1.848593377920907e-15,
    5.5120559994043335e-16, -1.6782311257549006e-16, 5.2103917776435543e-17,
    -1.6475805939842632e-17, 5.3004337711773354e-18, -1.7331712005821001e-18,
)
_K1_B = _c(
    1.3603130952422213, 0.10392373657681724, -0.002857816859622779, 0.00019521551847135162,
    -1.936197974166083e-05, 2.406484947837217e-06, -3.5019606030878126e-07,
    5.7410841254500495e-08, -1.0345762465678097e-08, 2.0150497551970347e-09,
    -4.1903547593419254e-10, 9.218315187605315e-11, -2.129967838427791e-11, 5.139639673482343e-12,
    -1.2891739609498229e-12, 3.348419666052243e-13, -8.976705182010146e-14,
    2.4771544242195988e-14, -7.0198370892147685e-15, 2.038703166239861e-15,
    -6.057047270643018e-16, 1.8380935752430455e-16, -5.689462849193648e-17,
    1.7940510478863572e-17, -5.7567444820733025e-18, 1.8778651901623268e-18,
)
_J0_A = _c(
    0.0023409898253245504, -0.49420509340952434, 0.39793736723207573, -0.09383145879659378,
    0.010887531648681012, -0.0007606267657733754, 3.569483646356939e-05, -1.2060697061368316e-06,
    3.079038572034392e-08, -6.154405541206829e-10, 9.89883306235983e-12, -1.3093862877228934e-13,
    1.449925455546083e-15, -1.3640331632027614e-17,
)
_J1_A = _c(
    0.12472176826504336, -0.2686845684799195, 0.09129790663903893, -0.014004653451391028,
    0.001219706194308904, -6.861294107933131e-05, 2.7033690715030914e-06, -7.885506927808829e-08,
    1.7729297565883533e-09, -3.168183400785992e-11, 4.609607207864301e-13, -5.568208308467139e-15,
    5.674750797163287e-17, -4.945591701810024e-19,
)
_Y0_A = _c(
    0.20605257634092228, -0.13017522381095709, -0.291894720865317, 0.10268287966073635,
    -0.014279159901781987, 0.0011164629864165486, -5.677525113380376e-05, 2.0406703657627165e-06,
    -5.476431029755533e-08, 1.141220652090372e-09, -1.9021689490013906e-11,
    2.5954970583106197e-13, -2.9540707750193604e-15, 2.848154182311252e-17,
)
_Y1_A = _c(
    0.0531074450560213, 0.14189450894667655, -0.08834328868289824, 0.017111109934210778,
    -0.0017057852565133666, 0.000105257530278434, -4.44507526565354e-06, 1.3699277670028168e-07,
    -3.222883768023259e-09, 5.984534092223177e-11, -9.000965667133812e-13, 1.1194186560306676e-14,
    -1.1707921590181557e-16, 1.0444110354608508e-18,
)
_P0 = _c(
    0.9986523398776954, -0.00132937162125028, 1.761305551290559e-05, -6.319367118733069e-07,
    3.948825587093808e-08, -3.5409678948019087e-09, 4.103246366872386e-10, -5.765747662655223e-11,
    9.423105578391987e-12, -1.7401405706283885e-12, 3.5557750052411783e-13,
    -7.914641501338115e-14, 1.8959456362961828e-14, -4.841483019175697e-15,
    1.3078555195901338e-15, -3.714050821413154e-16, 1.103023177871277e-16, -3.410936210498114e-17,
    1.0942187869810236e-17, -3.629905673795297e-18, 1.2418028891673288e-18,
)
_Q0 = _c(
    -0.12364702582167493, 0.0013190194049922607, -3.218799121266175e-05, 1.6237093205642789e-06,
    -1.2743289742032805e-07, 1.3513032763134409e-08, -1.785075905119705e-09, 2.79085713479036e-10,
    -4.988908027652833e-11, 9.950713667806645e-12, -2.1751206043008833e-12, 5.140127162427605e-13,
    -1.2993242656059178e-13, 3.4837635776889786e-14, -9.84005757254373e-15, 2.9115274918592e-15,
    -8.982151171303344e-16, 2.877768906557925e-16, -9.542905011731343e-17, 3.2658161943648366e-17,
    -1.150518178532616e-17, 4.16320426537859e-18, -1.544369143900366e-18, 5.8629592355191775e-19,
    -2.2743642238250536e-19,
)
_P1 = _c(
    1.00226762068534, 0.0022437352958079985, -2.3071018862548286e-05, 7.639181732533905e-07,
    -4.589685232343401e-08, 4.020515478419001e-09, -4.586773977170972e-10, 6.373158962859246e-11,
    -1.0327344567640412e-11, 1.8943274995111034e-12, -3.849703387824105e-13,
    8.529914525779044e-14, -2.03544697865723e-14, 5.180421738900549e-15, -1.3953502148258493e-15,
    3.9523601713314257e-16, -1.171117080126803e-16, 3.614078564738109e-17,
    -1.1572356053251518e-17, 3.832473906744907e-18, -1.3090769675043101e-18,
)
_Q1 = _c(
    0.37308734621468637, -0.0018705189681051477, 4.0056994520460306e-05, -1.914402839085632e-06,
    1.458816510742199e-07, -1.5183398644673165e-08, 1.979922260589517e-09, -3.065981449437696e-10,
    5.440233592059753e-11, -1.0786652192538468e-11, 2.346352831758894e-12, -5.522046856541826e-13,
    1.390972848139383e-13, -3.7181516752164614e-14, 1.0474063117829167e-14,
    -3.091784202917912e-15, 9.518051831081499e-16, -3.0436450667050517e-16,
    1.0075487579997493e-16, -3.4426306619813246e-17, 1.2110503970221687e-17,
    -4.376388902428328e-18, 1.6214444005747313e-18, -6.1484941486086215e-19,
)
_AI_MID = _c(
    0.15168947628223672, -0.005228692408472365, -0.007183007563342123, -0.2750085825170078,
    0.15267285652736612, 0.11299722901833571, -0.12930163519980795, 0.021717950423082666,
    0.024911850702736413, -0.01433585742189573, 0.000696689451639598, 0.001974398933529019,
    -0.0007230393972252199, -1.6112414526177467e-05, 8.133273673249939e-05,
    -2.0775365813975462e-05, -1.6054762687164758e-06, 2.0560158255601387e-06,
    -3.825520517284178e-07, -4.913870596184178e-08, 3.514168642051892e-08, -4.846385010860496e-09,
    -8.897812059422213e-10, 4.329786248648808e-10, -4.414745597439301e-11,
    -1.1096862995764342e-11, 4.024832028797832e-12, -2.9609936249846454e-13,
    -1.0257635127287476e-13, 2.920579876829024e-14, -1.4619955511486232e-15,
    -7.35505053091767e-16, 1.6986548408182807e-16, -5.0563208224652944e-18,
    -4.2234448483626644e-18, 8.087008847190025e-19,
)
_AI_POS = _c(
    0.9844053049171552, -0.014792784850104199, 0.0007327177465426715, -6.12595423417825e-05,
    6.83476697557269e-06, -9.237229735403982e-07, 1.436225340438052e-07, -2.489319422322096e-08,
    4.709793440054328e-09, -9.583863708112733e-10, 2.0745855483677591e-10, -4.737267332192277e-11,
    1.1336099808224236e-11, -2.827706782319351e-12, 7.320712095125598e-13,
    -1.9599793911089723e-13, 5.4101162570683925e-14, -1.5356466802223836e-14,
    4.472340393300025e-15, -1.3338094674756683e-15, 4.066582046456231e-16, -1.265583225645289e-16,
    4.015126334015871e-17, -1.2969972135960937e-17, 4.2613499074124e-18, -1.422676842293507e-18,
)
_AI_NEG_P = _c(
    0.9997541229881233, -0.0003265982675007251, -7.981413648152953e-05, 1.017222243442064e-06,
    1.0399553244035248e-07, -6.345336539621232e-09, -1.8372886389906092e-10,
    5.2076899039877404e-11, -2.371394869982987e-12, -3.4056038047789317e-13,
    6.671006052435995e-14, -2.8738167332319415e-15, -7.836814938587172e-16,
    1.7492629791170046e-16, -1.1190649847803312e-17, -2.3351139691764555e-18,
)
_AI_NEG_Q = _c(
    0.0691973141808099, -0.0003271207011389106, -7.825984570346181e-05, 1.923993403748453e-06,
    1.7709286721686765e-07, -1.6691604114605716e-08, -2.1081038743969808e-10,
    1.6134496280508183e-10, -1.1935245363474967e-11, -9.075734317776672e-13,
    2.9507230081568156e-13, -2.312390305495685e-14, -2.6152161226935082e-15,
    9.567932679631096e-16, -1.0286514854068335e-16, -7.008724212580084e-18, 4.531829171974002e-18,
    -7.514045046247603e-19,
)
_ERFCX_A = _c(
    0.4413272098724755, -0.3611037988941115, 0.13277167362014608, -0.044862708199308335,
    0.014133707475084892, -0.004193978072500207, 0.0011810312328946638, -0.00031745317048251454,
    8.18244289446326e-05, -2.0300292708943793e-05, 4.862871519023685e-06, -1.127713959746334e-06,
    2.537468326938191e-07, -5.5506840986573e-08, 1.1824399436760038e-08, -2.456708498483471e-09,
    4.984858379595275e-10, -9.890047585903342e-11, 1.9207029420105047e-11, -3.654801757009907e-12,
    6.820190337997702e-13, -1.2491430136666143e-13, 2.2471685711527893e-14,
    -3.973435322408724e-15, 6.910033524971459e-16, -1.1825894602158536e-16, 1.992810548116889e-17,
    -3.3082501193174873e-18, 5.413006833736407e-19,
)
_ERFCX_B = _c(
    0.5536148878640625, -0.01380962647295226, -0.0030315568258966748, 0.0002199189670934921,
    1.3081368026184262e-05, -3.3999321687626554e-06, 1.1254538053165537e-07,
    4.252926482792012e-08, -6.556364159480241e-09, -7.485695039297633e-11, 1.519594895239475e-10,
    -1.884742610838392e-11, -1.1317681085105734e-12, 6.820185434586471e-13,
    -7.682504823994758e-14, -7.750057311424843e-15, 3.797518304791083e-15,
    -4.3260840259233137e-16, -5.027066132604181e-17, 2.5416442147220286e-17,
    -3.2275024104652848e-18,
)


# -- evaluation ------------------------------------------------------------------------------

def _cheb(t, table, short):
    """Clenshaw's recurrence for ``sum c_k T_k(t)``."""
    cs = table[1] if short else table[0]
    t2 = t + t
    b0 = np.full_like(t, cs[-1])
    b1 = np.zeros_like(t)
    tmp = np.empty_like(t)
    for c in cs[-2:0:-1]:
        np.multiply(t2, b0, out=tmp)
        tmp -= b1
        tmp += c
        b1, b0, tmp = b0, tmp, b1
    r = t * b0
    r -= b1
    r += cs[0]
    return r


def _flat(fn, native32=False):
    """``fn(x, short)`` over flat float64 arrays as a kernel function of any float array:
    float32 (and narrower) inputs take the short series and round once; with ``native32``
    they are computed in float32 arithmetic itself (series whose terms do not cancel)."""
    def fn64(x):
        return fn(x, False)

    def fn32(x):
        if native32:
            return fn(x, True)
        return fn(x.astype(_F64), True).astype(_F32)

    fn64.__name__ = fn.__name__
    return _unary(fn64, fn32)


_BLOCK = 1 << 15


def _binary(fn, native=False):
    """``fn(a, b, short)`` over broadcast flat float64 arrays, for a binary kernel; with
    ``native``, over arrays of the computation dtype itself (the polynomial recurrences,
    whose float32 rounding then is torch's)."""
    def apply(a, b):
        a, b = np.broadcast_arrays(np.asarray(a), np.asarray(b))
        shape = a.shape
        dtype = np.result_type(a.dtype, b.dtype)
        short = dtype != _F64
        work = dtype if native and dtype.kind == "f" else _F64
        a = a.astype(work).ravel()
        b = b.astype(work).ravel()
        with np.errstate(all="ignore"):
            if a.size <= _BLOCK:
                r = fn(a, b, short)
            else:   # in blocks whose temporaries stay in cache
                r = np.empty(a.size, work)
                for i in range(0, a.size, _BLOCK):
                    r[i:i + _BLOCK] = fn(a[i:i + _BLOCK], b[i:i + _BLOCK], short)
        return r.reshape(shape).astype(dtype if dtype.kind == "f" else _F64, copy=False)
    apply.__name__ = fn.__name__
    return apply


_SQRT_PI = math.sqrt(math.pi)
_SQRT1_2 = math.sqrt(0.5)
_TWO_OVER_PI = 2 / math.pi


# -- modified Bessel functions ------------------------------------------------------------

def _i0e_abs(ax, short):
    def small(a):
        return _cheb(a / 4 - 1, _I0E_A, short)

    def large(a):
        r = _cheb(16 / a - 1, _I0E_B, short)
        r /= np.sqrt(a)
        return r
    return _piecewise(ax, (8.0,), (small, large), (ax,))


def _i1e_abs(ax, short):
    """i1e(|x|)."""
    def small(a):
        r = _cheb(a / 4 - 1, _I1E_A, short)
        r *= a
        return r

    def large(a):
        r = _cheb(16 / a - 1, _I1E_B, short)
        r /= np.sqrt(a)
        return r
    return _piecewise(ax, (8.0,), (small, large), (ax,))


def _i0e_k(x, short):
    return _i0e_abs(np.abs(x), short)


def _i0_k(x, short):
    ax = np.abs(x)
    r = _i0e_abs(ax, short)
    r *= np.exp(ax)        # inf * 0 at |x| = inf: NaN, as torch's
    return r


def _i1e_k(x, short):
    return np.copysign(_i1e_abs(np.abs(x), short), x)


def _i1_k(x, short):
    ax = np.abs(x)
    r = _i1e_abs(ax, short)
    r *= np.exp(ax)
    return np.copysign(r, x)


def _k_large(x, table, short, scaled):
    r = _cheb(4 / x - 1, table, short)
    r /= np.sqrt(x)
    if not scaled:
        r *= np.exp(-x)
    return r


def _k0_small(x, short, scaled):
    r = _cheb(x * x / 2 - 1, _K0_A, short)
    r -= np.log(x / 2) * _i0_k(x, short)
    if scaled:
        r *= np.exp(x)
    return r


def _k1_small(x, short, scaled):
    r = _cheb(x * x / 2 - 1, _K1_A, short)
    r /= x
    r += np.log(x / 2) * np.copysign(_i1e_abs(x, short) * np.exp(x), x)
    if scaled:
        r *= np.exp(x)
    return r


def _k_kernel(small, table, scaled):
    def fn(x, short):
        out = _piecewise(x, (2.0,), (lambda a: small(a, short, scaled),
                                     lambda a: _k_large(a, table, short, scaled)), (x,))
        _fix(out, x == 0, np.inf)
        _fix(out, x < 0, np.nan)
        return out
    return fn


# -- Bessel functions of the first and second kind ------------------------------------------

_TWO_PI = 2 * math.pi


def _sincos(v, short):
    """(cos v, sin v). For float32 results: reduced mod 2 pi in float64, then NumPy's
    vectorised float32 cos/sin (its float64 ones run element by element, 20x slower)."""
    if not short:
        return np.cos(v), np.sin(v)
    r = v - _TWO_PI * np.rint(v * (1 / _TWO_PI))
    r = r.astype(_F32)
    return np.cos(r).astype(_F64), np.sin(r).astype(_F64)


def _hankel(x, n, short):
    """(sqrt(2/(pi x)) * P, sqrt(2/(pi x)) * Q, cos(phi), sin(phi)) for x > 5."""
    t = 50 / (x * x) - 1
    amp = np.sqrt(_TWO_OVER_PI / x)
    p = _cheb(t, _P0 if n == 0 else _P1, short)
    p *= amp
    q = _cheb(t, _Q0 if n == 0 else _Q1, short)
    q *= amp
    q /= x
    c, s = _sincos(x, short)
    if n == 0:    # phi = x - pi/4
        cp, sp = (c + s) * _SQRT1_2, (s - c) * _SQRT1_2
    else:         # phi = x - 3 pi/4
        cp, sp = (s - c) * _SQRT1_2, -(s + c) * _SQRT1_2
    return p, q, cp, sp


def _j0_small(a, short):
    return _cheb(a * a * 0.08 - 1, _J0_A, short)


def _j1_small(a, short):
    r = _cheb(a * a * 0.08 - 1, _J1_A, short)
    r *= a
    return r


def _j0_k(x, short):
    ax = np.abs(x)

    def large(a):
        p, q, cp, sp = _hankel(a, 0, short)
        return p * cp - q * sp
    return _piecewise(ax, (5.0,), (lambda a: _j0_small(a, short), large), (ax,))


def _j1_k(x, short):
    ax = np.abs(x)

    def large(a):
        p, q, cp, sp = _hankel(a, 1, short)
        return p * cp - q * sp
    out = _piecewise(ax, (5.0,), (lambda a: _j1_small(a, short), large), (ax,))
    return np.where(np.signbit(x), -out, out)


def _y0_k(x, short):
    def small(a):
        r = _cheb(a * a * 0.08 - 1, _Y0_A, short)
        r += _TWO_OVER_PI * np.log(a) * _j0_small(a, short)
        return r

    def large(a):
        p, q, cp, sp = _hankel(a, 0, short)
        return p * sp + q * cp
    out = _piecewise(x, (5.0,), (small, large), (x,))
    _fix(out, x == 0, -np.inf)
    _fix(out, x < 0, np.nan)
    return out


def _y1_k(x, short):
    def small(a):
        r = _cheb(a * a * 0.08 - 1, _Y1_A, short)
        r *= a
        r += _TWO_OVER_PI * (np.log(a) * _j1_small(a, short) - 1 / a)
        return r

    def large(a):
        p, q, cp, sp = _hankel(a, 1, short)
        return p * sp + q * cp
    out = _piecewise(x, (5.0,), (small, large), (x,))
    _fix(out, x == 0, -np.inf)
    _fix(out, x < 0, np.nan)
    return out


def _spherical_j0_k(x, short):
    x2 = x * x
    # sin(x)/x = 1 - x^2/3! + x^4/5! - ... for |x| < 1/2 (terms to x^14 / 15!)
    series = 1 / 1307674368000
    for k in (13, 11, 9, 7, 5, 3):
        series = series * -x2 + 1 / math.factorial(k)
    series = series * -x2 + 1
    with np.errstate(all="ignore"):
        out = np.where(np.abs(x) < 0.5, series, _sincos(x, short)[1] / x)
    _fix(out, np.isinf(x), 0.0)
    return out


# -- Airy function Ai ----------------------------------------------------------------------

_AI_ZETA0 = 2 * 2.0 ** 1.5 / 3      # zeta at x = 2
_AI_ZETA1 = 2 * 5.0 ** 1.5 / 3      # zeta at x = -5


def _airy_ai_k(x, short):
    def mid(a):
        return _cheb((a + 5) * (2 / 7) - 1, _AI_MID, short)

    def pos(a):
        zeta = a * np.sqrt(a) * (2 / 3)
        r = _cheb(2 * _AI_ZETA0 / zeta - 1, _AI_POS, short)
        r *= np.exp(-zeta)
        r /= 2 * _SQRT_PI * np.sqrt(np.sqrt(a))
        return r

    def neg(a):
        z = -a
        zeta = z * np.sqrt(z) * (2 / 3)
        t = 2 * _AI_ZETA1 / zeta - 1
        p = _cheb(t, _AI_NEG_P, short)
        q = _cheb(t, _AI_NEG_Q, short)
        q /= zeta
        c, s = _sincos(zeta, short)
        # sin(zeta + pi/4) P - cos(zeta + pi/4) Q, times sqrt(2)/2 from the angle sum
        r = (s + c) * p - (c - s) * q
        r *= _SQRT1_2 / _SQRT_PI
        r /= np.sqrt(np.sqrt(z))
        return r
    out = _piecewise(x, (-5.0, 2.0), (neg, mid, pos), (x,))
    if short:   # torch's float32 phase 2|x|^(3/2) overflows: sin(inf)
        _fix(out, x < -3.0e25, np.nan)
    _fix(out, x > 103.892, 0.0)
    _fix(out, np.isinf(x), np.nan)
    return out


# -- the error function family -------------------------------------------------------------

def _erfcx_pos(a, short):
    def small(v):
        return _cheb(v * (2 / 3) - 1, _ERFCX_A, short)

    def large(v):
        r = _cheb(6 / v - 1, _ERFCX_B, short)
        r /= v
        return r
    return _piecewise(a, (3.0,), (small, large), (a,))


def _erfcx_k(x, short):
    out = _erfcx_pos(np.abs(x), short)
    neg = x < 0
    if neg.any():
        idx = np.flatnonzero(neg)
        v = x[idx]
        out[idx] = 2 * np.exp(v * v) - out[idx]
    return out


def _log_ndtr_k(x, short):
    t = x * _SQRT1_2
    out = np.empty_like(x)
    low = x < -1
    if low.any():
        idx = np.flatnonzero(low)
        tl = t[idx]
        out[idx] = np.log(_erfcx_pos(-tl, short) / 2) - tl * tl
    hi = ~low
    if hi.any():
        idx = np.flatnonzero(hi)
        out[idx] = np.log1p(-_special.erfc(t[idx]) / 2)
    return out


def _ndtri_tail(q):
    """-ndtri(q) for 0 < q <= 0.075: a rough start refined by Halley steps on erfc."""
    s = np.sqrt(-2 * np.log(q))
    x = s - (2.515517 + s * (0.802853 + s * 0.010328)) / \
        (1 + s * (1.432788 + s * (0.189269 + s * 0.001308)))
    for _ in range(3):
        # f(x) = erfc(x / sqrt 2) / 2 - q, f'(x) = -phi(x)
        phi = np.exp(-x * x / 2) / math.sqrt(2 * math.pi)
        r = (_special.erfc(x * _SQRT1_2) / 2 - q) / phi
        x = x + r / (1 + x * r / 2)
    return x


def _ndtri_k(p, short):
    out = np.sqrt(2.0) * _special.erfinv(2 * p - 1)
    tail = (p < 0.075) | (p > 0.925)
    tail &= (p > 0) & (p < 1)
    if tail.any():
        idx = np.flatnonzero(tail)
        v = p[idx]
        q = np.minimum(v, 1 - v)
        out[idx] = np.copysign(_ndtri_tail(q), v - 0.5)
    _fix(out, p == 0, -np.inf)
    _fix(out, p == 1, np.inf)
    return out


def _narrow(v, ct):
    """A float16/bfloat16 kernel's intermediate rounded to its dtype, as torch's kernels
    (computing ``std::log`` of a Half in Half) round it."""
    if ct is dt.float16 or ct is dt.bfloat16:
        return v.astype(ct.np).astype(_F32)
    return v


def _entr_compute(out, ins, ct):
    x = _ew._as_ct(ins[0], ct)
    with np.errstate(all="ignore"):
        out_ = -x * _narrow(np.log(x), ct)
    out_ = np.where(x == 0, x.dtype.type(0), out_)
    _ew._write(out, np.where(x < 0, x.dtype.type(-np.inf), out_))


def _sinc(x):
    pix = x * x.dtype.type(math.pi) if x.dtype.kind == "f" else x * math.pi
    with np.errstate(all="ignore"):
        out = np.sin(pix) / pix
    return np.where(x == 0, x.dtype.type(1), out)


# -- zeta, polygamma -------------------------------------------------------------------------

# B_2k / (2k)! for k = 1..12: the Euler-Maclaurin tail of the Hurwitz zeta function
_EM = [1 / 12, -1 / 720, 1 / 30240, -1 / 1209600, 1 / 47900160,
       -691 / 1307674368000, 1 / 74724249600, -3617 / 10670622842880000,
       43867 / 5109094217170944000, -174611 / 802857662698291200000,
       854513 / 155112100433309859840000, -236364091 / 1693824136731743669452800000]
_EPS = 1.11022302462515654042e-16


def _zeta_k(x, q, short):
    """Hurwitz zeta(x, q): terms summed directly until q + k > 9 (at least nine), then the
    Euler-Maclaurin tail; an element stops early once its next term is below eps of the sum
    (the convergence rule of the Cephes algorithm torch uses)."""
    out = np.full(x.shape, np.nan)
    done = np.zeros(x.shape, bool)
    inf = (x == 1) | ((q <= 0) & (q == np.floor(q)) & (x >= 1))
    out[inf] = np.inf
    done |= inf | (x < 1) | np.isnan(x) | np.isnan(q)
    done |= (q < 0) & (x != np.floor(x))
    idx = np.flatnonzero(~done)
    if not idx.size:
        return out
    xs, a = x[idx], q[idx]
    s = np.power(a, -xs)
    b = np.zeros_like(s)
    live = np.ones(idx.size, bool)
    i = 0
    while True:
        need = live & ((i < 9) | (a <= 9))
        if not need.any():
            break
        i += 1
        a = np.where(need, a + 1, a)
        bn = np.power(a, -xs)
        b = np.where(need, bn, b)
        s = np.where(need, s + bn, s)
        small = need & (-_EPS * s < bn) & (bn < _EPS * s)
        live &= ~small
    # live elements go on with the tail
    w = a
    tail = live
    s = np.where(tail, s + b * w / (xs - 1) - 0.5 * b, s)
    fac = np.ones_like(s)
    k = 0.0
    for coef in _EM:
        if not tail.any():
            break
        fac = fac * (xs + k)
        b = b / w
        t = fac * b * coef
        s = np.where(tail, s + t, s)
        tail = tail & ~(np.abs(t / s) < _EPS)
        k += 1
        fac = fac * (xs + k)
        b = b / w
        k += 1
    out[idx] = s
    return out


def _trigamma(x, dtype):
    """polygamma(1, x); the reflection's sine in the input's precision, as torch's."""
    sign = np.ones_like(x)
    result = np.zeros_like(x)
    refl = x < 0.5
    if refl.any():
        idx = np.flatnonzero(refl)
        xr = x[idx]
        s = np.sin(dtype.type(math.pi) * xr.astype(dtype)).astype(_F64)
        result[idx] = -(math.pi * math.pi) / (s * s)
        sign[idx] = -1
        x = x.copy()
        x[idx] = 1 - xr
    for _ in range(6):
        result += 1 / (x * x)
        x = x + 1
    ixx = 1 / (x * x)
    result += (1 + 1 / (2 * x) + ixx * (1 / 6 - ixx * (1 / 30 - ixx * (1 / 42)))) / x
    return sign * result


def _polygamma_array(x, n):
    dtype = x.dtype if x.dtype.kind == "f" and x.dtype.itemsize >= 4 else _F32
    shape = x.shape
    v = np.asarray(x, _F64).ravel()
    with np.errstate(all="ignore"):
        if n == 0:
            r = _special.digamma(v.astype(dtype)).astype(_F64)
        elif n == 1:
            r = _trigamma(v, dtype)
        else:
            r = (-1.0 if n % 2 == 0 else 1.0) * math.exp(math.lgamma(n + 1.0)) * \
                _zeta_k(np.full_like(v, n + 1.0), v, False)
    return r.reshape(shape)


# -- incomplete gamma ----------------------------------------------------------------------

def _lgamma64(v):
    return _special.lgamma(v)


def _igamma_series(a, x, tol):
    """P(a, x) by its power series (x < a + 1 or x <= 1)."""
    logpre = a * np.log(x) - x - _lgamma64(a + 1)

    def step(st):
        st["ap"] += 1
        st["term"] *= st["x"] / st["ap"]
        st["total"] += st["term"]
    parts = _run_loop({"ap": a.copy(), "x": x, "term": np.ones_like(a),
                       "total": np.ones_like(a)}, step,
                      lambda st: np.abs(st["term"]) <= np.abs(st["total"]) * tol)
    return np.exp(logpre) * _collect_key(parts, "total", a.size)


def _igammac_cf(a, x, tol):
    """Q(a, x) by its continued fraction (modified Lentz), for x > a + 1, x > 1."""
    tiny = 1e-300
    logpre = a * np.log(x) - x - _lgamma64(a)
    b = x + 1 - a
    d = 1 / b

    def step(st):
        st["i"] += 1
        an = -st["i"] * (st["i"] - st["a"])
        st["b"] += 2
        dl = an * st["d"] + st["b"]
        dl[np.abs(dl) < tiny] = tiny
        cl = st["b"] + an / st["c"]
        cl[np.abs(cl) < tiny] = tiny
        st["d"] = 1 / dl
        st["c"] = cl
        st["delta"] = st["d"] * cl
        st["h"] *= st["delta"]
    parts = _run_loop({"a": a, "i": np.zeros_like(a), "b": b, "c": np.full_like(a, 1 / tiny),
                       "d": d, "h": d.copy(), "delta": np.zeros_like(a)}, step,
                      lambda st: np.abs(st["delta"] - 1) <= tol)
    return np.exp(logpre) * _collect_key(parts, "h", a.size)


def _run_loop(state, step, converged, limit=2000, chunk=8):
    """Run ``step(state)`` (in place on the flat arrays of ``state``) until every element
    has ``converged``; converged elements are set aside and dropped every ``chunk`` steps
    (a few extra steps on them change nothing). Returns [(indices, state)]."""
    n = next(iter(state.values())).size
    idx = np.arange(n)
    parts = []
    for _ in range(0, limit, chunk):
        for _ in range(chunk):
            step(state)
        done = converged(state)
        ndone = int(np.count_nonzero(done))
        if ndone == done.size:
            break
        if ndone * 4 >= done.size:    # compact when a quarter is done
            parts.append((idx[done], {k: v[done] for k, v in state.items()}))
            keep = ~done
            idx = idx[keep]
            state = {k: v[keep] for k, v in state.items()}
    parts.append((idx, state))
    return parts


def _collect_key(parts, key, n):
    out = np.empty(n)
    for idx, st in parts:
        out[idx] = st[key]
    return out


def _igamma_both(a, x, tol):
    """(P, Q) for the ordinary arguments (a > 0, 0 < x < inf)."""
    series = (x < a + 1) | (x <= 1)
    if series.all():
        p = _igamma_series(a, x, tol)
        return p, 1 - p
    if not series.any():
        q = _igammac_cf(a, x, tol)
        return 1 - q, q
    p = np.empty_like(a)
    q = np.empty_like(a)
    if series.any():
        i = np.flatnonzero(series)
        p[i] = _igamma_series(a[i], x[i], tol)
        q[i] = 1 - p[i]
    if (~series).any():
        i = np.flatnonzero(~series)
        q[i] = _igammac_cf(a[i], x[i], tol)
        p[i] = 1 - q[i]
    return p, q


def _igamma_k(a, x, upper, short=False):
    out = np.full(a.shape, np.nan)
    ok = (a > 0) & (x > 0) & np.isfinite(a) & np.isfinite(x)
    tol = 1e-9 if short else 1e-16
    if ok.all():
        p, q = _igamma_both(a, x, tol)
        out = q if upper else p
    elif ok.any():
        i = np.flatnonzero(ok)
        p, q = _igamma_both(a[i], x[i], tol)
        out[i] = q if upper else p
    lo, hi = (1.0, 0.0) if upper else (0.0, 1.0)
    out[(a == 0) & (x > 0)] = hi
    out[(x == 0) & (a > 0)] = lo
    out[(x == np.inf) & (a > 0) & np.isfinite(a)] = hi
    out[(a == np.inf) & (x > 0) & np.isfinite(x)] = lo
    return out


def _igamma(a, x, short):
    return _igamma_k(a, x, False, short)


def _igammac(a, x, short):
    return _igamma_k(a, x, True, short)


# -- orthogonal polynomials ------------------------------------------------------------------

def _set(out, mask, value):
    """``where(mask, value, out)`` in place, for a mask that is usually empty."""
    if mask.any():
        out[mask] = value
    return out


def _as_degree(n):
    """torch's ``static_cast<int64_t>(n)`` (NaN and inf: -1 here, a negative degree)."""
    bad = ~np.isfinite(n)
    m = np.where(bad, -1.0, np.trunc(n))
    m = np.clip(m, -1, 2.0 ** 62)
    return m.astype(np.int64)


def _recurrence(x, n, q0, q1, step, stop_nan=True):
    """P_n(x) for n >= 2 from P_0 = q0, P_1 = q1 and ``P_(k+1) = step(k, x, P_k, P_(k-1))``;
    an element's result is taken at its own degree (a NaN stays NaN, so torch's early exit
    on NaN changes nothing but the time: elements that are done, or NaN, are dropped every
    few steps)."""
    out = np.array(q1, dtype=x.dtype, copy=True)
    live = np.flatnonzero(n >= 2)
    if not live.size:
        return out
    whole = live.size == x.size
    xs = x if whole else x[live]
    p = np.broadcast_to(np.asarray(q0, x.dtype), x.shape)
    p = p.copy() if whole else p[live]
    q = out.copy() if whole else out[live]
    ns = n if whole else n[live]
    res = q.copy()
    pos = np.arange(live.size)
    top = int(ns.max())
    k = 1
    while k < top:
        r = step(k, xs, q, p)
        p, q = q, r
        k += 1
        np.copyto(res, q, where=ns == k)
        if k % 16 == 0 and k < top:
            keep = ns > k
            if stop_nan:
                nan = np.isnan(q) & keep
                np.copyto(res, q, where=nan)
                keep &= ~nan
            if not keep.all():
                out[live[pos[~keep]]] = res[~keep]
                pos, xs, p, q, ns, res = (pos[keep], xs[keep], p[keep], q[keep], ns[keep],
                                          res[keep])
                if not pos.size:
                    return out
                top = int(ns.max())
    out[live[pos]] = res
    return out


def _cheb_poly(kind, shifted):
    """Chebyshev polynomials T, U, V, W (kind) of x, or of 2x - 1 (shifted)."""
    big = {"t": 6, "u": 8, "v": 8, "w": 8}[kind] if not shifted else \
        {"t": 6, "u": 6, "v": 6, "w": 4}[kind]

    def fn(x, nf, short):
        n = _as_degree(nf)
        y = 2 * x - 1 if shifted else x
        out = np.empty_like(x)
        one = x == 1 if shifted else np.abs(x) == 1
        zero = (x == 0) if shifted else np.zeros(x.shape, bool)
        pos = (x > 0) if not shifted else np.ones(x.shape, bool)
        even = (n & 1) == 0
        nn = n.astype(x.dtype)
        # ends of the interval
        if kind == "t":
            at_one = np.where(pos | even, 1.0, -1.0)
            at_zero = np.where(even, 1.0, -1.0)
        elif kind == "u":
            at_one = np.where(pos | even, nn + 1, -(nn + 1))
            at_zero = np.where(even, nn + 1, -(nn + 1))
        elif kind == "v":
            at_one = np.where(pos, 1.0, np.where(even, 2 * nn + 1, -(2 * nn + 1)))
            at_zero = np.where(even, 2 * nn + 1, -(2 * nn + 1))
        else:
            at_one = np.where(pos, 2 * nn + 1, np.where(even, 1.0, -1.0))
            at_zero = np.where(even, 1.0, -1.0)
        two_y = y + y
        first = {"t": y, "u": two_y, "v": two_y - 1, "w": two_y + 1}[kind]
        trig = (n > big) & (np.abs(y) < 1)
        # (elements with a closed form skip the recurrence)
        n_rec = np.where(trig | one | zero, 0, n)
        rec = _recurrence(y, n_rec, 1.0, first, lambda k, yy, q, p: (yy + yy) * q - p)
        out[...] = np.where(n == 0, 1.0, rec)
        if trig.any():
            i = np.flatnonzero(trig)
            th = np.arccos(y[i])
            m = nn[i]
            if kind == "t":
                v = np.cos(m * th)
            elif kind == "u":
                s = np.sin(th)
                with np.errstate(all="ignore"):
                    v = np.where(s != 0, np.sin((m + 1) * th) / s,
                                 (m + 1) * np.cos((m + 1) * th) / y[i])
            elif kind == "v":
                with np.errstate(all="ignore"):
                    v = np.where(np.sin(th / 2) != 1, np.cos((m + 0.5) * th) / np.cos(th / 2),
                                 np.where(m % 2 == 0, 2 * m + 1, -(2 * m + 1)))
            else:
                with np.errstate(all="ignore"):
                    alt = np.where(m % 2 == 0, 1.0, -1.0)
                    if not shifted:
                        alt = np.where(y[i] > 0, 2 * m + 1, alt)
                    v = np.where(np.cos(th / 2) != 1, np.sin((m + 0.5) * th) / np.sin(th / 2),
                                 alt)
            out[i] = v
        if zero.any():
            out = np.where(zero, at_zero, out)
        if one.any():
            out = np.where(one, at_one, out)
        return _set(out, n < 0, 0.0)
    fn.__name__ = ("shifted_" if shifted else "") + "chebyshev_polynomial_" + kind
    return fn


def _hermite_h(x, nf, short):
    limit = 128 if short else 512
    n = np.where(np.isfinite(nf), _as_degree(nf), -1)
    # H_(k+1) = 2x H_k - 2k H_(k-1), no early stop (torch's loop has none)
    rec = _recurrence(x, np.where(n > limit, 0, n), 1.0, x + x,
                      lambda k, xx, q, p: (xx + xx) * q - (2 * k) * p, stop_nan=False)
    out = _set(rec, n == 0, 1.0)
    out = _set(out, n > limit, np.nan)
    return _set(out, n < 0, 0.0)


def _hermite_he(x, nf, short):
    limit = 128 if short else 512
    n = _as_degree(nf)
    rec = _recurrence(x, np.where(n > limit, 0, n), 1.0, x,
                      lambda k, xx, q, p: xx * q - k * p, stop_nan=False)
    out = _set(rec, n == 0, 1.0)
    out = _set(out, n > limit, np.nan)
    return _set(out, n < 0, 0.0)


def _laguerre_l(x, nf, short):
    n = _as_degree(nf)
    rec = _recurrence(x, n, 1.0, 1 - x,
                      lambda k, xx, q, p: ((2 * k + (1 - xx)) * q - k * p) / (k + 1))
    out = _set(rec, n == 0, 1.0)
    out = _set(out, x == 0, 1.0)
    return _set(out, n < 0, 0.0)


def _legendre_p(x, nf, short):
    n = _as_degree(nf)
    rec = _recurrence(x, n, 1.0, x,
                      lambda k, xx, q, p: ((2 * k + 1) * xx * q - k * p) / (k + 1))
    out = _set(rec, n == 0, 1.0)
    one = np.abs(x) == 1
    if one.any():
        out = np.where(one, np.where((x > 0) | ((n & 1) == 0), 1.0, -1.0), out)
    return _set(out, n < 0, 0.0)


# -- xlogy, xlog1py ------------------------------------------------------------------------

def _xlogy_compute(out, ins, ct):
    x, y = (np.asarray(_ew._as_ct(v, ct)) for v in ins)
    with np.errstate(all="ignore"):
        r = x * _narrow(np.log(y), ct)
    r = np.where(x == 0, x.dtype.type(0), r)
    _ew._write(out, np.where(np.isnan(y), y, r))


def _xlog1py_compute(out, ins, ct):
    x, y = (np.asarray(_ew._as_ct(v, ct)) for v in ins)
    with np.errstate(all="ignore"):
        r = x * _narrow(np.log1p(y), ct)
    r = np.where(x == 0, x.dtype.type(0), r)
    _ew._write(out, np.where(np.isnan(y), y, r))


# -- the table rows (Note [The elementwise table] in elementwise.py) --------------------------

def _complex_error(msg, exc=RuntimeError):
    return {dt.COMPLEX: (exc, msg)}


def _deg2rad(x):
    return x * x.dtype.type(math.pi / 180)


def _rad2deg(x):
    return x * x.dtype.type(180 / math.pi)


def _signbit(out, ins, ct):
    x = ins[0]
    if ct.category <= dt.INT:
        np.less(x, 0, out=out)
    else:
        np.signbit(_ew._as_ct(x, ct), out=out)


def _nextafter(out, ins, ct):
    if ct is dt.bfloat16:
        a = np.asarray(ins[0], np.float32)
        b = np.asarray(ins[1], np.float32)
        bits = a.view(np.uint32) if a.ndim else np.float32(a).view(np.uint32)
        # step the bfloat16 pattern (the upper 16 bits) by one toward b
        hi = (bits >> 16).astype(np.int32)
        up = (b > a) == (a >= 0)
        step = np.where(a == 0, 1, np.where(up, 1, -1))
        nxt = ((hi + step).astype(np.uint32) << 16).view(np.float32)
        tiny = np.copysign(np.float32(2.0 ** -133), b)
        res = np.where(a == b, b, np.where(a == 0, tiny, nxt))
        res = np.where(np.isnan(a) | np.isnan(b), np.float32(np.nan), res)
        _ew._write(out, res)
        return
    np.nextafter(ins[0], ins[1], out=out, dtype=ct.np, casting="unsafe")


def _heaviside(out, ins, ct):
    x, v = ins
    x = np.asarray(x)
    res = np.where(x == 0, v, (x > 0).astype(ct.np))
    _ew._write(out, res)


def _heaviside_check(op, inputs, params):
    a, b = inputs
    ca = _ew._dtype_of(a)
    cb = _ew._dtype_of(b)
    check(not ca.is_complex and not cb.is_complex,
          "heaviside is not yet implemented for complex tensors.")
    check(ca is cb, "heaviside is not yet implemented for tensors with different dtypes.")


def _gcd(out, ins, ct):
    np.gcd(ins[0], ins[1], out=out, dtype=ct.np, casting="unsafe")


def _lcm(out, ins, ct):
    np.lcm(ins[0], ins[1], out=out, dtype=ct.np, casting="unsafe")


def _fma(x, y, z):
    """``x * y + z`` with the product's rounding error added back (Dekker's exact product
    by Veltkamp splitting): torch's vectorised kernels round a fused multiply-add once."""
    split = x.dtype.type(134217729.0 if x.dtype == _F64 else 4097.0)

    def halves(v):
        c = v * split
        hi = c - (c - v)
        return hi, v - hi
    p = x * y
    xh, xl = halves(x)
    yh, yl = halves(y)
    err = ((xh * yh - p) + xh * yl + xl * yh) + xl * yl
    with np.errstate(all="ignore"):
        r = (p + z) + err
    return np.where(np.isfinite(r), r, p + z)


def _logaddexp2(a, b):
    # max + log1p(2^-|a - b|) / ln 2 (one fused multiply-add), and a itself for equal
    # infinities, as torch's kernel; in place after the first difference
    t = np.subtract(a, b)
    np.abs(t, out=t)
    np.negative(t, out=t)
    np.exp2(t, out=t)
    np.log1p(t, out=t)
    m = np.maximum(a, b)
    if t.dtype == _F32:   # float64 holds the float32 product exactly: one rounding at the end
        r = t.astype(_F64)
        r *= float(np.float32(1 / math.log(2)))
        r += m
        r = r.astype(_F32)
    else:
        r = _fma(t, np.full_like(t, 1 / math.log(2)), m)
    infinite = np.isinf(m)
    if infinite.any():
        np.copyto(r, a, where=infinite & (a == b))
    return r


def _polygamma_check(op, ct, inputs, params):
    check(params[0] >= 0, "polygamma(n, x) does not support negative n.")


def _polygamma_dtype_check(op, inputs, params):
    # torch's kernel names itself after the function it computes for this n
    d = _ew._dtype_of(inputs[0])
    if d.is_complex and params and params[0] >= 0:
        name = {0: "digamma", 1: "trigamma"}.get(params[0], "polygamma")
        raise NotImplementedError(f'"{name}" not implemented for \'{d._scalar_name}\'')


def _polygamma_compute(out, ins, ct, n):
    _ew._write(out, _polygamma_array(_ew._as_ct(ins[0], ct), n))


_LOG_PI = math.log(math.pi)


def _mvlgamma_check(op, ct, inputs, params):
    check(params[0] >= 1, "p has to be greater than or equal to 1")


def _mvlgamma_compute(out, ins, ct, p):
    x = np.asarray(_ew._as_ct(ins[0], ct))
    xd = x.astype(_F64)
    acc = np.zeros(x.shape)
    for j in range(p):
        acc += _special.lgamma(xd + (j - (p - 1)) * 0.5)
    acc += p * (p - 1) * _LOG_PI / 4
    _ew._write(out, acc.astype(x.dtype))


def _angle_real(x):
    out = np.where(x < 0, x.dtype.type(math.pi), x.dtype.type(0))
    return np.where(np.isnan(x), x, out)


def _bin(fn, native=False):
    return elementwise(_binary(fn, native))


_W = (_ew._check_wrapped_inputs,)

TABLE = [
    Op("i0", 1, "unary_float", elementwise(_flat(_i0_k, True)), FLOATS, "i0_vml_cpu"),
    Op("special_i0e", 1, "unary_float", elementwise(_flat(_i0e_k, True)), FLOATS, "i0e_cpu"),
    Op("special_i1", 1, "unary_float", elementwise(_flat(_i1_k, True)), FLOATS, "i1_cpu"),
    Op("special_i1e", 1, "unary_float", elementwise(_flat(_i1e_k, True)), FLOATS, "i1e_cpu"),
    Op("special_ndtri", 1, "unary_float", elementwise(_flat(_ndtri_k)), F, "ndtri_cpu"),
    Op("special_log_ndtr", 1, "unary_float", elementwise(_flat(_log_ndtr_k)), F,
       "log_ndtr_cpu"),
    Op("special_erfcx", 1, "unary_float", elementwise(_flat(_erfcx_k)), F, "erfcx_cpu"),
    Op("special_entr", 1, "unary_float", _entr_compute, FLOATS, "entr_cpu"),
    Op("sinc", 1, "unary_float", elementwise(_sinc), FLOATS | COMPLEX, "sinc_cpu"),
    Op("special_airy_ai", 1, "unary_float", elementwise(_flat(_airy_ai_k)), F, "airy_ai_cpu"),
    Op("special_bessel_j0", 1, "unary_float", elementwise(_flat(_j0_k)), F, "bessel_j0_cpu"),
    Op("special_bessel_j1", 1, "unary_float", elementwise(_flat(_j1_k)), F, "bessel_j1_cpu"),
    Op("special_bessel_y0", 1, "unary_float", elementwise(_flat(_y0_k)), F, "bessel_y0_cpu"),
    Op("special_bessel_y1", 1, "unary_float", elementwise(_flat(_y1_k)), F, "bessel_y1_cpu"),
    Op("special_modified_bessel_i0", 1, "unary_float", elementwise(_flat(_i0_k, True)), F,
       "modified_bessel_i0_cpu"),
    Op("special_modified_bessel_i1", 1, "unary_float", elementwise(_flat(_i1_k, True)), F,
       "modified_bessel_i1_cpu"),
    Op("special_modified_bessel_k0", 1, "unary_float",
       elementwise(_flat(_k_kernel(_k0_small, _K0_B, False))), F, "modified_bessel_k0_cpu"),
    Op("special_modified_bessel_k1", 1, "unary_float",
       elementwise(_flat(_k_kernel(_k1_small, _K1_B, False))), F, "modified_bessel_k1_cpu"),
    Op("special_scaled_modified_bessel_k0", 1, "unary_float",
       elementwise(_flat(_k_kernel(_k0_small, _K0_B, True))), F,
       "scaled_modified_bessel_k0_cpu"),
    Op("special_scaled_modified_bessel_k1", 1, "unary_float",
       elementwise(_flat(_k_kernel(_k1_small, _K1_B, True))), F,
       "scaled_modified_bessel_k1_cpu"),
    Op("special_spherical_bessel_j0", 1, "unary_float", elementwise(_flat(_spherical_j0_k)), F,
       "spherical_bessel_j0_cpu"),
    Op("deg2rad", 1, "unary_float", elementwise(_deg2rad), FLOATS, "deg2rad",
       dtype_errors=_complex_error("deg2rad is not supported for complex tensors.")),
    Op("rad2deg", 1, "unary_float", elementwise(_rad2deg), FLOATS, "rad2deg",
       dtype_errors=_complex_error("rad2deg is not supported for complex tensors.")),
    Op("signbit", 1, "unary_bool", _signbit, REAL, "signbit_cpu",
       dtype_errors=_complex_error("signbit is not implemented for complex tensors.",
                                   NotImplementedError)),
    Op("_angle_real", 1, "unary_float", elementwise(_angle_real), FLOATS, "angle_cpu"),
    Op("_polygamma", 1, "unary_float", _polygamma_compute, FLOATS, "polygamma",
       checks=(_polygamma_dtype_check,), post_checks=(_polygamma_check,), defaults=(0,)),
    Op("_mvlgamma", 1, "unary_float", _mvlgamma_compute, FLOATS, "mvlgamma",
       post_checks=(_mvlgamma_check,), defaults=(1,)),
    # binary
    Op("xlogy", 2, "binary_float", _xlogy_compute, FLOATS, "xlogy_cpu", checks=_W),
    Op("special_xlog1py", 2, "binary_float", _xlog1py_compute, FLOATS, "xlog1py_cpu",
       checks=_W),
    Op("special_zeta", 2, "binary_float", _bin(_zeta_k), F, "zeta_cpu", checks=_W),
    Op("igamma", 2, "binary", _bin(_igamma), FLOATS, "igamma_cpu", checks=_W),
    Op("igammac", 2, "binary", _bin(_igammac), FLOATS, "igammac_cpu", checks=_W),
    Op("nextafter", 2, "binary", _nextafter, FLOATS, "nextafter_cpu", checks=_W),
    Op("logaddexp2", 2, "binary", elementwise(_logaddexp2), FLOATS, "logaddexp2_cpu",
       checks=_W),
    Op("gcd", 2, "binary", _gcd, INTS, "gcd_cpu", checks=_W),
    Op("lcm", 2, "binary", _lcm, INTS, "lcm_cpu", checks=_W),
    Op("heaviside", 2, "binary", _heaviside, REAL, "heaviside_cpu",
       checks=_W + (_heaviside_check,)),
]
for _kind in "tuvw":
    for _shifted in (False, True):
        _fn = _cheb_poly(_kind, _shifted)
        TABLE.append(Op("special_" + _fn.__name__, 2, "binary_float", _bin(_fn, True), F,
                        _fn.__name__ + "_cpu", checks=_W))
for _fn, _nm in ((_hermite_h, "hermite_polynomial_h"), (_hermite_he, "hermite_polynomial_he"),
                 (_laguerre_l, "laguerre_polynomial_l"),
                 (_legendre_p, "legendre_polynomial_p")):
    TABLE.append(Op("special_" + _nm, 2, "binary_float", _bin(_fn, True), F, _nm + "_cpu",
                    checks=_W))


def _stamp_here(op):
    ns = {}
    _ew._stamp(op, ns)
    for name, fn in ns.items():
        fn.__module__ = __name__
        globals()[name] = fn


for _op in TABLE:
    _stamp_here(_op)
del _op, _kind, _shifted, _fn, _nm


_signbit_out_iter = signbit_out  # noqa: F821 - stamped above


def signbit_out(self, out):
    check(out._dtype is dt.bool_, "signbit does not support non-boolean outputs.")
    return _signbit_out_iter(self, out)


_heaviside_out_iter = heaviside_out  # noqa: F821 - stamped above


def heaviside_out(self, values, out):
    # torch's meta function checks out='s dtype with the inputs', before broadcasting
    dv = _ew._dtype_of(values)
    check(not (self._dtype.is_complex or dv.is_complex or out._dtype.is_complex),
          "heaviside is not yet implemented for complex tensors.")
    check(self._dtype is dv and out._dtype is self._dtype,
          "heaviside is not yet implemented for tensors with different dtypes.")
    return _heaviside_out_iter(self, values, out)


# -- kernels whose schema orders the arguments differently -----------------------------------

def polygamma(n, self):
    return _polygamma(self, n)  # noqa: F821 - stamped above


def polygamma_out(n, self, out):
    return _polygamma_out(self, n, out)  # noqa: F821 - stamped above


def polygamma_(self, n):
    return _polygamma_(self, n)  # noqa: F821 - stamped above


def mvlgamma(self, p):
    return _mvlgamma(self, p)  # noqa: F821 - stamped above


def mvlgamma_out(self, p, out):
    return _mvlgamma_out(self, p, out)  # noqa: F821 - stamped above


def mvlgamma_(self, p):
    return _mvlgamma_(self, p)  # noqa: F821 - stamped above


# -- ldexp: self * 2**other (torch's composite, as one kernel under LdexpBackward0) --------

def _pow2(other):
    return _ew.pow(2.0, other)


def ldexp(self, other):
    return _ew.mul(self, _pow2(other))


def ldexp_(self, other):
    return _ew.mul_(self, _pow2(other))


def ldexp_out(self, other, out):
    return _ew.mul_out(self, _pow2(other), out)


# -- frexp ---------------------------------------------------------------------------------

def _frexp_check(self):
    check(self._dtype.is_floating_point,
          "torch.frexp() only supports floating-point dtypes")


def frexp_out(self, mantissa, exponent):
    from .resize import resize_output
    _frexp_check(self)
    check(mantissa._dtype is self._dtype,
          lambda: f"torch.frexp() expects mantissa to have dtype "
                  f"{_ew._typemeta_name(self._dtype)} but got "
                  f"{_ew._typemeta_name(mantissa._dtype)}")
    check(exponent._dtype is dt.int32,
          lambda: f"torch.frexp() expects exponent to have int dtype but got "
                  f"{_ew._typemeta_name(exponent._dtype)}")
    resize_output(mantissa, self._sizes)
    resize_output(exponent, self._sizes)
    if self._device.type != "meta" and _numel(self):
        x = self._array()
        xs = x.astype(_F32) if self._dtype is dt.bfloat16 else x
        m, e = np.frexp(xs)
        mantissa._array()[...] = m.astype(x.dtype)
        exponent._array()[...] = e
    mantissa._vc[0] += 1
    exponent._vc[0] += 1
    return mantissa, exponent


def _numel(t):
    n = 1
    for s in t._sizes:
        n *= s
    return n


def frexp(self):
    from .factory import empty_like
    _frexp_check(self)
    mantissa = empty_like(self)
    exponent = empty_like(self, dt.int32)
    return frexp_out(self, mantissa, exponent)


# -- logcumsumexp ----------------------------------------------------------------------------

def _logcumsumexp_array(x, axis):
    if x.dtype.kind != "c":
        return np.logaddexp.accumulate(x, axis=axis)
    # a running pairwise log-add-exp, as torch's scan: the imaginary part accumulates
    # (it is not wrapped to (-pi, pi], as log(cumsum(exp(x))) would be)
    v = np.moveaxis(x, axis, 0).copy()
    for i in range(1, v.shape[0]):
        a, b = v[i - 1], v[i]
        first = a.real >= b.real
        hi = np.where(first, a, b)
        lo = np.where(first, b, a)
        r = hi + np.log1p(np.exp(lo - hi))
        v[i] = np.where(np.isinf(hi.real) & (hi == lo), hi, r)
    return np.moveaxis(v, 0, axis)


def logcumsumexp_out(self, dim, out):
    from ..core.checks import maybe_wrap_dim
    from .resize import resize_output
    d = maybe_wrap_dim(dim, max(len(self._sizes), 1))
    if self._dtype not in FLOATS | COMPLEX:
        raise NotImplementedError(
            f'"logcumsumexp_out_cpu" not implemented for \'{self._dtype._scalar_name}\'')
    check(out._dtype is self._dtype,
          lambda: f"expected scalar_type {self._dtype._scalar_name} but found "
                  f"{out._dtype._scalar_name}")
    resize_output(out, self._sizes)
    if self._device.type != "meta" and _numel(self):
        x = self._array()
        ct = _F32 if self._dtype in (dt.float16, dt.bfloat16) else x.dtype
        with np.errstate(all="ignore"):
            r = _logcumsumexp_array(x.astype(ct), d) if x.ndim else x
        out._array()[...] = np.reshape(r, x.shape).astype(x.dtype)
    out._vc[0] += 1
    return out


def logcumsumexp(self, dim):
    from .factory import empty_like
    return logcumsumexp_out(self, dim, empty_like(self, memory_format=None))


# -- complex numbers -------------------------------------------------------------------------

_COMPLEX_OF = {dt.float16: dt.complex32, dt.float32: dt.complex64, dt.float64: dt.complex128}


def _complex_check(a, b):
    ok = (dt.float16, dt.float32, dt.float64)
    check(a._dtype in ok and b._dtype in ok,
          lambda: f"Expected both inputs to be Half, Float or Double tensors but got "
                  f"{a._dtype._scalar_name} and {b._dtype._scalar_name}")
    check(a._dtype is b._dtype,
          lambda: f"Expected object of scalar type {a._dtype._scalar_name} but got scalar "
                  f"type {b._dtype._scalar_name} for second argument")


def _complex_build(a, b, out, polar):
    from .broadcast import broadcast_shapes
    from .factory import empty
    from .resize import resize_output
    _complex_check(a, b)
    shape = tuple(broadcast_shapes(a._sizes, b._sizes))
    cdt = _COMPLEX_OF[a._dtype]
    if out is None:
        if a._sizes == shape:    # the iterator's layout: the first input's, when it is full
            from .factory import empty_like
            out = empty_like(a, cdt)
        else:
            out = empty(shape, cdt, None, a._device)
    else:
        check(out._dtype is cdt,
              lambda: f"Expected object of scalar type {cdt._scalar_name} but got scalar type "
                      f"{out._dtype._scalar_name} for argument 'out'")
        resize_output(out, shape)
    if a._device.type != "meta" and _numel(out):
        x, y = a._array(), b._array()
        check(not polar or cdt is not dt.complex32,
              "\"polar_cpu\" not implemented for 'Half'", NotImplementedError)
        if cdt is dt.complex32:    # Note [complex32]: the parts are the halves themselves
            arr = out._array()
            arr["real"][...] = x
            arr["imag"][...] = y
            out._vc[0] += 1
            return out
        with np.errstate(all="ignore"):
            if polar:
                re, im = x * np.cos(y), x * np.sin(y)
            else:
                re, im = x, y
        arr = out._array()
        arr.real[...] = re
        arr.imag[...] = im
    out._vc[0] += 1
    return out


def complex(real, imag):
    return _complex_build(real, imag, None, False)


def complex_out(real, imag, out):
    return _complex_build(real, imag, out, False)


def polar(abs, angle):
    return _complex_build(abs, angle, None, True)


def polar_out(abs, angle, out):
    return _complex_build(abs, angle, out, True)


def _angle_complex(self, out):
    from .factory import empty_like
    from .resize import resize_output
    rdt = dt.float32 if self._dtype is dt.complex64 else dt.float64
    if out is None:
        out = empty_like(self, rdt)
    else:
        resize_output(out, self._sizes)
    if self._device.type != "meta" and _numel(self):
        out._array()[...] = np.angle(self._array())
    out._vc[0] += 1
    return out


def angle(self):
    if self._dtype.is_complex:
        return _angle_complex(self, None)
    return _angle_real(self)  # noqa: F821 - stamped above


def angle_out(self, out):
    if self._dtype.is_complex:
        return _angle_complex(self, out)
    return _angle_real_out(self, out)  # noqa: F821 - stamped above


# -- CompositeImplicitAutograd kernels: torch.special's aliases and isreal -------------------

def _s():
    import strided
    return strided


def isreal(self):
    s = _s()
    if not self.is_complex():
        return s.ones_like(self, dtype=s.bool)
    return s.imag(self) == 0


def _alias(target, method=None):
    def kernel(*args):
        return getattr(_s(), target)(*args)

    def kernel_out(*args):
        return getattr(_s(), target)(*args[:-1], out=args[-1])
    return kernel, kernel_out


for _name, _target in (("expm1", "expm1"), ("exp2", "exp2"), ("psi", "digamma"),
                       ("digamma", "digamma"), ("gammaln", "lgamma"), ("erf", "erf"),
                       ("erfc", "erfc"), ("erfinv", "erfinv"), ("i0", "i0"),
                       ("expit", "sigmoid"), ("sinc", "sinc"), ("log1p", "log1p"),
                       ("gammainc", "igamma"), ("gammaincc", "igammac"),
                       ("multigammaln", "mvlgamma"), ("xlogy", "xlogy"),
                       ("polygamma", "polygamma"), ("logsumexp", "logsumexp")):
    _k, _ko = _alias(_target)
    for _f, _suffix in ((_k, ""), (_ko, "_out")):
        _f.__name__ = _f.__qualname__ = f"special_{_name}{_suffix}"
        _f.__module__ = __name__
        globals()[_f.__name__] = _f
del _name, _target, _k, _ko, _f, _suffix


def _aten(name, *args):
    """Call the ``aten::<name>`` overload itself (torch's C++ composites call ``mul.Scalar``
    and ``add.Scalar``, whose nodes are MulBackward1 and AddBackward1)."""
    from ..ops.dispatcher import get_op
    return get_op("aten::" + name).call(args[0]._keyset, *args)


def special_ndtr(self):
    # (1 + erf(x / sqrt 2)) / 2, as torch's composite computes it (and records it)
    t = _aten("mul.Scalar", self, _SQRT1_2)
    return _aten("mul.Scalar", _aten("add.Scalar", _s().erf(t), 1, 1), 0.5)


def special_ndtr_out(self, out):
    s = _s()
    return s.mul((1 + s.erf(self * _SQRT1_2)), 0.5, out=out)


def special_logit(self, eps=None):
    return _s().logit(self, eps)


def special_logit_out(self, eps, out):
    return _s().logit(self, eps, out=out)


def special_round(self, decimals=0):
    return _s().round(self, decimals=decimals)


def special_round_out(self, decimals, out):
    return _s().round(self, decimals=decimals, out=out)


def special_softmax(self, dim, dtype=None):
    return _s().softmax(self, dim, dtype=dtype)


def special_log_softmax(self, dim, dtype=None):
    return _s().log_softmax(self, dim, dtype=dtype)

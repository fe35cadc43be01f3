"""Recompute the Chebyshev coefficient tables of src/strided/kernels/special_functions.py
(Note [Special functions as Chebyshev series]) with mpmath at 40 digits:

    python tests/special/fit_coefficients.py > /tmp/coefs.txt

Each table is the interpolant at the Chebyshev points of the function on its piece, in the
variable ``t`` in [-1, 1] given with it, cut where the terms fall below 1e-18 of the largest.
Not a test (pytest collects test_*.py only); mpmath is a test dependency.
"""

import mpmath as mp

mp.mp.dps = 40
pi = mp.pi


def cheb(f, N=100, tol=1e-18):
    """Chebyshev coefficients of f on [-1, 1] (f takes an mpf t)."""
    th = [mp.pi * (j + mp.mpf(1) / 2) / N for j in range(N)]
    vals = [f(mp.cos(t)) for t in th]
    cs = [2 * mp.fsum(v * mp.cos(k * t) for v, t in zip(vals, th)) / N for k in range(N)]
    cs[0] /= 2
    m = max(abs(c) for c in cs)
    last = max(i for i, c in enumerate(cs) if abs(c) > tol * m)
    return [float(c) for c in cs[:last + 1]]


F = {}


def add(name, f, N=100):
    F[name] = cheb(f, N)


i0e = lambda x: mp.besseli(0, x) * mp.exp(-x)
i1e = lambda x: mp.besseli(1, x) * mp.exp(-x)
add('I0E_A', lambda t: i0e(4 * (t + 1)))
add('I0E_B', lambda t: mp.sqrt(16 / (t + 1)) * i0e(16 / (t + 1)) if t > -1
    else 1 / mp.sqrt(2 * pi))
add('I1E_A', lambda t: i1e(4 * (t + 1)) / (4 * (t + 1)) if t > -1 else mp.mpf(1) / 2)
add('I1E_B', lambda t: mp.sqrt(16 / (t + 1)) * i1e(16 / (t + 1)) if t > -1
    else 1 / mp.sqrt(2 * pi))
def k0a(t):
    x2 = 2 * (t + 1)
    if x2 == 0:
        return -mp.euler
    x = mp.sqrt(x2)
    return mp.besselk(0, x) + mp.log(x / 2) * mp.besseli(0, x)
def k1a(t):
    x2 = 2 * (t + 1)
    if x2 == 0:
        return mp.mpf(1)
    x = mp.sqrt(x2)
    return x * (mp.besselk(1, x) - mp.log(x / 2) * mp.besseli(1, x))
add('K0_A', k0a)
add('K1_A', k1a)
add('K0_B', lambda t: mp.sqrt(4 / (t + 1)) * mp.exp(4 / (t + 1)) * mp.besselk(0, 4 / (t + 1))
    if t > -1 else mp.sqrt(pi / 2))
add('K1_B', lambda t: mp.sqrt(4 / (t + 1)) * mp.exp(4 / (t + 1)) * mp.besselk(1, 4 / (t + 1))
    if t > -1 else mp.sqrt(pi / 2))
X2 = lambda t: 25 * (t + 1) / 2
add('J0_A', lambda t: mp.besselj(0, mp.sqrt(X2(t))))
add('J1_A', lambda t: mp.besselj(1, mp.sqrt(X2(t))) / mp.sqrt(X2(t)) if t > -1 else mp.mpf(1) / 2)
def y0a(t):
    x2 = X2(t)
    if x2 == 0:
        return 2 / pi * (mp.euler - mp.log(2))
    x = mp.sqrt(x2)
    return mp.bessely(0, x) - 2 / pi * mp.log(x) * mp.besselj(0, x)
def y1a(t):
    x2 = X2(t)
    x = mp.sqrt(x2) if x2 else mp.mpf('1e-30')
    return (mp.bessely(1, x) - 2 / pi * (mp.log(x) * mp.besselj(1, x) - 1 / x)) / x
add('Y0_A', y0a)
add('Y1_A', y1a)
def pq(n, which):
    def f(t):
        u = (t + 1) / 2
        if u == 0:
            return mp.mpf(1) if which == 'P' else (4 * n * n - 1) / mp.mpf(8)
        x = 5 / mp.sqrt(u)
        phi = x - (2 * n + 1) * pi / 4
        J, Y = mp.besselj(n, x), mp.bessely(n, x)
        s = mp.sqrt(pi * x / 2)
        if which == 'P':
            return s * (J * mp.cos(phi) + Y * mp.sin(phi))
        return x * s * (-J * mp.sin(phi) + Y * mp.cos(phi))
    return f
for n in (0, 1):
    add(f'P{n}', pq(n, 'P'))
    add(f'Q{n}', pq(n, 'Q'))
# airy
AX0, AX1 = mp.mpf(2), mp.mpf(5)    # positive asymptotic from 2, negative from -5
add('AI_MID', lambda t: mp.airyai((t + 1) / 2 * (AX0 + AX1) - AX1), N=120)
Z0 = 2 * AX0 ** mp.mpf(1.5) / 3
def ai_pos(t):
    u = (t + 1) / 2
    if u == 0:
        return mp.mpf(1)
    zeta = Z0 / u
    x = (3 * zeta / 2) ** (mp.mpf(2) / 3)
    return mp.airyai(x) * 2 * mp.sqrt(pi) * x ** mp.mpf(0.25) * mp.exp(zeta)
add('AI_POS', ai_pos)
Z1 = 2 * AX1 ** mp.mpf(1.5) / 3
def ai_neg(which):
    def f(t):
        u = (t + 1) / 2
        if u == 0:
            return mp.mpf(1) if which == 'P' else mp.mpf(5) / 72
        zeta = Z1 / u
        z = (3 * zeta / 2) ** (mp.mpf(2) / 3)
        th = zeta + pi / 4
        A = mp.airyai(-z) * mp.sqrt(pi) * z ** mp.mpf(0.25)
        B = mp.airybi(-z) * mp.sqrt(pi) * z ** mp.mpf(0.25)
        if which == 'P':
            return A * mp.sin(th) + B * mp.cos(th)
        return zeta * (-A * mp.cos(th) + B * mp.sin(th))
    return f
add('AI_NEG_P', ai_neg('P'))
add('AI_NEG_Q', ai_neg('Q'))
# erfcx
erfcx = lambda x: mp.exp(x * x) * mp.erfc(x)
add('ERFCX_A', lambda t: erfcx(3 * (t + 1) / 2))
add('ERFCX_B', lambda t: (3 / ((t + 1) / 2)) * erfcx(3 / ((t + 1) / 2)) if t > -1
    else 1 / mp.sqrt(pi))


if __name__ == "__main__":
    for name, cs in F.items():
        print(f"_{name} = _c(")
        row = "    "
        for c in cs:
            item = repr(c) + ", "
            if len(row) + len(item) > 99:
                print(row.rstrip())
                row = "    "
            row += item
        print(row.rstrip())
        print(")")

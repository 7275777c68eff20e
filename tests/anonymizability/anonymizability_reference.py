"""Slow, literal plain-Python version of spec §5, the yardstick for the numba kernels."""

from __future__ import annotations

from fractions import Fraction

NORMAL_RATIO = 0.6744897501960817 / 2.3263478740408408


def fingerprints(users, minutes, xs, ys):
    """user code -> sorted list of distinct (minute, x, y) samples."""
    out: dict[int, set] = {}
    for u, t, x, y in zip(users, minutes, xs, ys, strict=True):
        out.setdefault(int(u), set()).add((float(t), float(x), float(y)))
    return {u: sorted(s) for u, s in out.items()}


def parts(si, sj, ws, wt, smax, tmax):
    ti, xi, yi = si
    tj, xj, yj = sj
    return ws * min((abs(xi - xj) + abs(yi - yj)) / smax, 1.0), wt * min(abs(ti - tj) / tmax, 1.0)


def best_match(si, other, p):
    """(distance, spatial part, temporal part) of the first sample of ``other`` nearest to ``si``."""
    best = None
    for sj in other:
        sp, tp = parts(si, sj, *p)
        if best is None or sp + tp < best[0]:
            best = (sp + tp, sp, tp)
    return best


def matched(fa, fb, p):
    """The matched sample distances that Δ_ab averages, as (d, spatial, temporal) triples."""
    out = []
    if len(fa) >= len(fb):
        out += [best_match(s, fb, p) for s in fa]
    if len(fb) >= len(fa):
        out += [best_match(s, fa, p) for s in fb]
    return out


def fingerprint_distance(fa, fb, p):
    if len(fa) == len(fb):
        one = sum(best_match(s, fb, p)[0] for s in fa) / len(fa)
        two = sum(best_match(s, fa, p)[0] for s in fb) / len(fb)
        return (one + two) / 2
    longer, shorter = (fa, fb) if len(fa) > len(fb) else (fb, fa)
    return sum(best_match(s, shorter, p)[0] for s in longer) / len(longer)


def gini(values):
    s = sorted(values)
    n = len(s)
    total = sum(s)
    if total == 0:
        return 0.0
    return sum((2 * i - n - 1) * v for i, v in enumerate(s, start=1)) / (n * total)


def quantile(values, p: Fraction):
    s = sorted(values)
    return next(v for v in s if Fraction(sum(1 for w in s if w <= v), len(s)) >= p)


def tail_weight(values):
    q50, q75, q99 = (quantile(values, Fraction(a, 100)) for a in (50, 75, 99))
    if q75 == q50:
        return float("nan")
    return (q99 - q50) / (q75 - q50) * NORMAL_RATIO


def anonymizability(fps, targets, ks, p):
    """Per k, per target: (delta, spatial gini, temporal gini, spatial tail, temporal tail, ratio)."""
    out = {k: [] for k in ks}
    for a in targets:
        ranked = sorted((fingerprint_distance(fps[a], fps[b], p), b) for b in fps if b != a)
        for k in ks:
            near = ranked[: k - 1]
            triples = [m for _, b in near for m in matched(fps[a], fps[b], p)]
            sp = [m[1] for m in triples]
            tp = [m[2] for m in triples]
            ratio = sum(tp) / sum(sp) if sum(sp) > 0 else (float("inf") if sum(tp) > 0 else float("nan"))
            out[k].append(
                (
                    sum(d for d, _ in near) / (k - 1),
                    gini(sp),
                    gini(tp),
                    tail_weight(sp),
                    tail_weight(tp),
                    ratio,
                )
            )
    return out

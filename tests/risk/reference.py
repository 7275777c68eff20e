"""Slow, obviously-correct plain-Python versions of the risk measures (metrics.md §3-§4), for the tests."""

from __future__ import annotations

import math
from itertools import combinations


def anonymity_set(traces: list[set[int]], known: set[int]) -> list[int]:
    """E = users whose trace contains every known point."""
    return [v for v, t in enumerate(traces) if known <= t]


def em_kl(traces: list[set[int]], known: set[int], d: int) -> tuple[float, float, list[float]]:
    """EM_u, KL_u (means over all d points) and EM_uj per point, straight from the definitions."""
    n = len(traces)
    members = anonymity_set(traces, known)
    em_j = []
    kl = 0.0
    for j in range(d):
        prior = sum(j in t for t in traces) / n
        post = sum(j in traces[v] for v in members) / len(members)
        em_j.append(abs(post - prior))
        for pt, qt in ((post, prior), (1 - post, 1 - prior)):
            if pt > 0:
                kl += pt * math.log(pt / qt)
    return sum(em_j) / d, kl / d, em_j


def exact_measures(traces: list[set[int]], p: int, d: int) -> dict:
    """Every measure averaged over all p-subsets of every trace (users with < p points excluded)."""
    uni, kdisc, em, kl, worst, per_point = [], [], [], [], [], [0.0] * d
    for t in traces:
        subsets = [set(c) for c in combinations(sorted(t), p)]
        if not subsets:
            continue
        sizes = [len(anonymity_set(traces, a)) for a in subsets]
        uni.append(sum(s == 1 for s in sizes) / len(sizes))
        kdisc.append(sum(1 / s for s in sizes) / len(sizes))
        worst.append(max(1 / s for s in sizes))
        res = [em_kl(traces, a, d) for a in subsets]
        em.append(sum(r[0] for r in res) / len(res))
        kl.append(sum(r[1] for r in res) / len(res))
        for j in range(d):
            per_point[j] += sum(r[2][j] for r in res) / len(res)
    m = len(uni)
    mean = (lambda xs: sum(xs) / m) if m else (lambda xs: float("nan"))
    return {
        "n_included": m,
        "unicity": mean(uni),
        "kdisc": mean(kdisc),
        "em": mean(em),
        "kl": mean(kl),
        "worst_mean": mean(worst),
        "worst_share": mean([w == 1.0 for w in worst]),
        "per_point_em": [x / m for x in per_point] if m else [],
    }


def individual_risks(traces: list[set[int]], p: int) -> list[list[float]]:
    """Per user with at least p points: the risk 1/|E(A)| of every p-subset A of their trace."""
    out = []
    for t in traces:
        subsets = [set(c) for c in combinations(sorted(t), p)]
        if subsets:
            out.append([1 / len(anonymity_set(traces, a)) for a in subsets])
    return out


def records_at_risk(risks: list[list[float]], k: int) -> float:
    """Mean over people of the share of their draws with |E| < k, i.e. risk above 1/k."""
    if not risks:
        return float("nan")
    return sum(sum(r > 1 / k for r in rs) / len(rs) for rs in risks) / len(risks)


def highest_risk(risks: list[list[float]]) -> float:
    """The largest risk of any draw of anyone."""
    return max((r for rs in risks for r in rs), default=float("nan"))


def records_at_highest_risk(risks: list[list[float]]) -> float:
    """Mean over people of the share of their draws whose risk is the largest risk of any draw."""
    if not risks:
        return float("nan")
    top = highest_risk(risks)
    return sum(sum(r == top for r in rs) / len(rs) for rs in risks) / len(risks)


def fingerprint_class_sizes(traces: list[set[int]]) -> list[int]:
    """Size of each user's class of identical traces."""
    keys = [frozenset(t) for t in traces]
    return [keys.count(k) for k in keys]


def sparsity(n: int, q: float, d: int) -> tuple[float, float]:
    """P_unique and P_2anon by the textbook formulas (fine for moderate values)."""
    p_match = (q * q + (1 - q) ** 2) ** d
    p_unique = (1 - p_match) ** (n - 1)
    return p_unique, (1 - p_unique) ** n


def targeted_search(
    traces: list[set[int]], u: int, pmax: int, beam: int, budget: float = math.inf
) -> tuple[list[int], int, float]:
    """The targeted worst-case search of person ``u`` step by step (kernels/worst_search.py): rarest points
    first, each level extends every kept subset by each point it lacks and keeps the ``beam`` distinct
    subsets with the smallest sets (stable on ties). Extending a subset costs its rarest point's holders
    times the trace length; the search stops before an extension over ``budget``, its smallest set then
    standing for every larger p. Returns the smallest set per k (0: fewer points) and the first p whose
    value the budget touched (0: none, or a set of one was found), and the work spent."""
    holders = {x: len(anonymity_set(traces, {x})) for t in traces for x in t}
    pts = sorted(sorted(traces[u]), key=lambda x: holders[x])
    best = [0] * pmax
    if not pts:
        return best, 0, 0.0
    m, top = len(pts), min(pmax, len(pts))
    kept = [[x] for x in pts[:beam]]
    best[0] = holders[pts[0]]
    spent, k, cut = 0.0, 1, 0
    while k < top and best[k - 1] > 1:
        cand, stopped = [], False
        for b, subset in enumerate(kept):
            cost = float(min(holders[x] for x in subset) * m)
            if spent + cost > budget:
                stopped = True
                break
            spent += cost
            cand += [(len(anonymity_set(traces, {*subset, y})), b, y) for y in pts if y not in subset]
        if cand:
            ranked = sorted(cand, key=lambda c: c[0])
            nxt: list[list[int]] = []
            for _, b, y in ranked:
                row = [*kept[b], y]
                if len(nxt) < min(beam, len(cand)) and all(set(row) != set(r) for r in nxt):
                    nxt.append(row)
            kept, best[k] = nxt, ranked[0][0]
        else:
            best[k] = best[k - 1]
        k += 1
        if stopped:
            cut = k if best[k - 1] > 1 else 0
            break
    for j in range(k, top):
        best[j] = best[k - 1]
    return best, cut, spent


def targeted_searches(
    traces: list[set[int]], users: list[int], pmax: int, beam: int, budget: float, parts: int
) -> list[tuple[list[int], int]]:
    """:func:`targeted_search` of each of ``users`` with a budget of ``budget`` per person pooled in
    ``parts`` consecutive parts: in order, each person may spend what is left of the part's budget over the
    people left in it."""
    out = []
    for part in range(parts):
        lo, hi = part * len(users) // parts, (part + 1) * len(users) // parts
        left = budget * (hi - lo)
        for s in range(lo, hi):
            best, cut, spent = targeted_search(traces, users[s], pmax, beam, left / (hi - s))
            left -= spent
            out.append((best, cut))
    return out

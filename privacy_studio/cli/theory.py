"""``privacy-studio theory``: sparsity-theory curves P_unique and P_2anon against d (metrics.md §3)."""

from __future__ import annotations

import argparse

from privacy_studio.cli import UserError
from privacy_studio.cli.risk import write_json


def parse_dims(text: str) -> list[int]:
    """``10,100,1000`` or ``1-50`` ranges, or a mix; raise ``UserError`` on anything else."""
    dims: list[int] = []
    for part in (t.strip() for t in text.split(",")):
        lo, dash, hi = part.partition("-")
        try:
            dims.extend(range(int(lo), int(hi) + 1) if dash else [int(part)])
        except ValueError:
            raise UserError(
                f"--d {text!r}: expected numbers of dimensions like 10,100,1000 or 1-50"
            ) from None
    if not dims or any(d < 0 for d in dims):
        raise UserError(f"--d {text!r}: give at least one d ≥ 0")
    return dims


def run(args: argparse.Namespace) -> int:
    from privacy_studio.core.measures.theory import sparsity_curves

    dims = parse_dims(args.d)
    try:
        curves = sparsity_curves(args.n, args.q, dims)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    print(f"{'d':>10} {'P_match':>12} {'P_unique':>12} {'P_2anon':>12}")
    for i, d in enumerate(dims):
        row = " ".join(f"{curves[k][i]:>12.4g}" for k in ("p_match", "p_unique", "p_2anon"))
        print(f"{d:>10} {row}")
    payload = {"n": args.n, "q": args.q, "d": dims}
    payload.update({k: [float(v) for v in curves[k]] for k in ("p_match", "p_unique", "p_2anon")})
    write_json(args.json, payload)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "theory", help="sparsity theory: probability of unique and of 2-anonymous records vs d"
    )
    p.add_argument("--n", type=int, required=True, help="number of records (users)")
    p.add_argument("--q", type=float, required=True, help="fill rate: probability that a cell is 1")
    p.add_argument("--d", required=True, help="dimensions: comma list or ranges, e.g. 10,100,1000 or 1-50")
    p.add_argument(
        "--json", required=True, metavar="OUT", help="write the curves as JSON to OUT ('-' = stdout)"
    )
    p.set_defaults(func=run)

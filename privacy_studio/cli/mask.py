"""``privacy-studio mask``: mask numeric attributes of a CSV file (noise, microaggregation, rank swapping)."""

from __future__ import annotations

import argparse

from privacy_studio.cli import UserError
from privacy_studio.core.atomic import atomic_write
from privacy_studio.core.choices import MASKING_METHODS


def run(args: argparse.Namespace) -> int:
    from privacy_studio.core.masking import information_loss, mask
    from privacy_studio.core.measures.attacks.features import read_numeric_table

    try:
        frame, cols = read_numeric_table(args.input, column_names(args.columns))
        x = frame[cols].to_numpy(dtype=float)
        masked = mask(x, args.method, k=args.k, p=args.p, seed=args.seed)
        loss = information_loss(x, masked)
    except ValueError as exc:
        raise UserError(str(exc)) from exc
    out = frame.copy()
    out[cols] = masked

    with atomic_write(args.out) as fh:
        out.to_csv(fh, index=False)
    kept = [str(c) for c in frame.columns if c not in cols]
    unchanged = f" ({', '.join(kept)} copied unchanged)" if kept else ""
    print(
        f"masked {len(out)} records x {len(cols)} attributes with {args.method}{unchanged}; wrote {args.out}"
    )
    print("information loss: " + ", ".join(f"{k} {v:.4g}" for k, v in loss.items()))
    return 0


def column_names(values: list[str] | None) -> list[str] | None:
    """``--columns a b``, ``--columns a,b`` or both mixed: the names, in order (None when not given)."""
    if values is None:
        return None
    return [name.strip() for value in values for name in value.split(",") if name.strip()]


def register(sub: argparse._SubParsersAction) -> None:

    p = sub.add_parser(
        "mask",
        help="mask numeric attributes of a CSV file (noise, microaggregation, rank swapping)",
        description="Row i of the output is the masked version of row i of the input; columns not chosen "
        "with --columns are copied unchanged.",
    )
    p.add_argument("--method", choices=MASKING_METHODS, required=True, help="masking method")
    p.add_argument("--in", dest="input", required=True, metavar="X.csv", help="input CSV with a header")
    p.add_argument("--out", required=True, metavar="M.csv", help="masked CSV to write")
    p.add_argument(
        "--columns",
        nargs="+",
        metavar="NAME",
        help="attributes to mask, space- or comma-separated (default: every column but user_id)",
    )
    p.add_argument(
        "--k",
        type=float,
        default=1.0,
        help="noise: Var(noise) = k·Var(X); multiplicative: σ of the factor; micro: group size (default 1)",
    )
    p.add_argument(
        "--p", type=float, default=5.0, help="rank swapping window in %% of the records (default 5)"
    )
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.set_defaults(func=run)

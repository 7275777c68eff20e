"""Per-user results in project files are keyed by a salted hash, never by the original user id.

Each project draws its own random salt (kept in the project, ``analyses["user_keys"]``); a user's key is
the HMAC-SHA-256 of the id under that salt. The risk by group joins the attributes file by keying its ids
the same way. The salt sits in the same file, so someone holding the project and a list of candidate ids
can still test them: the keys stop ids from being read off the file, not from being guessed.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable
from typing import Any

#: Where the salt is kept in a project's ``analyses``.
KEY = "user_keys"
#: Hex digits of a key (96 bits: no two users of one project share one in practice).
KEY_DIGITS = 24


def new_salt() -> str:
    """A fresh random salt from the operating system's secure generator."""
    return secrets.token_hex(16)


def user_keys(ids: Iterable[Any], salt: str) -> list[str]:
    """The salted key of every id (ids compared as text, as the attributes file and results spell them)."""
    secret = bytes.fromhex(salt)
    return [hmac.new(secret, str(i).encode("utf-8"), hashlib.sha256).hexdigest()[:KEY_DIGITS] for i in ids]


def keyed_results(results: list[dict[str, Any]], salt: str) -> list[dict[str, Any]]:
    """The results with every ``per_user.user_ids`` replaced by ``per_user.user_keys`` (copies, not views)."""
    out = []
    for result in results:
        per_user = result.get("per_user") if isinstance(result, dict) else None
        if isinstance(per_user, dict) and "user_ids" in per_user:
            rest = {k: v for k, v in per_user.items() if k != "user_ids"}
            result = {**result, "per_user": {**rest, "user_keys": user_keys(per_user["user_ids"], salt)}}
        out.append(result)
    return out


def has_user_ids(results: list[dict[str, Any]]) -> bool:
    """Whether any result still names users by their original ids."""
    return any(isinstance(r.get("per_user"), dict) and "user_ids" in r["per_user"] for r in results)


def project_salt(analyses: dict[str, Any]) -> str:
    """The project's salt, drawn and kept in ``analyses`` the first time it is needed."""
    saved = analyses.get(KEY)
    if isinstance(saved, dict) and isinstance(saved.get("salt"), str):
        return saved["salt"]
    salt = new_salt()
    analyses[KEY] = {"version": 1, "salt": salt}
    return salt


def check_salt(saved: Any, where: str) -> None:
    """``ValueError`` unless ``saved`` is the saved form of a salt."""
    salt = saved.get("salt") if isinstance(saved, dict) else None
    try:
        ok = isinstance(salt, str) and len(bytes.fromhex(salt)) >= 16
    except ValueError:
        ok = False
    if not ok:
        raise ValueError(f"{where} must be an object with a 'salt' of at least 32 hex digits")


def keyed_anonymizability(content: Any, salt: str) -> Any:
    """The Anonymizability page's saved results with every ``users`` list keyed (marked ``users_keyed``)."""
    if isinstance(content, list):
        return [keyed_anonymizability(item, salt) for item in content]
    if not isinstance(content, dict):
        return content
    if isinstance(content.get("results"), list):
        rows = [
            {**r, "users": user_keys(r.get("users", []), salt), "users_keyed": True}
            if isinstance(r, dict) and not r.get("users_keyed")
            else r
            for r in content["results"]
        ]
        return {**content, "results": rows}
    return {k: keyed_anonymizability(v, salt) for k, v in content.items()}


def keyed_project_parts(results: list[dict[str, Any]], analyses: dict[str, Any]) -> list[dict[str, Any]]:
    """Key the per-user parts of a project's results and analyses (``analyses`` is updated in place: its
    salt, its anonymizability results); returns the keyed results. A project without per-user parts gets
    no salt."""
    anonymizability = analyses.get("anonymizability")
    if not has_user_ids(results) and anonymizability is None:
        return results
    salt = project_salt(analyses)
    if anonymizability is not None:
        analyses["anonymizability"] = keyed_anonymizability(anonymizability, salt)
    return keyed_results(results, salt)

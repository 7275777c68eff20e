"""How far a new release links to the project's earlier releases of the same people.

Fresh pseudonyms stop joins on ids, not the linkage of traces: an attacker holding an earlier file can
match each person of the new file to the most similar trace of the old one. The matching attack
(``measures.attacks.matching``, docs/attacks.md) is run between the events behind the new file and those
behind each earlier one (re-made from the data and the earlier release's recorded options; its pseudonyms
are not needed since the studio knows who is who), both generalized to the coarser of the two profiles.
The share re-linked is the share of the people in both files assigned to their own trace. Event counts
are used even when a file carries none, so the figure is an upper bound for such files. A linkage the
attack cannot measure (too many people for its score matrix) counts as one over the ceiling.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from privacy_studio.core.events import EventTable
from privacy_studio.core.generalize import Profile, TemporalLevel, generalize, spatial_units
from privacy_studio.core.hierarchy import Hierarchy
from privacy_studio.core.kernels.gil_free import distinct
from privacy_studio.core.measures.attacks.matching import run_matching
from privacy_studio.core.progress import TaskControl, as_control
from privacy_studio.core.release.options import ReleaseOptions
from privacy_studio.core.release.suppression import suppress
from privacy_studio.core.release.table import event_points, kept_events


@dataclass(frozen=True)
class Linkage:
    """The matching attack between this release and one earlier release of the project."""

    release_file: str  # the earlier release
    release_sha256: str
    profile: str  # the common profile both were generalized to
    in_both: int  # people released in both files
    relinked: int  # of them, assigned to their own trace in the earlier file
    share: float | None  # relinked / in_both (0 when nobody is in both); None when it could not be measured
    note: str = ""  # why it could not be measured


def released_events(
    events: EventTable, hierarchy: Hierarchy | None, options: ReleaseOptions
) -> EventTable | None:
    """The input events behind a release made with ``options`` (None when it releases nobody)."""
    traces = suppress(generalize(events, options.profile, hierarchy), options).traces
    rows = kept_events(traces, events, event_points(events, options, hierarchy).points)
    if len(rows) == 0:
        return None
    part = replace(
        events,
        **{name: value[rows] for name, value in events.row_columns().items()},
        _local_time=None,
        _offsets=None,
        _period=None,
    )
    return part.subset_users(distinct(part.user))


def _coarser_temporal(a: TemporalLevel, b: TemporalLevel) -> TemporalLevel:
    if a.seconds is None or b.seconds is None:
        return a if a.seconds is None else b
    return a if a.seconds >= b.seconds else b


def common_profile(
    events: EventTable, hierarchy: Hierarchy | None, a: ReleaseOptions, b: ReleaseOptions
) -> Profile:
    """The coarser spatial level (fewer units on the data) and the wider time bins of two releases."""
    pa, pb = a.profile, b.profile
    units = [len(spatial_units(events, p.spatial, hierarchy).ids) for p in (pa, pb)]
    spatial = pa.spatial if units[0] <= units[1] else pb.spatial
    return Profile(spatial, _coarser_temporal(pa.temporal, pb.temporal))


def link(
    events: EventTable,
    hierarchy: Hierarchy | None,
    new: ReleaseOptions,
    earlier: ReleaseOptions,
    earlier_file: tuple[str, str],
    control: TaskControl | None = None,
) -> Linkage:
    """The matching attack from the new release to one earlier release (``earlier_file``: name, SHA-256)."""
    control = as_control(control)
    profile = common_profile(events, hierarchy, new, earlier)
    first, second = released_events(events, hierarchy, new), released_events(events, hierarchy, earlier)
    name, sha = earlier_file
    if first is None or second is None:
        return Linkage(name, sha, profile.label, 0, 0, 0.0)
    try:
        result = run_matching(
            first,
            second,
            profile,
            hierarchy_identified=hierarchy,
            hierarchy_anonymous=hierarchy,
            control=control,
        )
    except ValueError as exc:  # e.g. too many people for the attack's score matrix: judged as failing
        return Linkage(name, sha, profile.label, 0, 0, None, str(exc))
    in_both = result.n_true_pairs
    relinked = int(((result.assignment >= 0) & (result.assignment == result.truth)).sum())
    return Linkage(name, sha, profile.label, in_both, relinked, relinked / in_both if in_both else 0.0)

"""Plain-language explanations of every measure, shared by the window's help panel and the PDF report.

Each entry says what a number means, what it does NOT mean (the usual misreadings), and its formula, for a
data-release officer rather than a statistician. Exact definitions are in ``docs/measures.md``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from privacy_studio.core.risk.catalogue import UNICITY, canonical


@dataclass(frozen=True)
class Explanation:
    """What a measure means, what it does not mean, and its formula in one line."""

    title: str
    what: str
    not_what: str
    formula: str

    def text(self) -> str:
        """One paragraph for a tooltip or a help panel."""
        return f"{self.what} What it does not mean: {self.not_what}"


EXPLANATIONS: dict[str, Explanation] = {
    UNICITY: Explanation(
        "Unicity",
        "Suppose an outsider knows p places-and-times where a person was (a few calls, a few payments). "
        "Unicity is the share of people for whom those p clues match nobody else in the file, so the clues "
        "alone point to their record. 0.9 at p = 4 means 9 people in 10 are singled out by 4 clues.",
        "It is counted among the people in this file only. In the whole population more people could share "
        "the same clues, so a smaller file tends to look riskier, a bigger one safer. It is an estimate from "
        "random clues (see its interval) and assumes the outsider's clues are exact.",
        "ε_p = share of draws with |E_u| = 1, where E_u = people whose trace contains the p known points",
    ),
    "k_disclosure": Explanation(
        "k-disclosure",
        "The average chance of guessing the right record from p clues: if the clues fit k people, a guess "
        "among them is right one time in k. It counts partial exposure too, not only people who are unique.",
        "It is not the share of people exposed, and it is relative to the people in the file, like unicity. "
        "Unicity is its part that comes from people fitting alone (k = 1), so it is never below unicity.",
        "k-disclosure = mean over draws of 1 / |E_u|",
    ),
    "records_at_risk": Explanation(
        "Records at risk",
        "The share of people whose p clues fit fewer than k people in the file (k is a setting, 5 unless "
        "changed), so a guess among the candidates is right more often than one time in k. ARX's risk "
        "summary reports the same figure for its threshold; unicity is the special case k = 2.",
        "People just above the threshold are not safe, and people below it are not all singled out; it is "
        "relative to the people in the file and, like unicity, an estimate from random clues.",
        "records at risk = share of draws with |E_u| < k, i.e. individual risk 1/|E_u| above 1/k",
    ),
    "highest_risk": Explanation(
        "Highest individual risk",
        "The largest chance of guessing someone's record from p clues, over the people looked at: 1 when "
        "at least one person's clues fit them alone, 1/2 when nobody is alone but someone's clues fit "
        "exactly two people.",
        "It says nothing about how many people are that exposed (see records at risk and unicity); on "
        "sampled people it is a lower bound on the whole file's highest risk.",
        "highest risk = max over draws of 1 / |E_u|",
    ),
    "records_at_highest_risk": Explanation(
        "Records at the highest risk",
        "The share of people whose p clues fit as few people as the most exposed person's do: with the "
        "highest individual risk, it says whether the worst exposure is one person's or a large group's. "
        "ARX's risk summary reports it as the records affected by the highest risk.",
        "A small share is not safe when the highest risk is 1 (those people are singled out); on sampled "
        "people the highest risk is a lower bound, so this share is of the draws looked at.",
        "records at the highest risk = share of draws with |E_u| = min over draws of |E_v|",
    ),
    "attribute_disclosure": Explanation(
        "Attribute disclosure",
        "Even when nobody can be singled out, the people an outsider cannot tell apart may all share a "
        "sensitive attribute (an income band, an age band): then the outsider learns it without finding "
        "the record. For each sensitive attribute and each person, the studio looks at the group the "
        "person hides in (everyone with the same whole trace, and everyone the p known points fit) and "
        "reports the share of people whose group has one value only (homogeneous), fewer than l values "
        "(distinct l-diversity) or an entropy worth fewer than l equally common values (entropy "
        "l-diversity), and whose group's mix of values differs from the whole file's by more than t "
        "(t-closeness, earth mover's distance; bands such as age or income count how far apart they are).",
        "It is not a re-identification risk: a homogeneous group of a thousand people discloses the "
        "attribute of all of them, a unique person discloses it trivially. People without a value count "
        "as the value 'unknown'; the p-point figures are on the sampled people (every p-subset in exact "
        "mode).",
        "homogeneous: distinct values in the group = 1; entropy l = exp(-Σ s ln s); t = EMD(group, file)",
    ),
    "worst_case": Explanation(
        "Worst-case risk",
        "For each person, the outsider picks the p clues that narrow the candidates most; the risk is one "
        "in the smallest number of people those best clues can leave. The report gives its mean and the "
        "share of people who can be pinned down exactly by some choice of p clues. Where a trace is too "
        "long to try every choice of p clues, only a sample of choices is tried: the figure is then a lower "
        "bound, and the true worst case can be higher. The search has a work budget per profile, fixed "
        "before it starts; where it cut a person's search short, the figure says it is a lower bound from "
        "a limited search and for how many people.",
        "It assumes the outsider knows exactly the most revealing points, which is pessimistic; it is not "
        "what a typical outsider with random knowledge achieves (that is unicity).",
        "risk_u = max over p-subsets A of T_u of 1 / |E(A)|; when the subsets are sampled, the maximum "
        "over the sampled ones, a lower bound of risk_u",
    ),
    "k_anonymity": Explanation(
        "Full-fingerprint k-anonymity",
        "Groups people whose whole generalized trace is identical; the dataset is k-anonymous for the size "
        "of its smallest group. The report also gives the share of people in groups smaller than "
        "2, 5, 10, 100.",
        "Rich behavioural data is almost never k-anonymous for any useful k; and a dataset can be "
        "k-anonymous while an outsider knowing only part of a trace still singles people out — that is "
        "what unicity measures.",
        "k = smallest size of a group of users with T_v = T_u",
    ),
    "em_disclosure": Explanation(
        "EM-disclosure",
        "How much an outsider's p clues change what they can tell about every other place-and-time of a "
        "person: the gap between the chance the person was there before and after narrowing the candidates, "
        "averaged over all places and times. Near 0: the clues teach little; larger: they reveal the rest.",
        "It is an average over all points, most of which nobody visits, so its values look small; compare "
        "profiles with each other rather than reading it as a probability of harm.",
        "EM = (1/(n d)) Σ_u Σ_j |P(X_uj = 1 | A_u) − P(X_j = 1)|",
    ),
    "kl_disclosure": Explanation(
        "KL-disclosure",
        "Like EM-disclosure, the information the p clues give about the rest of a person's trace, measured "
        "as an information gain (in nats) between what was known about each point before and after.",
        "It has no upper bound of 1 and is not a probability; use it to rank profiles, not as a share of "
        "people at risk. Like every measure here it is relative to the people in the file.",
        "KL = (1/(n d)) Σ_u Σ_j Σ_t P(X_uj = t | A_u) ln(P(X_uj = t | A_u) / P(X_j = t))",
    ),
    "sparsity_theory": Explanation(
        "Sparsity theory",
        "A textbook model of why fine-grained data is hard to anonymise: if each of d cells were filled at "
        "random with the dataset's fill rate, it gives the chance that a record is unique, and that the data "
        "is 2-anonymous, as d grows. The dataset's own n and fill rate are marked on the curve.",
        "Real behaviour is not random (people repeat places), so the curve shows a trend, not this dataset's "
        "measured risk.",
        "P_unique = (1 − (q² + (1 − q)²)^d)^(n − 1), P_2anon = (1 − P_unique)^n",
    ),
    "anonymizability": Explanation(
        "Anonymizability (Δ^k)",
        "How far each person's raw trace is from those of their k−1 most similar people, on a 0-1 scale "
        "that mixes distance in space and in time. 0 means k−1 others already look the same; larger means "
        "the trace would have to be blurred more to hide it among k people.",
        "It is a distance, not a probability of re-identification, and it depends on the chosen maximum "
        "space and time distances and their weights.",
        "Δ_a^k = mean of the k−1 smallest fingerprint distances Δ_ab",
    ),
    "gini": Explanation(
        "Gini coefficient",
        "Whether the distance that separates a person from similar people comes from a few of their events "
        "(Gini near 1) or is spread over all of them (near 0). Concentrated distance means a few unusual "
        "events give the person away.",
        "It says nothing about how large the distance is, only how evenly it is spread.",
        "G = Σ_i (2i − N − 1) s_i / (N Σ_i s_i), s sorted ascending",
    ),
    "tail_weight": Explanation(
        "Tail weight index",
        "Whether a few events are far more distinctive than the typical one: above 1 the worst events stand "
        "out more than in a bell curve, which is where anonymisation effort should focus.",
        "It is a shape measure, not a risk level; it is unstable for people with few events.",
        "T = [(F⁻¹(.99) − F⁻¹(.5)) / (F⁻¹(.75) − F⁻¹(.5))] · [(Φ⁻¹(.75) − Φ⁻¹(.5)) / (Φ⁻¹(.99) − Φ⁻¹(.5))]",
    ),
    "matching_attack": Explanation(
        "Matching attack",
        "An attacker who holds another dataset about the same people with names (for example card "
        "payments) pairs each named person with the pseudonymous record whose activity in the same places "
        "and times fits best. Precision is the share of the pairs made that are right; recall, the share of "
        "people correctly found.",
        "A low score does not prove safety: a better-informed attacker or a richer second dataset can do "
        "better. It depends on how much the two datasets overlap in people and time.",
        "score(u, v) = Σ_b ln(likelihood same person / likelihood different persons); best assignment",
    ),
    "profiling_attack": Explanation(
        "Profiling attack",
        "An attacker who saw people's habits in one period (where they usually are) recognises them in a "
        "later pseudonymous release by comparing habit profiles. Accuracy is the share recognised.",
        "It measures recognition by habits only; accuracy falls as more people are in the file, so it is "
        "given against population size and does not carry over to a bigger population unchanged.",
        "match each later profile to the nearest earlier one (Jensen-Shannon distance), one-to-one",
    ),
    "record_linkage": Explanation(
        "Record linkage",
        "For a table of numbers per person that was masked (noise, grouping, swapping), the share of masked "
        "records an attacker holding the original values links back to the right person by nearest distance.",
        "It is a worst case for that masking and those attributes; it does not cover attackers who know only "
        "some attributes approximately.",
        "% correct = share of masked records whose nearest original record is their own",
    ),
    "transparency_attack": Explanation(
        "Transparency attack",
        "If the masking method and its parameter are published (as good practice asks), an attacker can "
        "list which masked records are still possible for each person; intersecting across attributes often "
        "leaves one record.",
        "It applies to rank swapping as modelled here; other masking methods need their own analysis.",
        "candidates(a) = ∩_j { masked records whose j-th value lies within p ranks of a's }",
    ),
    "information_loss": Explanation(
        "Information loss",
        "How much a coarser profile damages what the data is used for, against the finest profile: the share "
        "of distinct points lost, and the error of the population-density map and of the origin-destination "
        "matrix computed from it.",
        "It is a proxy: whether the loss matters depends on the use (the expert scores capture that); zero "
        "loss is only possible for the finest profile.",
        "loss = 1 − |points kept| / |points in finest|; map error = relative L1 error after re-aggregation",
    ),
    "pareto_front": Explanation(
        "Pareto front",
        "The profiles for which no other profile of the grid is both at least as safe and at least as useful "
        "(and better on one). Choosing outside the front gives up safety or usefulness for nothing.",
        "The front does not pick one profile: choosing along it is a policy decision (see the recommendation "
        "and its ceiling). It only covers the profiles in the grid.",
        "x dominates y if risk(x) ≤ risk(y), utility(x) ≥ utility(y), one strictly",
    ),
    "ordinal_equivalence": Explanation(
        "Ordinal equivalence",
        "Kendall's tau between the orderings of the profiles by two risk measures: 1 means both rank the "
        "profiles the same way, so the Pareto analysis does not depend on which of them is used.",
        "Equal rankings do not mean equal values; and a tau below 1 on a small grid can come from near-ties.",
        "τ = (concordant pairs − discordant pairs) / number of pairs (tie-corrected)",
    ),
    "power_law": Explanation(
        "Power law of coarsening",
        "Fits how unicity falls as places and times are coarsened together (unit size × time width) on a "
        "log-log scale, and says roughly what coarsening the fit predicts for a chosen risk ceiling.",
        "It is an extrapolation from this grid's points; the prediction is rough, and the fit quality shows "
        "how far to trust it.",
        "ε_p ≈ a · (size × width)^b, fitted on log ε_p against log(size × width)",
    ),
    "population_extrapolation": Explanation(
        "Population extrapolation",
        "Because unicity is relative to the people in the file, it is recomputed on random subsets of the "
        "users (10 % to 100 %), a trend is fitted against the number of people, and extended to the "
        "population size you enter.",
        "It is an extrapolation, not a measurement: it assumes the people outside the file behave like those "
        "in it, and it becomes unreliable far beyond the sizes measured.",
        "fit ε_p against n on subsamples; evaluate the fit at the entered population size",
    ),
    "risk_by_group": Explanation(
        "Risk by group",
        "Compares how easily people in each group (e.g. gender, age band, income band) are singled out, as "
        "unicity per group and the odds of being unique relative to the other groups, with intervals.",
        "A difference between groups is an association in this file, not a cause; small groups have wide "
        "intervals.",
        "odds ratio = odds(unique | group) / odds(unique | others)",
    ),
    "adversary_knowledge": Explanation(
        "Adversary knowledge",
        "Which p points the outsider is assumed to know: random points of the person's trace (uniform), "
        "points weighted by how often the person is there (activity), their p most frequent places (top); "
        "or, as scikit-mobility's attacks: p visits with repeats (records), in order (sequence), p places "
        "with visit counts or shares within a tolerance (frequency, proportion), or home and work.",
        "The real outsider may know more, or different, things; every figure holds only under the "
        "chosen model.",
        "A_u = p distinct points of T_u drawn by the chosen model",
    ),
}


def _key(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


#: Words for the topics besides the catalogue's names and aliases (which ``canonical`` resolves).
_ALIASES = {
    "epsilon": UNICITY,
    "worstcase": "worst_case",
    "worst_case_risk": "worst_case",
    "kanonymity": "k_anonymity",
    "full_fingerprint_k_anonymity": "k_anonymity",
    "kdisclosure": "k_disclosure",
    "theory": "sparsity_theory",
    "pareto": "pareto_front",
    "kendall_tau": "ordinal_equivalence",
    "extrapolation": "population_extrapolation",
    "knowledge": "adversary_knowledge",
}


def explain(name: str) -> Explanation:
    """The explanation of a measure by key, title or a common alias ("k-disclosure", "EM", "Pareto")."""
    key = canonical(_key(name))
    key = _ALIASES.get(key, key)
    if key in EXPLANATIONS:
        return EXPLANATIONS[key]
    for k, e in EXPLANATIONS.items():
        if _key(e.title) == key:
            return EXPLANATIONS[k]
    raise KeyError(f"no explanation for {name!r}; known: {', '.join(EXPLANATIONS)}")

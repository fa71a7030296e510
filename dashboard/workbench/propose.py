"""Propose (docs/judge-qa.md, "Propose"): an optimizer model (any LiteLLM model) reads the
dev split's worst disagreements of a judge at a rubric version and proposes revised
instructions; each parsed proposal is saved as a draft version (its parent the version read,
its author "optimizer:<model>"). A reply that does not parse is kept as `Unparsed` with its
reason, never dropped. Proposals are scored on dev only (`score_on_dev`: dev costs no look);
only the version the person picks is scored on test, through `lab.compare`. Nothing here
records a look at the test split.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from dashboard.auth.roles import User, require_admin
from dashboard.judging import BackgroundLoop, Panel
from dashboard.judging.optimizer import OptimizerReply, ask_optimizer, optimizer_judge
from dashboard.judging.rubrics import Rubric, RubricError
from dashboard.store import Store
from dashboard.workbench import agreement, run, split, versions
from dashboard.workbench.agreement import Disagreement, VersionScore
from dashboard.workbench.agreement_sql import JudgeRating
from dashboard.workbench.split import DEV
from dashboard.workbench.versions import RubricVersion

DEFAULT_PROPOSALS = 3
MAX_DISAGREEMENTS = 12
MAX_TEXT = 1200  # characters of a question, answer or explanation shown to the optimizer

OPTIMIZER_PROMPT = """\
You improve the instructions of an LLM judge so that its ratings agree with people's.

The judge rates answers on a scale from {scale_low} to {scale_high} with the rubric below.

[The Start of the Judge's Criteria]
{description}
[The End of the Judge's Criteria]

[The Start of the Judge's Instructions]
{system}
[The End of the Judge's Instructions]

[The Start of the Scale Descriptions]
{labels}
[The End of the Scale Descriptions]

[The Start of the Prompt Template (not to be changed)]
{template}
[The End of the Prompt Template]

Here are {n_shown} of the {n_total} answers where the judge and a person disagreed, the
largest disagreements first. Each shows the question, the answer, the judge's rating and
explanation, and the person's rating and comment.

{disagreements}

Propose {n_proposals} different revisions of the judge's instructions that would make it
rate as the people did, without naming any of these answers. Each revision rewrites
"system" (the instructions the judge sees, with the scale) and may rewrite "description"
(the criteria in one or two sentences, for people) and "labels" (an object from each scale
point to its description, for people); leave out either to keep it. Say in "rationale"
which disagreements the revision addresses.

Reply with one JSON object and nothing else:
{{"proposals": [{{"system": "...", "description": "...", "labels": {{"1": "..."}},
"rationale": "..."}}]}}"""

DISAGREEMENT = """\
### Disagreement {index}
[Question]
{question}
[Answer]
{answer}
[Judge] rating {judge_value}: {explanation}
[Person] rating {person_value}: {comment}"""


@dataclass(frozen=True)
class Unparsed:
    """A reply, or one proposal of it, that could not be read as a revision, and why."""

    reason: str
    text: str


@dataclass(frozen=True)
class Proposed:
    """One saved proposal: the draft version and the optimizer's rationale."""

    version: RubricVersion
    rationale: str


@dataclass(frozen=True)
class ProposeResult:
    parent: str
    optimizer: str  # "optimizer:<model>"
    n_disagreements: int  # on dev, of which at most MAX_DISAGREEMENTS were shown
    proposals: tuple[Proposed, ...]
    unparsed: tuple[Unparsed, ...]
    reply: OptimizerReply


def _cut(text: str | None) -> str:
    text = (text or "").strip() or "(none)"
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + " […]"


def render_optimizer_prompt(
    rubric: Rubric, found: Sequence[Disagreement], *, n_proposals: int
) -> str:
    """The optimizer's prompt: the version's criteria and scale, the worst dev disagreements."""
    shown = found[:MAX_DISAGREEMENTS]
    blocks = [
        DISAGREEMENT.format(
            index=i,
            question=_cut(d.question),
            answer=_cut(d.answer),
            judge_value=f"{d.judge_value:g}",
            explanation=_cut(d.explanation),
            person_value=f"{d.person_value:g}",
            comment=_cut(d.comment),
        )
        for i, d in enumerate(shown, 1)
    ]
    return OPTIMIZER_PROMPT.format(
        scale_low=f"{rubric.scale_low:g}",
        scale_high=f"{rubric.scale_high:g}",
        description=rubric.description.strip() or "(none)",
        system=(rubric.system or "").strip() or "(none)",
        labels="\n".join(f"{k}: {v}" for k, v in rubric.labels.items()) or "(none)",
        template=rubric.template.strip(),
        n_shown=len(shown),
        n_total=len(found),
        disagreements="\n\n".join(blocks) or "(none)",
        n_proposals=n_proposals,
    )


_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


def _json_of(text: str) -> object:
    fenced = _FENCE.search(text)
    body = fenced.group(1) if fenced else text
    start, end = body.find("{"), body.rfind("}")
    if start < 0 or end < start:
        raise ValueError("no JSON object in the reply")
    return json.loads(body[start : end + 1])


def _changes(item: object) -> tuple[dict[str, object], str]:
    if not isinstance(item, Mapping):
        raise ValueError("a proposal is not a JSON object")
    changes: dict[str, object] = {}
    for key in ("system", "description"):
        value = item.get(key)
        if value is not None and not (isinstance(value, str) and value.strip()):
            raise ValueError(f"{key!r} must be non-empty text")
        if value is not None:
            changes[key] = value.strip()
    labels = item.get("labels")
    if labels is not None:
        if not isinstance(labels, Mapping) or not all(isinstance(v, str) for v in labels.values()):
            raise ValueError("'labels' must map each scale point to text")
        changes["labels"] = {str(k): v.strip() for k, v in labels.items()}
    if "system" not in changes:
        raise ValueError("a proposal must rewrite 'system', the instructions the judge sees")
    rationale = item.get("rationale")
    return changes, rationale.strip() if isinstance(rationale, str) else ""


def parse_proposals(text: str | None) -> tuple[list[tuple[dict[str, object], str]], list[Unparsed]]:
    """(changes, rationale) of each proposal that parses, and what did not, with why."""
    if not text or not text.strip():
        return [], [Unparsed("the optimizer gave no text", text or "")]
    try:
        data = _json_of(text)
    except ValueError as error:  # json.JSONDecodeError is a ValueError
        return [], [Unparsed(f"not JSON: {error}", text)]
    items = data.get("proposals") if isinstance(data, Mapping) else None
    if not isinstance(items, list) or not items:
        return [], [Unparsed('no list under "proposals"', text)]
    parsed, unparsed = [], []
    for item in items:
        try:
            parsed.append(_changes(item))
        except ValueError as error:
            unparsed.append(Unparsed(str(error), json.dumps(item, ensure_ascii=False)))
    return parsed, unparsed


def propose_instructions(
    store: Store,
    *,
    rubric: str,
    dataset: str,
    judge: str,
    version: str,
    optimizer_model: str,
    n_proposals: int = DEFAULT_PROPOSALS,
    api_base: str | None = None,
    api_key_env: str | None = None,
    actor: User | None = None,
    loop: BackgroundLoop | None = None,
) -> ProposeResult:
    """Ask the optimizer for `n_proposals` revisions of `version` from the judge's dev
    disagreements and save each that parses as a draft version. A paid call: an admin's.
    Raises RubricError (no dev disagreement to learn from) and PanelError (a bad model)."""
    require_admin(actor, "ask an optimizer model for proposals (a paid call)")
    if not 1 <= n_proposals <= 10:
        raise ValueError(f"ask for 1 to 10 proposals, not {n_proposals}")
    parent = versions.get_version(store, rubric, version)
    root = versions.list_versions(store, rubric)[0].rubric
    scale = _scale(root)
    reads = agreement.read(store, rubric=root.name, dataset=dataset, judge=judge)
    found = agreement.disagreements(store, reads, judge=judge, version=version, scale=scale)
    if not found:
        raise RubricError(
            f"{judge} has no dev disagreement at {rubric} {version} on {dataset}: run the "
            "version on the labelled answers first (or there is nothing to learn from)"
        )
    model = optimizer_judge(optimizer_model, api_base=api_base, api_key_env=api_key_env)
    prompt = render_optimizer_prompt(parent.rubric, found, n_proposals=n_proposals)
    reply = ask_optimizer(
        store,
        model,
        [{"role": "user", "content": prompt}],
        rubric=root.name,
        rubric_version=version,
        loop=loop,
    )
    if reply.text is None:
        return ProposeResult(
            version,
            model.name,
            len(found),
            (),
            (Unparsed(f"the call failed: {reply.error}", ""),),
            reply,
        )
    parsed, unparsed = parse_proposals(reply.text)
    saved = []
    for changes, rationale in parsed:
        try:
            made = versions.save_version(
                store,
                rubric,
                parent=version,
                changes=changes,
                example_ids=[e.rating_id for e in parent.rubric.examples],
                author=model.name,
                actor=actor,
                note=(rationale or "proposed")[:500],
            )
        except RubricError as error:
            unparsed.append(Unparsed(f"not a valid rubric: {error}", json.dumps(changes)))
            continue
        saved.append(Proposed(made, rationale))
    return ProposeResult(version, model.name, len(found), tuple(saved), tuple(unparsed), reply)


def _scale(rubric: Rubric) -> tuple[float, float]:
    if rubric.scale_low is None or rubric.scale_high is None:
        raise RubricError(f"{rubric.name} is pairwise: the workbench proposes rating rubrics")
    return rubric.scale_low, rubric.scale_high


def score_on_dev(
    store: Store,
    *,
    rubric: str,
    dataset: str,
    judge: str,
    judges: str | Panel,
    version_names: Sequence[str],
    loop: BackgroundLoop | None = None,
    actor: User | None = None,
) -> list[VersionScore]:
    """Run `judges` under each version on the dev answers only (cached calls are not made
    again), and score the judge's ratings against people's on dev: no look is recorded.
    A version's own few-shot examples are left out of its dev numbers and are not judged."""
    require_admin(actor, "run judges on the dev split (paid calls)")
    root = versions.list_versions(store, rubric)[0].rubric
    dev = split.read_split(store, rubric=root.name, dataset=dataset).ids(DEV)
    shown: dict[str, set[str]] = {}
    for name in version_names:
        chosen = versions.get_version(store, rubric, name).rubric
        shown[name] = {e.response_id for e in chosen.examples}
        # An answer the version shows as an example is not scored: no call is paid for it.
        unseen = [r for r in dev if r not in shown[name]]
        plan = run.plan_version(store, judges=judges, rubric=chosen, dataset=dataset, only=unseen)
        if plan.n_targets:  # cached calls too: their ratings are written under this version
            run.run_version(store, plan, loop=loop, actor=actor)
    reads = agreement.read(store, rubric=root.name, dataset=dataset, judge=judge)
    hashes = {v.version: v.prompt_hash for v in versions.list_versions(store, rubric)}
    scores = []
    for name in version_names:
        sides = {r: s for r, s in reads.sides.items() if r not in shown[name]}
        own = agreement.Reads(_same_prompt(reads, hashes, name), reads.people, sides)
        scores += agreement.score_versions(own, scale=_scale(root), side=DEV)
    return scores


def _same_prompt(reads: agreement.Reads, hashes: Mapping[str, str], name: str) -> list[JudgeRating]:
    """The judge's ratings under `name`, or under any version that asks the judge the same
    prompt (a cached call writes no new rating): one per response, as `name`'s."""
    found: dict[str, JudgeRating] = {}
    ordered = sorted(reads.judges, key=lambda r: r.rubric_version != name)
    for r in ordered:
        if hashes.get(r.rubric_version) == hashes[name] and r.response_id not in found:
            found[r.response_id] = dataclasses.replace(r, rubric_version=name)
    return list(found.values())

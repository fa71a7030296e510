"""EM and F1 computed many at a time (`reference_qa`) equal `scoring.qa`'s to the last digit,
on seeded random texts that mix ASCII, Unicode, punctuation, articles and every kind of
whitespace, under both reference rules; and what the store keeps is those numbers."""

from __future__ import annotations

import random

import pyarrow as pa
import pytest

from dashboard.metrics import qa_rules, registry
from dashboard.metrics.reference import auto_scores as reference, reference_qa
from dashboard.metrics.registry import Case
from dashboard.store import Store
from scoring import qa
from tests import builders

# Pieces of text where the SQuAD normalization has its edge cases: articles in every case and
# glued to punctuation, underscores (punctuation, and a word character for \b), non-ASCII
# letters next to articles (a word boundary in Python, not in ASCII regexes), characters whose
# lower case is longer (İ) or depends on context (final sigma), fullwidth letters, combining
# marks, every ASCII whitespace character Python splits on (\x1c-\x1f too), Unicode spaces,
# control characters, and runs of spaces.
ATOMS = (
    *("the", "The", "THE", "a", "A", "an", "An", "thE", "aN"),
    *("paris", "Paris", "new", "York", "x", "1", "42", "co-op", "U.S.A."),
    *("_", "-", ".", "'", ",", "!", "(the)", "the.", "a-b", "an_", "_the", "a'", "A.N"),
    *("é", "É", "ß", "İ", "ΑΣ", "Σ", "thé", "éthe", "ｔｈｅ", "٣", "cafe\u0301", "naïve"),
    *("\t", "\n", "\r\n", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f"),
    *("\x85", "\xa0", "\u2028", "\u3000", "\u200b", "\x00", "\x01", "\x7f"),
    *(" ", "  ", ""),
)


# Printable ASCII only: every piece between two spaces is one token or none, the usual case.
ASCII_ATOMS = tuple(a for a in ATOMS if all("!" <= c <= "~" for c in a))


def _text(rng: random.Random, atoms: tuple[str, ...]) -> str:
    return "".join(
        rng.choice(atoms) + rng.choice(("", " ", " ", " ")) for _ in range(rng.randint(0, 9))
    )


def _cases(seed: int, n: int, atoms: tuple[str, ...] = ATOMS) -> list[tuple[str, list[str], bool]]:
    rng = random.Random(seed)
    cases = []
    for i in range(n):
        answer = _text(rng, atoms)
        refs = [_text(rng, atoms) for _ in range(rng.randint(1, 5))]
        if i % 4 == 0:  # an exact match after normalization, in another case and spacing
            refs[rng.randrange(len(refs))] = "  " + answer.upper() + " ."
        cases.append((answer, refs, rng.random() < 0.5))
    return cases


def _python(answer: str, refs: list[str], use_max: bool) -> tuple[float, float]:
    rule = qa.max_over_references if use_max else qa.multi_reference
    return rule(answer, refs, qa.exact_match), rule(answer, refs, qa.token_f1)


@pytest.mark.parametrize(
    ("seed", "atoms"), [(0, ATOMS), (1, ATOMS), (2, ATOMS), (3, ASCII_ATOMS), (4, ASCII_ATOMS)]
)
def test_batch_scores_equal_scoring_qa_on_random_texts(seed: int, atoms: tuple[str, ...]) -> None:
    cases = _cases(seed, 3000, atoms)
    batch = pa.record_batch(
        {
            "response_id": [str(i) for i in range(len(cases))],
            "answer": [c[0] for c in cases],
            "references": [c[1] for c in cases],
            "use_max": [c[2] for c in cases],
        }
    )
    found = reference_qa.score_batch(batch)
    assert 0.1 < found.em.mean() < 0.9 and 0.1 < found.f1.mean() < 0.9  # both kinds occur
    for i, (answer, refs, use_max) in enumerate(cases):
        # equality, not approx: the same number to the last digit
        assert (found.em[i], found.f1[i]) == _python(answer, refs, use_max), (answer, refs)


def test_token_ids_are_the_normalized_tokens() -> None:
    texts = ["The  Eiffel\tTower!", "eiffel tower", "a\nb\x1cc", "", "İstanbul the_end", "x"]
    tokens = reference_qa.token_ids(pa.array(texts))
    offset = 0
    seen: dict[int, str] = {}
    for text, n in zip(texts, tokens.lengths):
        words = qa.normalize_answer(text).split()
        ids = tokens.ids[offset : offset + n].tolist()
        offset += n
        assert len(ids) == len(words)
        for i, word in zip(ids, words):
            assert seen.setdefault(i, word) == word  # one id, one token text
    assert len(set(seen.values())) == len(seen)


def test_the_qa_metrics_computed_at_once_are_the_declared_ones() -> None:
    declared = [m.stored for m in registry.REFERENCE_METRICS if m.tasks & registry.QA_TASKS]
    assert tuple(declared) == reference.QA_METRICS
    assert set(reference.QA_METRICS) <= set(reference_qa.BatchScores._fields)


def test_stored_scores_are_the_python_scores(store: Store) -> None:
    # Two datasets, one per default rule, with the random texts as references and answers.
    items, responses, expected = [], [], {}
    for dataset, task in (("open", "open_qa"), ("talk", "conversational_qa")):
        for n, (answer, refs, _) in enumerate(_cases(7 if task == "open_qa" else 8, 400)):
            it = builders.item(dataset, n, task_type=task, refs=tuple(refs))
            resp = builders.response(it, "s", answer)
            items.append(it)
            responses.append(resp)
            expected[resp.response_id] = dict(
                reference.score_response(Case(task, answer, tuple(refs)))
            )
    store.add_items(items, responses)
    # every one of them is scored many at a time, none by the one-at-a-time loop
    with store.write_lock, store.connection() as con:
        assert reference._refresh_qa(con, dataset=None, total=800, on_progress=None) == 800
    assert reference.refresh_auto_scores(store) == 0
    with store.connection() as con:
        rows = con.execute(
            "SELECT response_id, metric, value FROM auto_scores WHERE version = ?",
            [reference.VERSION],
        ).fetchall()
    stored: dict[str, dict[str, float]] = {}
    for response_id, metric, value in rows:
        stored.setdefault(response_id, {})[metric] = value
    assert stored == expected
    # the conversational answers were combined by leave-one-out, the open ones by max
    assert qa_rules.DEFAULT_RULES["conversational_qa"] == qa_rules.LEAVE_ONE_OUT_RULE.name
    assert qa_rules.DEFAULT_RULES["open_qa"] == qa_rules.MAX_RULE.name

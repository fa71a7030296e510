"""Writes lm-eval samples files as evaluator.py builds each sample and
EvaluationTracker.save_results_samples writes it (arguments as gen_args_N/arg_M, resps and
filtered_resps through sanitize_list: every leaf a string, target str()), and the results file
as its aggregation does (mean, and its stderr: sample stdev / sqrt(n))."""

import hashlib
import json
import math
import statistics
import sys
from pathlib import Path

out = Path(sys.argv[1]) / "EleutherAI__pythia-160m"
out.mkdir(parents=True, exist_ok=True)
DATE = "2026-12-06T12-00-00.000000"


def h(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def sanitize(x):
    return [sanitize(i) for i in x] if isinstance(x, list) else str(x)


def sample(doc_id, doc, target, requests, resps, filtered, filt, metrics):
    args = {
        f"gen_args_{i}": {f"arg_{j}": a for j, a in enumerate(req)}
        for i, req in enumerate(requests)
    }
    s = {
        "doc_id": doc_id,
        "doc": doc,
        "target": str(target),
        "arguments": args,
        "resps": sanitize(resps),
        "filtered_resps": sanitize(filtered),
        "filter": filt,
        "metrics": list(metrics),
        "doc_hash": h(json.dumps(doc, indent=2, ensure_ascii=False)),
        "prompt_hash": h(requests[0][0]),
        "target_hash": h(str(target)),
    }
    s.update(metrics)
    return s


GEN = {"until": ["Question:", "</s>", "<|im_end|>"], "do_sample": False, "temperature": 0.0}
gsm = [
    (
        "Tom has 3 apples and buys 4 more. How many apples does he have now?",
        "Tom has 3 + 4 = <<3+4=7>>7 apples.\n#### 7",
        " 3 + 4 = 7.\n#### 7",
        "7",
        "7",
        1.0,
        1.0,
    ),
    (
        "A pen costs $2. How much do 5 pens cost?",
        "5 pens cost 5 * 2 = <<5*2=10>>10 dollars.\n#### 10",
        " Each pen is $2, so 5 pens cost $10.",
        "[invalid]",
        "$10.",
        0.0,
        1.0,
    ),
    (
        "Sara reads 12 pages a day. How many pages does she read in 3 days?",
        "She reads 12 * 3 = <<12*3=36>>36 pages.\n#### 36",
        " 12 * 3 = 35\n#### 35",
        "35",
        "35",
        0.0,
        0.0,
    ),
]
lines, sums = [], {}
for filt, col, em in (("strict-match", 3, 5), ("flexible-extract", 4, 6)):
    for doc_id, row in enumerate(gsm):
        doc = {"question": row[0], "answer": row[1]}
        prompt = f"Question: {row[0]}\nAnswer:"
        lines.append(
            sample(
                doc_id,
                doc,
                row[1],
                [(prompt, GEN)],
                [[row[2]]],
                [row[col]],
                filt,
                {"exact_match": row[em]},
            )
        )
        sums.setdefault(("gsm8k", f"exact_match,{filt}"), []).append(row[em])
(out / f"samples_gsm8k_{DATE}.jsonl").write_text(
    "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in lines)
)

arc = [
    (
        "Mercury_7175875",
        "Which of these is a source of light?",
        ["a mirror", "the Moon", "the Sun", "a window"],
        "C",
        [-7.2, -4.1, -3.0, -6.5],
    ),
    (
        "Mercury_7009870",
        "Which tool measures the mass of an object?",
        ["a balance", "a thermometer", "a ruler", "a graduated cylinder"],
        "A",
        [-9.5, -5.2, -6.1, -12.0],
    ),
    (
        "Mercury_SC_401",
        "What do plants need to make food?",
        ["sunlight", "sand", "salt", "soap"],
        "A",
        [-3.1, -2.9, -4.4, -5.0],
    ),
]
lines = []
for doc_id, (ident, q, choices, key, lls) in enumerate(arc):
    doc = {
        "id": ident,
        "question": q,
        "choices": {"text": choices, "label": ["A", "B", "C", "D"]},
        "answerKey": key,
    }
    gold = ["A", "B", "C", "D"].index(key)
    prompt = f"Question: {q}\nAnswer:"
    reqs = [(prompt, f" {c}") for c in choices]
    best = max(range(4), key=lambda i: lls[i])
    pairs = [[ll, i == best] for i, ll in enumerate(lls)]
    acc = 1.0 if max(range(4), key=lambda i: lls[i]) == gold else 0.0
    norm = 1.0 if max(range(4), key=lambda i: lls[i] / len(choices[i])) == gold else 0.0
    lines.append(
        sample(
            doc_id,
            doc,
            gold,
            reqs,
            [[p] for p in pairs],
            pairs,
            "none",
            {"acc": acc, "acc_norm": norm},
        )
    )
    sums.setdefault(("arc_easy", "acc,none"), []).append(acc)
    sums.setdefault(("arc_easy", "acc_norm,none"), []).append(norm)
(out / f"samples_arc_easy_{DATE}.jsonl").write_text(
    "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in lines)
)

results = {}
for (task, key), values in sums.items():
    metric, filt = key.split(",")
    entry = results.setdefault(task, {"alias": task})
    entry[key] = statistics.mean(values)
    entry[f"{metric}_stderr,{filt}"] = statistics.stdev(values) / math.sqrt(len(values))
summary = {
    "results": results,
    "versions": {"arc_easy": 1.0, "gsm8k": 3.0},
    "n-shot": {"arc_easy": 0, "gsm8k": 0},
    "higher_is_better": {
        "arc_easy": {"acc": True, "acc_norm": True},
        "gsm8k": {"exact_match": True},
    },
    "n-samples": {
        "arc_easy": {"original": 3, "effective": 3},
        "gsm8k": {"original": 3, "effective": 3},
    },
    "model_name": "EleutherAI/pythia-160m",
    "model_name_sanitized": "EleutherAI__pythia-160m",
    "date": 1796558400.0,
}
(out / f"results_{DATE}.json").write_text(json.dumps(summary, indent=2, ensure_ascii=False))

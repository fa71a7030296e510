"""Posts one rating as promptfoo's viewer does (its ResultsTable's handleRating): a component
result of assertion type `human` added to the output's gradingResult, which takes its pass
and score. Usage: python3 rate.py http://127.0.0.1:PORT results.json"""

import json
import sys
import urllib.request
from pathlib import Path

base, results = sys.argv[1], json.loads(Path(sys.argv[2]).read_text())
(target,) = [
    r
    for r in results["results"]["results"]
    if r["provider"]["id"] == "shout" and r["testCase"]["description"] == "italy"
]
reason = "Manual result (overrides all other grading results)"
comment = "names Rome; the shouting is fine"
human = {"pass": True, "score": 1, "reason": reason, "comment": comment}
grading = dict(target["gradingResult"])
grading["componentResults"] = [
    *grading["componentResults"],
    human | {"assertion": {"type": "human"}},
]
grading |= {"pass": True, "score": 1, "reason": reason, "comment": comment}
request = urllib.request.Request(
    f"{base}/api/eval/{results['evalId']}/results/{target['id']}/rating",
    data=json.dumps(grading).encode(),
    headers={"Content-Type": "application/json"},
)
print(urllib.request.urlopen(request).status)

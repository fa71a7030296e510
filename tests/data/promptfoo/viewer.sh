#!/bin/sh
# Runs inside a network namespace of its own: the viewer's server is reachable on loopback only.
set -e
ip link set lo up
../node_modules/.bin/promptfoo view -n -p 15599 >view.log 2>&1 &
VIEW=$!
for i in $(seq 60); do curl -s -o /dev/null http://127.0.0.1:15599/health && break; sleep 0.5; done
python3 rate.py http://127.0.0.1:15599 results.json
kill $VIEW

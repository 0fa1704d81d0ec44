#!/usr/bin/env python3
"""Writes seed inputs for a fuzz target from the conformance suites in Tests/WebsiteDataTests/Fixtures."""
import hashlib, json, os, sys

target, out = sys.argv[1], sys.argv[2]
fixtures = os.path.join(os.path.dirname(__file__), "..", "Tests", "WebsiteDataTests", "Fixtures")
state = os.path.join(fixtures, "cookies-http-state")
seeds = []

def dates():
    for name in ("dates.json", "bsd-dates.json"):
        text = "".join(l for l in open(os.path.join(state, "rfc6265bis", name), encoding="utf-8") if not l.lstrip().startswith("//"))
        for case in json.loads(text):
            yield case["test"]

manifest = json.load(open(os.path.join(state, "manifest.json"), encoding="utf-8"))
if target == "set-cookie":
    seeds = [h for t in manifest for h in t["set_cookie_rfc6265bis_template"]]
elif target == "cookie-date":
    seeds = list(dates())
elif target == "cookie-store":
    seeds = ["/cookie-parser\n" + "\n".join(t["set_cookie_rfc6265bis_template"]) for t in manifest]
elif target in ("netscape", "storage-state", "cache-control", "vary", "idb-key", "user-script"):
    seeds = []  # seeded by the targets' own corpora when present
    extra = os.path.join(fixtures, "fuzz-seeds", target)
    if os.path.isdir(extra):
        for name in os.listdir(extra):
            seeds.append(open(os.path.join(extra, name), "rb").read().decode("utf-8", "replace"))
for seed in seeds:
    data = seed.encode("utf-8", "surrogateescape") if isinstance(seed, str) else seed
    with open(os.path.join(out, hashlib.sha1(data).hexdigest()), "wb") as f:
        f.write(data)

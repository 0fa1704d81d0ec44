#!/usr/bin/env python3
"""Writes seed inputs for a fuzz target from the conformance suites in Tests/WebsiteDataTests/Fixtures.

  scripts/fuzz-seeds.py TARGET OUT_DIR

Targets: set-cookie, cookie-date, cookie-store (the http-state suite), netscape, storage-state and extension-json
(cookie files built from the suite's Set-Cookie lines), cache-control and vary (the response and
request header fields of the http-tests/cache-tests suite), idb-key (encodings of keys and values,
written with the layout of Docs/indexeddb.md), user-script (the suite's Set-Cookie lines for a page).
The regression inputs in Fixtures/fuzz-regressions/TARGET are added to every target's seeds.
"""
import hashlib, json, os, struct, sys

target, out = sys.argv[1], sys.argv[2]
fixtures = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "WebsiteDataTests", "Fixtures")
state = os.path.join(fixtures, "cookies-http-state")
seeds = []


def dates():
    for name in ("dates.json", "bsd-dates.json"):
        text = "".join(l for l in open(os.path.join(state, "rfc6265bis", name), encoding="utf-8") if not l.lstrip().startswith("//"))
        for case in json.loads(text):
            yield case["test"]


def set_cookie_lines():
    manifest = json.load(open(os.path.join(state, "manifest.json"), encoding="utf-8"))
    for test in manifest:
        yield test["set_cookie_rfc6265bis_template"]


def cache_tests():
    for suite in json.load(open(os.path.join(fixtures, "http-cache-tests", "tests.json"), encoding="utf-8")):
        for test in suite["tests"]:
            yield test


def field_lines(fields):
    lines = []
    for field in fields or []:
        name, value = field[0], field[1]
        lines.append("%s: %s" % (name, value if isinstance(value, str) else "Thu, 01 Jan 2015 00:00:00 GMT"))
    return lines


# IndexedDB keys in the order-preserving encoding of Docs/indexeddb.md.
def ordered(value):
    bits = struct.unpack(">Q", struct.pack(">d", 0.0 if value == 0 else value))[0]
    bits = (~bits & 0xFFFFFFFFFFFFFFFF) if bits >> 63 else bits | (1 << 63)
    return struct.pack(">Q", bits)


def unit(u):
    if u <= 0x7E:
        return bytes([u + 1])
    if u <= 0x3FFF + 0x7F:
        v = u - 0x7F + 0x8000
        return bytes([v >> 8, v & 0xFF])
    v = (u << 6) | 0xC00000
    return bytes([v >> 16, (v >> 8) & 0xFF, v & 0xFF])


def key(k):
    if isinstance(k, float) or isinstance(k, int):
        return b"\x10" + ordered(float(k))
    if isinstance(k, str):
        units = k.encode("utf-16-be")
        return b"\x30" + b"".join(unit(int.from_bytes(units[i:i + 2], "big")) for i in range(0, len(units), 2)) + b"\x00"
    if isinstance(k, bytes):
        return b"\x40" + b"".join(unit(b) for b in k) + b"\x00"
    if isinstance(k, tuple) and k and k[0] == "date":
        return b"\x20" + ordered(k[1])
    return b"\x50" + b"".join(key(e) for e in k) + b"\x00"


if target == "set-cookie":
    seeds = [h for lines in set_cookie_lines() for h in lines]
elif target == "cookie-date":
    seeds = list(dates())
elif target == "cookie-store":
    seeds = ["/cookie-parser\n" + "\n".join(lines) for lines in set_cookie_lines()]
elif target == "netscape":
    seeds.append("# Netscape HTTP Cookie File\n.example.com\tTRUE\t/\tFALSE\t2000000000\ta\t1\n"
                 "#HttpOnly_www.example.com\tFALSE\t/p\tTRUE\t0\tsid\tx y\n")
    for i, lines in enumerate(set_cookie_lines()):
        rows = []
        for j, line in enumerate(lines[:8]):
            pair = line.split(";")[0]
            name, _, value = pair.partition("=")
            secure = "TRUE" if "secure" in line.lower() else "FALSE"
            rows.append("%s%s\t%s\t/\t%s\t%d\t%s\t%s" % ("#HttpOnly_" if j % 3 == 2 else "", ".example.com" if j % 2 else "www.example.com",
                                                     "TRUE" if j % 2 else "FALSE", secure, 2000000000 if j % 4 else 0, name.strip(), value.strip()))
        seeds.append("\n".join(rows) + "\n")
elif target == "storage-state":
    for lines in set_cookie_lines():
        cookies = []
        for j, line in enumerate(lines[:8]):
            name, _, value = line.split(";")[0].partition("=")
            cookies.append({"name": name.strip(), "value": value.strip(), "domain": ".example.com" if j % 2 else "www.example.com",
                            "path": "/", "expires": -1 if j % 3 else 2000000000.5, "httpOnly": j % 2 == 0,
                            "secure": "secure" in line.lower(), "sameSite": ["Lax", "Strict", "None"][j % 3]})
        seeds.append(json.dumps({"cookies": cookies, "origins": [{"origin": "https://example.com", "localStorage": [{"name": "k", "value": "v"}]}]}, indent=2))
elif target == "extension-json":
    for lines in set_cookie_lines():
        cookies = []
        for j, line in enumerate(lines[:8]):
            name, _, value = line.split(";")[0].partition("=")
            cookie = {"domain": ".example.com" if j % 2 else "www.example.com", "hostOnly": j % 2 == 0,
                      "httpOnly": j % 2 == 0, "name": name.strip(), "path": "/",
                      "sameSite": ["lax", "strict", "no_restriction", "unspecified"][j % 4],
                      "secure": "secure" in line.lower(), "session": j % 3 == 0, "storeId": "0", "value": value.strip()}
            if j % 3:
                cookie["expirationDate"] = 2000000000.5
            cookies.append(cookie)
        seeds.append(json.dumps(cookies, indent=2))
elif target in ("cache-control", "vary"):
    for test in cache_tests():
        for request in test.get("requests", []):
            response = field_lines(request.get("response_headers"))
            request_fields = field_lines(request.get("request_headers"))
            if not response and not request_fields:
                continue
            seeds.append("\n".join(response) + ("\n\n" + "\n".join(request_fields) if target == "vary" else ""))
elif target == "idb-key":
    keys = [0, -0.0, 1, -1, 1.5, 2 ** 53, -(2 ** 60), float("inf"), float("-inf"), "", "a", "é", "e\u0301", "\U0001D11E", "\uffff",
            "x" * 300, b"", b"\x00\xff\x7f\x80", ("date", 0.0), ("date", -1e10), [], [1, "a", [b"z"]], [[[[]]]]]
    for k in keys:
        seeds.append(key(k))
    for a, b in zip(keys, keys[1:]):
        ea, eb = key(a), key(b)
        if len(ea) < 255:
            seeds.append(bytes([len(ea)]) + ea + eb)
elif target == "user-script":
    for i, lines in enumerate(set_cookie_lines()):
        first = chr(ord("a") + i % 8) + "path/to/page"
        handler = "wkstoreCookies" if i % 2 else ""
        seeds.append("\n".join([first, handler] + lines + ["!script=%d; path=/" % i, "h=1; HttpOnly", "s=1; Secure"]))

regressions = os.path.join(fixtures, "fuzz-regressions", target)
if os.path.isdir(regressions):
    for name in sorted(os.listdir(regressions)):
        seeds.append(open(os.path.join(regressions, name), "rb").read())
for seed in seeds:
    data = seed if isinstance(seed, bytes) else seed.encode("utf-8", "surrogateescape")
    with open(os.path.join(out, hashlib.sha1(data).hexdigest()), "wb") as f:
        f.write(data)
print("%s: %d seeds" % (target, len(seeds)), file=sys.stderr)

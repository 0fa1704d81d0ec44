#!/usr/bin/env python3
"""Checks the relative links and #anchors of README.md, CHANGELOG.md and Docs/*.md.

  scripts/check-doc-links.py [REPO_ROOT]     (default: the folder above this script)

Anchors are GitHub's: a heading lowercased, punctuation dropped, spaces made hyphens.
"""
import re, os, sys, glob
root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
files = [os.path.join(root, 'README.md'), os.path.join(root, 'CHANGELOG.md')] + sorted(glob.glob(os.path.join(root, 'Docs', '*.md')))
files = [f for f in files if os.path.exists(f)]
def slug(h):
    h = h.strip().lower()
    h = re.sub(r'[^\w\- ]', '', h)   # drop punctuation (backticks, colons, dots, parens)
    return h.replace(' ', '-')
def anchors(path):
    out, fence, seen = set(), False, {}
    for l in open(path, encoding='utf-8'):
        if l.startswith('```'): fence = not fence; continue
        m = None if fence else re.match(r'^(#{1,6}) (.*)', l)
        if m:
            s = slug(m.group(2)); n = seen.get(s, 0); seen[s] = n + 1
            out.add(s if n == 0 else f'{s}-{n}')
    return out
bad = 0
for f in files:
    text = open(f, encoding='utf-8').read()
    text_nocode = re.sub(r'```.*?```', '', text, flags=re.S)
    for m in re.finditer(r'\]\(([^)\s]+)\)', text_nocode):
        target = m.group(1)
        if re.match(r'^[a-z]+:', target): continue
        path, _, frag = target.partition('#')
        dest = os.path.normpath(os.path.join(os.path.dirname(f), path)) if path else f
        if not os.path.exists(dest):
            print(f'{os.path.relpath(f, root)}: missing file {target}'); bad += 1; continue
        if frag and dest.endswith('.md') and frag not in anchors(dest):
            print(f'{os.path.relpath(f, root)}: missing anchor {target}'); bad += 1
print(f'{bad} broken links in {len(files)} files')
sys.exit(1 if bad else 0)

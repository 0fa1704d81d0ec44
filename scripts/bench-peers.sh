#!/bin/sh
# Installs the peers wkstore-bench compares with into a Python virtual environment:
#   scripts/bench-peers.sh DIR
# DIR (default .build/bench-peers) gets a venv with requests-cache and Scrapy from PyPI. Needs
# python3-venv.
# wkstore-bench runs this itself when its venv lacks a peer.
set -eu
dir=${1:-.build/bench-peers}
if [ ! -x "$dir/bin/python" ]; then
    python3 -m venv "$dir"
fi
"$dir/bin/python" -m pip install --quiet --no-cache-dir --disable-pip-version-check 'requests-cache>=1.2,<2' \
    'scrapy>=2.11,<3'
"$dir/bin/python" -c 'import requests_cache, scrapy'

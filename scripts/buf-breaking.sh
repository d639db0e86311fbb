#!/usr/bin/env bash
# Checks the API (proto/) for breaking changes against its last committed version.
#
#   scripts/buf-breaking.sh            against the right earlier commit (see below)
#   scripts/buf-breaking.sh <git-ref>  against that commit instead
#
# With proto/ changed in the working tree, the changes are checked against the last commit
# that touched proto/. With a clean proto/, the last commit that touched it is the change to
# check, against the commit that touched proto/ before it. A deliberate break passes once
# checked against a ref that already has it (e.g. `scripts/buf-breaking.sh HEAD`).
# BUF picks the buf binary (default: node_modules/.bin/buf, from `npm ci`).
set -euo pipefail
cd "$(dirname "$0")/.."

buf=${BUF:-node_modules/.bin/buf}
if [[ ! -x $buf ]]; then
  echo "buf-breaking: $buf is missing; run \`npm ci\` first" >&2
  exit 2
fi

if [[ $# -gt 0 ]]; then
  against=$(git rev-parse --verify "$1^{commit}")
else
  touched=()
  if git rev-parse --verify -q HEAD >/dev/null; then
    mapfile -t touched < <(git log -n 2 --format=%H -- proto)
  fi
  if [[ -n $(git status --porcelain -- proto) ]]; then
    against=${touched[0]:-}
  else
    against=${touched[1]:-}
  fi
  if [[ -z $against ]]; then
    echo "buf-breaking: no earlier commit touched proto/; nothing to compare with"
    exit 0
  fi
fi

echo "buf-breaking: proto/ against $(git log -n 1 --format='%h %s' "$against")"
# The workspace (buf.yaml at the root) as it was at that commit; buf.yaml ignores
# third_party/ for breaking changes.
"$buf" breaking --against ".git#ref=$against"
echo "buf-breaking: no breaking change"

#!/usr/bin/env bash
# `make test`: run every suite given (one command line per argument), each one even when an earlier one failed,
# then exit non-zero if any failed, naming them. CI runs it through `make test` (.ci/run).
rc=0
failed=()
for cmd in "$@"; do
  echo "== $cmd"
  bash -c "$cmd" || { rc=1; failed+=("$cmd"); }
done
if [ "$rc" -ne 0 ]; then
  printf 'make test: FAILED: %s\n' "${failed[@]}" >&2
fi
exit "$rc"

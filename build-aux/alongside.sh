#!/usr/bin/env bash
# Run a command in the background while another runs in the foreground, then show the background one's output and
# fail when either failed: make test's static checks (mypy, the import contracts) take a minute from a cold cache
# and use one core, so they run beside the tests instead of before them.
#
#   build-aux/alongside.sh 'BACKGROUND COMMAND' FOREGROUND COMMAND...
set -uo pipefail

[[ $# -ge 2 ]] || {
	echo "usage: $0 'BACKGROUND COMMAND' FOREGROUND COMMAND..." >&2
	exit 64
}
background=$1
shift
output=$(mktemp)
trap 'rm -f "$output"' EXIT
bash -eo pipefail -c "$background" >"$output" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null; rm -f "$output"' EXIT
"$@"
foreground=$?
wait "$pid"
status=$?
trap 'rm -f "$output"' EXIT
echo "==> $background (beside the tests): exit $status" >&2
cat "$output"
if ((foreground != 0)); then exit "$foreground"; fi
exit "$status"

#!/usr/bin/env bash
# The Makefile's virtualenv: refuse an unsupported interpreter before creating anything, and rebuild a virtualenv
# made by another interpreter or left broken by a failed install.
#
#   build-aux/venv.sh state PYTHON VENV    prints ok | missing | "rebuild: <why>"
#   build-aux/venv.sh ensure PYTHON VENV   exits 2 on an unsupported PYTHON; (re)creates VENV unless its state is ok
#
# Plain POSIX tools and the interpreter only: this runs before any dependency is installed.
set -euo pipefail

MIN_MINOR=11 # Python 3.11 and newer (pyproject.toml's requires-python)

usage() {
	echo "usage: $0 state|ensure PYTHON VENV" >&2
	exit 64
}

[[ $# -eq 3 ]] || usage
command=$1 python=$2 venv=$3

# The interpreter's version as MAJOR.MINOR.MICRO, or nothing when it does not run.
python_version() {
	"$1" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])' 2>/dev/null || true
}

supported() {
	local major minor
	IFS=. read -r major minor _ <<<"$1"
	[[ $major == 3 && $minor -ge $MIN_MINOR ]]
}

state() {
	if [[ ! -e $venv ]]; then
		echo missing
		return
	fi
	local made_by wanted
	made_by=$(sed -n 's/^version\(_info\)\{0,1\} *= *//p' "$venv/pyvenv.cfg" 2>/dev/null | head -n 1)
	wanted=$(python_version "$python")
	if [[ -z $(python_version "$venv/bin/python") ]]; then
		echo "rebuild: $venv/bin/python does not run"
	elif [[ -n $wanted && $made_by != "$wanted" ]]; then
		echo "rebuild: made by Python ${made_by:-unknown}, the interpreter is now $python ($wanted)"
	elif ! compgen -G "$venv/.*installed" >/dev/null; then
		echo "rebuild: no install into it ever finished (an interrupted or failed install)"
	else
		echo ok
	fi
}

ensure() {
	local version current
	version=$(python_version "$python")
	if [[ -z $version ]]; then
		echo "error: no Python interpreter at PYTHON=$python; install Python 3.$MIN_MINOR or newer," \
			"or run make PYTHON=/path/to/python3.x" >&2
		exit 2
	fi
	if ! supported "$version"; then
		echo "error: $python is Python $version; the server needs Python 3.$MIN_MINOR or newer." \
			"Run make PYTHON=/path/to/python3.$MIN_MINOR (or newer). Nothing was created." >&2
		exit 2
	fi
	current=$(state)
	case $current in
	ok) return ;;
	missing) ;;
	*)
		echo "$venv: $current; creating it again" >&2
		rm -rf "$venv"
		;;
	esac
	echo "Creating $venv with $python (Python $version)" >&2
	"$python" -m venv "$venv"
}

case $command in
state) state ;;
ensure) ensure ;;
*) usage ;;
esac

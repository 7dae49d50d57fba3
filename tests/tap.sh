# SPDX-License-Identifier: BSD-3-Clause
# A few lines of TAP for the shell tests: ok/not ok lines, a plan at the end.
tap_n=0
tap_failed=0
ok() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $*"; }
not_ok() { tap_n=$((tap_n + 1)); tap_failed=$((tap_failed + 1)); echo "not ok $tap_n - $*"; }
check() { # check "description" command...
	desc=$1; shift
	if "$@"; then ok "$desc"; else not_ok "$desc"; fi
}
diag() { echo "# $*"; }
done_testing() { echo "1..$tap_n"; [ "$tap_failed" -eq 0 ]; }

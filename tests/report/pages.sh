# SPDX-License-Identifier: BSD-3-Clause
# The pages of a report folder, for the tests that read them (sourced after tests/tap.sh):
# report.md/report.html, the main page, and beside it the detail pages node (every path and
# the whole node), transfers, models and run (the overview of the run).
report_pages="node transfers models run"

# page_body FILE: a page without its closing note (from the last line '---' on), so that a
# check of a section's words cannot pass on the note every page ends with.
page_body() {
	awk '{ line[NR] = $0 } $0 == "---" { cut = NR }
	     END { n = cut ? cut - 1 : NR; for (i = 1; i <= n; i++) print line[i] }' "$1"
}

# page_links FILE: the pages (name.md or name.html, in the same folder) that FILE links, one
# a line; plots/ and tables/ are files, not pages.
page_links() {
	grep -oE '\]\([A-Za-z0-9_.-]+\.md(#[^)]*)?\)|href="[A-Za-z0-9_.-]+\.html(#[^"]*)?"' "$1" |
		sed -E 's/^\]\(//; s/^href="//; s/[#)"].*$//' | sort -u
}

# heading_order FILE: its level-2 headings on one line, '|' after each; the main page's
# "Bandwidth of every device and pair at SIZE" without its size.
heading_order() {
	grep '^## ' "$1" | sed -E 's/^## //; s/^(Bandwidth of every device and pair) at .*/\1/' |
		tr '\n' '|'
}

# check_pages DIR LABEL [NFILES]: every page that report.md, report.html or a detail page
# links is there; report.md/.html link each detail page and each detail page links back; the
# main page's sections in their order (a report of exactly two results files, NFILES = 2,
# has run B against run A after the summary).
check_pages() {
	cp_dir=$1 cp_label=$2 cp_runs=
	[ "${3:-1}" -eq 2 ] && cp_runs="Run B against run A|"
	for cp_ext in md html; do
		cp_files=report.$cp_ext
		for cp_p in $report_pages; do
			[ -s "$cp_dir/$cp_p.$cp_ext" ] && cp_files="$cp_files $cp_p.$cp_ext"
		done
		cp_n=0 cp_missing=""
		for cp_p in $(for cp_g in $cp_files; do page_links "$cp_dir/$cp_g"; done | sort -u); do
			cp_n=$((cp_n + 1))
			[ -s "$cp_dir/$cp_p" ] || cp_missing="$cp_missing $cp_p"
		done
		check "$cp_label: every page linked from report.$cp_ext and its pages is there ($cp_n pages${cp_missing:+; missing:$cp_missing})" \
			test "$cp_n" -ge 5 -a -z "$cp_missing"
	done
	for cp_p in $report_pages; do
		check "$cp_label: report.html links $cp_p.html" \
			grep -qF "href=\"$cp_p.html\"" "$cp_dir/report.html"
		check "$cp_label: report.md links $cp_p.md" grep -qF "]($cp_p.md)" "$cp_dir/report.md"
		check "$cp_label: $cp_p.html links back to report.html" \
			grep -qF '<a href="report.html">' "$cp_dir/$cp_p.html"
		check "$cp_label: $cp_p.md links back to report.md" \
			grep -qF '](report.md)' "$cp_dir/$cp_p.md"
	done
	cp_got=$(heading_order "$cp_dir/report.md")
	check "$cp_label: the main page's sections in order ($cp_got)" test "$cp_got" = \
		"Summary|${cp_runs}Bandwidth of every device and pair|OpenMP against the native API|Topology|Models|"
	check "$cp_label: report.md's first section is the summary" sh -c \
		"grep -m1 '^##* ' '$cp_dir/report.md' | grep -q '^# ' &&
		 grep '^##* ' '$cp_dir/report.md' | sed -n 2p | grep -qx '## Summary'"
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of report/rdoc.c: report.md and report.html from one set of calls, escaping for
 * each format, tables as RFC 4180 CSV, unique file names, atomic writes, bad folders. */
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../report/rdoc_priv.h"
#include "common.h"
#include "nodebw/report.h"

static struct nbw_rdoc *new_doc(char **dir)
{
	*dir = tmp_dir();
	assert_non_null(*dir);
	char err[512] = "";
	struct nbw_rdoc *r = nbw_rdoc_new(*dir, "Report <of> \"x\" & y", err, sizeof(err));
	assert_non_null(r);
	assert_string_equal(nbw_rdoc_dir(r), *dir);
	return r;
}

static void write_doc(struct nbw_rdoc *r)
{
	char err[512] = "";
	int rc = nbw_rdoc_write(r, err, sizeof(err));
	if (rc)
		fail_msg("nbw_rdoc_write: %s", err);
	nbw_rdoc_free(r);
}

static void test_text_is_escaped(void **state)
{
	(void)state;
	char *dir;
	struct nbw_rdoc *r = new_doc(&dir);
	nbw_rdoc_heading(r, 2, "Section <one> & two");
	nbw_rdoc_para(r, "a <b>tag</b> & *stars* | pipe %d", 42);
	nbw_rdoc_item(r, "first <item>");
	nbw_rdoc_item(r, "second 'item'");
	nbw_rdoc_para(r, "after the list");
	write_doc(r);

	char *md = slurp(dir, "report.md", NULL), *html = slurp(dir, "report.html", NULL);
	assert_non_null(md);
	assert_non_null(html);
	/* Markdown: the title, the heading, markup characters backslash-escaped. */
	assert_non_null(strstr(md, "# Report \\<of\\> \"x\" & y\n"));
	assert_non_null(strstr(md, "## Section \\<one\\> & two\n"));
	assert_non_null(strstr(md, "a \\<b\\>tag\\</b\\> & \\*stars\\* \\| pipe 42\n"));
	assert_non_null(strstr(md, "- first \\<item\\>\n- second 'item'\n\nafter the list"));
	/* HTML: every special character as an entity, nothing of the text as markup. */
	assert_non_null(strstr(html, "<title>Report &lt;of&gt; &quot;x&quot; &amp; y</title>"));
	assert_non_null(strstr(html, "<h2 id=\"section-one-two\">Section &lt;one&gt; &amp; two"
				     "</h2>"));
	assert_non_null(strstr(html, "<p>a &lt;b&gt;tag&lt;/b&gt; &amp; *stars* | pipe 42</p>"));
	assert_non_null(strstr(html, "<ul>\n<li>first &lt;item&gt;</li>\n<li>second &#39;item"
				     "&#39;</li>\n</ul>\n<p>after the list</p>"));
	assert_null(strstr(html, "<b>"));
	assert_non_null(strstr(html, "<style>"));
	assert_non_null(strstr(html, "1e9 bytes per second"));
	assert_non_null(strstr(md, "1e9 bytes per second"));
	free(md);
	free(html);
	rm_tree(dir);
}

/* Wide tables scroll in their own box; short cells stay on one line and a column of long
 * text wraps, made wide enough for about three lines of its longest cell; a figure marked
 * aside floats beside the text (and only that figure). */
static void test_table_box_and_aside(void **state)
{
	(void)state;
	char *dir;
	struct nbw_rdoc *r = new_doc(&dir);
	static const char *const h[] = { "api", "what it means" };
	struct nbw_rtable *t = nbw_rtable_new("paths", 2, h);
	nbw_rtable_cell(t, "%s", "omp");
	nbw_rtable_cell(t, "%s", "host memory: no link; peaks at 256 KiB, 24.8x the largest size; "
				 "slow small transfers (16352 us for 8 B)");
	nbw_rtable_end_row(t);
	nbw_rdoc_table(r, t, "Paths");
	nbw_rdoc_figure_aside(r);
	nbw_rdoc_figure(r, "first", "beside", NULL, true);
	nbw_rdoc_figure(r, "second", "below", NULL, true);
	write_doc(r);

	char *html = slurp(dir, "report.html", NULL);
	assert_non_null(html);
	assert_non_null(strstr(html, "<div class=\"wide\"><table>\n<caption>Paths"));
	assert_non_null(strstr(html, "</tbody>\n</table></div>\n"));
	assert_non_null(strstr(html, "div.wide{overflow-x:auto"));
	assert_non_null(strstr(html, "td{white-space:nowrap}td.long{white-space:normal}"));
	assert_non_null(strstr(html, "<th>api</th><th class=\"long\" style=\"min-width:"));
	assert_non_null(strstr(html, "<td>omp</td><td class=\"long\">host memory"));
	assert_non_null(strstr(html, "<figure class=\"aside\"><a href=\"plots/first.png\">"));
	assert_non_null(strstr(html, "<figure><a href=\"plots/second.png\">"));
	free(html);
	rm_tree(dir);
}

static void test_table_csv_quoting(void **state)
{
	(void)state;
	char *dir;
	struct nbw_rdoc *r = new_doc(&dir);
	static const char *const h[] = { "name", "value (GB/s)", "note" };
	struct nbw_rtable *t = nbw_rtable_new("numbers", 3, h);
	nbw_rtable_cell(t, "%s", "plain");
	nbw_rtable_cell(t, "%.2f", 12.5);
	nbw_rtable_cell(t, "%s", "a, b");
	nbw_rtable_end_row(t);
	nbw_rtable_cell(t, "%s", "say \"hi\"");
	nbw_rtable_cell(t, "%d", 7);
	nbw_rtable_cell(t, "%s", "two\nlines | <x>");
	nbw_rtable_end_row(t);
	nbw_rtable_cell(t, "%s", " padded ");
	nbw_rtable_end_row(t); /* a short row is padded with empty cells */
	nbw_rdoc_table(r, t, "Numbers & <things>");
	write_doc(r);

	char *csv = slurp(dir, "tables/numbers.csv", NULL);
	assert_non_null(csv);
	assert_string_equal(csv, "name,value_gbps,note\n"
				 "plain,12.50,\"a, b\"\n"
				 "\"say \"\"hi\"\"\",7,two lines | <x>\n"
				 "\" padded \",,\n");
	char *md = slurp(dir, "report.md", NULL), *html = slurp(dir, "report.html", NULL);
	assert_non_null(strstr(md, "**Table:** Numbers & \\<things\\> ([CSV](tables/numbers.csv))"));
	assert_non_null(strstr(md, "| name | value (GB/s) | note |\n|---|---:|---|\n"));
	assert_non_null(strstr(md, "| say \"hi\" | 7 | two lines \\| \\<x\\> |\n"));
	assert_non_null(strstr(html, "<table>\n<caption>Numbers &amp; &lt;things&gt; "
				     "(<a href=\"tables/numbers.csv\">CSV</a>)</caption>"));
	assert_non_null(strstr(html, "<th>value (GB/s)</th>"));
	assert_non_null(strstr(html, "<td class=\"num\">12.50</td>"));
	assert_non_null(strstr(html, "<td>say &quot;hi&quot;</td>"));
	free(csv);
	free(md);
	free(html);
	rm_tree(dir);
}

/* The CSV view is for machines, the document for people: derived and given snake_case
 * names, numbers without '+', '%' or units, missing values empty, a "(note)" in a column of
 * its own, explicit values (cellv), split cells (cellc) and display-only columns. */
static void test_table_csv_machine(void **state)
{
	(void)state;
	char *dir;
	struct nbw_rdoc *r = new_doc(&dir);
	static const char *const h[] = { "mean |gap| (GB/s)", "paper err", "devices",
					 "n_1/2 (bytes)", "n_1/2", "ratio at small size",
					 "% of theoretical", "mean |gap| (GB/s)" };
	static const char *const csv[] = { NULL, "paper_err_pct", "streams,concurrency", NULL,
					   "-", "ratio,ratio_bytes", NULL, NULL };
	struct nbw_rtable *t = nbw_rtable_new("machine", 8, h);
	nbw_rtable_csv_names(t, csv);
	nbw_rtable_cell(t, "%.2f", 1.5);
	nbw_rtable_cell(t, "%+.1f%%", 12.3);
	nbw_rtable_cell(t, "%d (%s)", 1, "single");
	nbw_rtable_cellv(t, 1050000.0, "%s", "1.05 MB");
	nbw_rtable_cell(t, "%s", "1.05 MB");
	nbw_rtable_cellc(t, "0.95,4096", "%.3g at %d B", 0.95, 4096);
	nbw_rtable_cell(t, "%.0f%%", 42.0);
	nbw_rtable_cell(t, "%s", "-");
	nbw_rtable_end_row(t);
	nbw_rtable_cell(t, "%s", "-");
	nbw_rtable_cell(t, "%+.1f%%", -0.04);
	nbw_rtable_cell(t, "%d (%s)", 2, "dual");
	nbw_rtable_cellv(t, NAN, "%s", "-");
	nbw_rtable_cell(t, "%s", "-");
	nbw_rtable_cell(t, "%s", "-");
	nbw_rtable_cell(t, "%s", "unknown");
	nbw_rtable_cell(t, "%s", "-");
	nbw_rtable_end_row(t);
	nbw_rdoc_table(r, t, "Machine");
	write_doc(r);
	char *got = slurp(dir, "tables/machine.csv", NULL);
	assert_non_null(got);
	assert_string_equal(got, "mean_abs_gap_gbps,paper_err_pct,streams,concurrency,"
				 "n_half_bytes,ratio,ratio_bytes,pct_of_theoretical,"
				 "mean_abs_gap_gbps_2\n"
				 "1.50,12.3,1,single,1050000,0.95,4096,42,\n"
				 ",0.0,2,dual,,,,,\n");
	char *md = slurp(dir, "report.md", NULL);
	assert_non_null(strstr(md, "| mean \\|gap\\| (GB/s) | paper err | devices |"));
	assert_non_null(strstr(md, "| 1.50 | +12.3% | 1 (single) | 1.05 MB | 1.05 MB | 0.95 at 4096 B "
				   "| 42% | - |"));
	free(got);
	free(md);
	rm_tree(dir);
}

static void test_unique_names_and_no_leftovers(void **state)
{
	(void)state;
	char *dir;
	struct nbw_rdoc *r = new_doc(&dir);
	static const char *const h[] = { "x" };
	for (int i = 0; i < 3; i++) {
		struct nbw_rtable *t = nbw_rtable_new("same name/../x", 1, h);
		nbw_rtable_cell(t, "%d", i);
		nbw_rtable_end_row(t);
		nbw_rdoc_table(r, t, "t");
	}
	nbw_rdoc_heading(r, 2, "Same");
	nbw_rdoc_heading(r, 2, "Same");
	write_doc(r);
	/* '/' and spaces cannot escape tables/: they become '-'; repeats get -2, -3. */
	assert_true(file_size(dir, "tables/same-name-..-x.csv") > 0);
	assert_true(file_size(dir, "tables/same-name-..-x-2.csv") > 0);
	assert_true(file_size(dir, "tables/same-name-..-x-3.csv") > 0);
	char *html = slurp(dir, "report.html", NULL);
	assert_non_null(strstr(html, "id=\"same\""));
	assert_non_null(strstr(html, "id=\"same-2\""));
	assert_non_null(strstr(html, "<nav>")); /* two level-2 headings: a contents list */
	free(html);
	/* Atomic writes leave no temporary file behind. */
	DIR *d = opendir(dir);
	struct dirent *e;
	while ((e = readdir(d)))
		assert_null(strstr(e->d_name, ".tmp"));
	closedir(d);
	rm_tree(dir);
}

static void test_bad_folder(void **state)
{
	(void)state;
	char *dir = tmp_dir();
	char file[4096], err[512] = "";
	snprintf(file, sizeof(file), "%s/plain-file", dir);
	FILE *f = fopen(file, "w");
	assert_non_null(f);
	fclose(f);
	assert_null(nbw_rdoc_new(file, "x", err, sizeof(err)));
	assert_non_null(strstr(err, "plain-file"));
	snprintf(file, sizeof(file), "%s/plain-file/sub", dir);
	assert_null(nbw_rdoc_new(file, "x", err, sizeof(err)));
	assert_non_null(strstr(err, "cannot create folder"));
	rm_tree(dir);
}

static void test_human_bytes(void **state)
{
	(void)state;
	char b[32];
	nbw_human_bytes(8, b, sizeof(b));
	assert_string_equal(b, "8 B");
	nbw_human_bytes(999, b, sizeof(b));
	assert_string_equal(b, "999 B");
	nbw_human_bytes(1048576, b, sizeof(b));
	assert_string_equal(b, "1 MiB");
	nbw_human_bytes(4294967296.0, b, sizeof(b));
	assert_string_equal(b, "4 GiB");
	/* The halo planes 8 N^2 are exact in binary units. */
	nbw_human_bytes(8.0 * 640 * 640, b, sizeof(b));
	assert_string_equal(b, "3.125 MiB");
	nbw_human_bytes(8.0 * 1280 * 1280, b, sizeof(b));
	assert_string_equal(b, "12.5 MiB");
	nbw_human_bytes(21038.4, b, sizeof(b));
	assert_string_equal(b, "20.545 KiB");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_is_escaped),
		cmocka_unit_test(test_table_csv_quoting),
		cmocka_unit_test(test_table_box_and_aside),
		cmocka_unit_test(test_table_csv_machine),
		cmocka_unit_test(test_unique_names_and_no_leftovers),
		cmocka_unit_test(test_bad_folder),
		cmocka_unit_test(test_human_bytes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

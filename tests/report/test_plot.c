/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of report/plot.c: the gnuplot data and script, the PNG and SVG images when
 * gnuplot is there (this test fails if gnuplot is available and made nothing), and the
 * sentence the report carries when it is not (NODEBW_GNUPLOT=/nonexistent, an empty PATH,
 * a gnuplot that fails). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "common.h"
#include "nodebw/report.h"

static const double x1[] = { 8, 1024, 1048576, 0 };
static const double y1[] = { 0.01, 1.5, 25.0, 3.0 }; /* x = 0 cannot be on a log axis */
static const double x2[] = { 8, 1048576 };
static const double y2[] = { 0.02, 30.0 };
static const double hl[] = { 63.0 };
static const char *const hl_title[] = { "theoretical PCIe Gen5 x16: 63 GB/s" };

static const struct nbw_plot_series two_series[] = {
	{ .title = "omp, pageable, 1 device", .x = x1, .y = y1, .n = 4 },
	{ .title = "host's 'native' copy", .x = x2, .y = y2, .n = 2,
	  .style = "lines", .dash = 2 },
};

static const struct nbw_plot plot = {
	.name = "bw-test",
	.title = "host to device, sync",
	.xlabel = "bytes per transfer",
	.ylabel = "GB/s (1e9 B/s)",
	.logx = true,
	.logy = true,
	.series = two_series,
	.nseries = 2,
	.hline = hl,
	.hline_title = hl_title,
	.nhline = 1,
	.note = "mean |gap| 1.2 GB/s",
	.extra = "set format x '%.0s %cB'",
};

/* Where the test expects gnuplot: NULL when NODEBW_GNUPLOT names something that cannot
 * run, or nothing called gnuplot is on PATH. */
static bool gnuplot_expected(void)
{
	const char *env = getenv("NODEBW_GNUPLOT");
	if (env && *env)
		return access(env, X_OK) == 0;
	const char *path = getenv("PATH");
	char buf[8192];
	snprintf(buf, sizeof(buf), "%s", path ? path : "");
	for (char *save = NULL, *d = strtok_r(buf, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		char p[4200];
		snprintf(p, sizeof(p), "%s/gnuplot", d);
		if (access(p, X_OK) == 0)
			return true;
	}
	return false;
}

static char *make_report(const struct nbw_plot *p, int *rc)
{
	char *dir = tmp_dir();
	assert_non_null(dir);
	char err[512];
	struct nbw_rdoc *r = nbw_rdoc_new(dir, "plot test", err, sizeof(err));
	assert_non_null(r);
	*rc = nbw_rdoc_plot(r, p, "a caption");
	assert_int_equal(nbw_rdoc_write(r, err, sizeof(err)), 0);
	nbw_rdoc_free(r);
	return dir;
}

static void test_data_and_script(void **state)
{
	(void)state;
	int rc;
	char *dir = make_report(&plot, &rc);
	char *dat = slurp(dir, "plots/bw-test.dat", NULL);
	char *gp = slurp(dir, "plots/bw-test.gp", NULL);
	assert_non_null(dat);
	assert_non_null(gp);
	/* One block per series, two blank lines between; the point at x = 0 is left out. */
	assert_non_null(strstr(dat, "# nodebw plot data: host to device, sync\n"));
	assert_non_null(strstr(dat, "# index 0: omp, pageable, 1 device\n8 0.01\n1024 1.5\n"
				    "1048576 25\n\n\n# index 1: host's 'native' copy\n8 0.02\n"
				    "1048576 30\n"));
	assert_null(strstr(dat, "\n0 3"));
	/* The script: the format from a variable, pngcairo when there, log axes, the key,
	 * the reference line with its title, the note, the caller's extra commands. */
	assert_non_null(strstr(gp, "if (!exists(\"fmt\")) fmt = 'png'"));
	assert_non_null(strstr(gp, "if (fmt eq 'svg')"));
	assert_non_null(strstr(gp, "pngcairo"));
	assert_non_null(strstr(gp, "set terminal png "));
	assert_non_null(strstr(gp, "set logscale x 10\nset logscale y 10\n"));
	assert_non_null(strstr(gp, "set key outside bmargin"));
	assert_non_null(strstr(gp, "set title 'host to device, sync'"));
	/* The note is the title's second line, never a label over the data. */
	assert_non_null(strstr(gp, "set title 'host to device, sync' . \"\\n\" . "
				   "'mean |gap| 1.2 GB/s'\n"));
	assert_null(strstr(gp, "set label"));
	/* The y range holds the data and the reference line, with room above it. */
	double lo = 0, hi = 0;
	const char *yr = strstr(gp, "set yrange [");
	assert_non_null(yr);
	assert_int_equal(sscanf(yr, "set yrange [%lf:%lf]", &lo, &hi), 2);
	assert_true(lo < 0.02 && hi > 63.0);
	assert_non_null(strstr(gp, "set format x '%.0s %cB'"));
	/* Explicit styles: the first palette colour, solid, the first point type; the second
	 * series the next colour with its pinned dash type. */
	assert_non_null(strstr(gp, "datafile index 0 using 1:2 with linespoints linecolor rgb "
				   "'#0072b2' dashtype 1 pointtype 7 title 'omp, pageable, 1 device'"));
	assert_non_null(strstr(gp, "datafile index 1 using 1:2 with lines linecolor rgb "
				   "'#d55e00' dashtype 2 title 'host''s ''native'' copy'"));
	assert_non_null(strstr(gp, "63 with lines linecolor rgb '#505050' dashtype 2 lw 1.5 "
				   "title 'theoretical PCIe Gen5 x16: 63 GB/s'"));
	free(dat);
	free(gp);

	char *md = slurp(dir, "report.md", NULL), *html = slurp(dir, "report.html", NULL);
	if (gnuplot_expected()) {
		/* gnuplot is there: both images must exist and be real images. */
		assert_int_equal(rc, 0);
		assert_true(file_size(dir, "plots/bw-test.png") > 100);
		assert_true(file_size(dir, "plots/bw-test.svg") > 100);
		char *png = slurp(dir, "plots/bw-test.png", NULL);
		assert_memory_equal(png, "\x89PNG", 4);
		free(png);
		char *svg = slurp(dir, "plots/bw-test.svg", NULL);
		assert_non_null(strstr(svg, "<svg"));
		free(svg);
		assert_int_equal(file_size(dir, "plots/bw-test.log"), -1);
		assert_non_null(strstr(md, "![a caption](plots/bw-test.svg)"));
		assert_non_null(strstr(md, "[PNG](plots/bw-test.png)"));
		assert_non_null(strstr(html, "<img src=\"plots/bw-test.svg\""));
		assert_non_null(strstr(html, "<a href=\"plots/bw-test.png\">"));
	} else {
		assert_int_equal(rc, -1);
		assert_int_equal(file_size(dir, "plots/bw-test.png"), -1);
		assert_int_equal(file_size(dir, "plots/bw-test.svg"), -1);
		const char *env = getenv("NODEBW_GNUPLOT");
		char why[512];
		if (env && *env)
			snprintf(why, sizeof(why), "no image (NODEBW_GNUPLOT=%s: ", env);
		else
			snprintf(why, sizeof(why), "no image (gnuplot not found on PATH");
		assert_non_null(strstr(md, why));
		assert_non_null(strstr(html, why));
		assert_null(strstr(html, "<img"));
	}
	free(md);
	free(html);
	rm_tree(dir);
}

/* With PATH and NODEBW_GNUPLOT changed for one call, restored afterwards. */
static char *report_with_env(const char *gnuplot, const char *path, int *rc)
{
	char *old_gp = getenv("NODEBW_GNUPLOT") ? strdup(getenv("NODEBW_GNUPLOT")) : NULL;
	char *old_path = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
	if (gnuplot)
		setenv("NODEBW_GNUPLOT", gnuplot, 1);
	else
		unsetenv("NODEBW_GNUPLOT");
	if (path)
		setenv("PATH", path, 1);
	char *dir = make_report(&plot, rc);
	if (old_gp)
		setenv("NODEBW_GNUPLOT", old_gp, 1);
	else
		unsetenv("NODEBW_GNUPLOT");
	if (old_path)
		setenv("PATH", old_path, 1);
	free(old_gp);
	free(old_path);
	return dir;
}

static void test_no_gnuplot_on_path(void **state)
{
	(void)state;
	int rc;
	char *dir = report_with_env(NULL, "/nonexistent", &rc);
	assert_int_equal(rc, -1);
	char *md = slurp(dir, "report.md", NULL);
	assert_non_null(strstr(md, "no image (gnuplot not found on PATH"));
	assert_non_null(strstr(md, "plots/bw-test.dat and plots/bw-test.gp"));
	assert_true(file_size(dir, "plots/bw-test.dat") > 0);
	assert_true(file_size(dir, "plots/bw-test.gp") > 0);
	free(md);
	rm_tree(dir);
}

static void test_failing_gnuplot(void **state)
{
	(void)state;
	int rc;
	char *dir = report_with_env("/bin/false", NULL, &rc);
	assert_int_equal(rc, -1);
	char *md = slurp(dir, "report.md", NULL);
	assert_non_null(strstr(md, "gnuplot failed making png (exit status 1"));
	assert_int_equal(file_size(dir, "plots/bw-test.png"), -1);
	assert_true(file_size(dir, "plots/bw-test.gp") > 0);
	free(md);
	rm_tree(dir);
}

static void test_nothing_to_plot(void **state)
{
	(void)state;
	static const double zx[] = { 0, 8 }, zy[] = { 1, 0 };
	const struct nbw_plot_series s = { .title = "zeros", .x = zx, .y = zy, .n = 2 };
	struct nbw_plot p = plot;
	p.name = "empty";
	p.series = &s;
	p.nseries = 1;
	int rc;
	char *dir = make_report(&p, &rc);
	assert_int_equal(rc, -1);
	char *md = slurp(dir, "report.md", NULL);
	assert_non_null(strstr(md, "no data to plot"));
	assert_int_equal(file_size(dir, "plots/empty.gp"), -1);
	free(md);
	rm_tree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_data_and_script),
		cmocka_unit_test(test_no_gnuplot_on_path),
		cmocka_unit_test(test_failing_gnuplot),
		cmocka_unit_test(test_nothing_to_plot),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Plots as gnuplot data + script + images. For plot "x" the report folder gets
 * plots/x.dat (one block per series, separated by two blank lines: gnuplot's "index N"),
 * plots/x.gp (a script meant to be read and restyled: the output format comes from the
 * variable fmt, so the same script makes x.png and x.svg), and, when gnuplot runs,
 * plots/x.png and plots/x.svg. gnuplot is `gnuplot` on PATH, or $NODEBW_GNUPLOT. It is
 * started with fork + execv (no shell) in the plots folder, with a time limit. Without
 * gnuplot, or when it fails, the data and script stay and the report says why there is no
 * image; a plot never stops the report.
 */
#include "nodebw/report.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "nodebw/results.h"
#include "nodebw/session.h"
#include "rdoc_priv.h"

#define GNUPLOT_TIMEOUT_S 120

/* A gnuplot single-quoted string: no escapes inside, a quote is written twice; line
 * breaks become spaces (a string cannot span lines). */
void nbw_gp_quote(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; s && *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
	}
	fputc('\'', f);
}

/* One line of a comment: line breaks become spaces. */
static void comment_text(FILE *f, const char *s)
{
	for (; s && *s; s++)
		fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
}

static bool usable(const struct nbw_plot *p, double x, double y)
{
	return isfinite(x) && isfinite(y) && (!p->logx || x > 0) && (!p->logy || y > 0);
}

static size_t usable_points(const struct nbw_plot *p, const struct nbw_plot_series *s)
{
	size_t k = 0;
	for (size_t i = 0; i < s->n; i++)
		k += s->x && s->y && usable(p, s->x[i], s->y[i]);
	return k;
}

static char *data_text(const struct nbw_plot *p, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	if (!f)
		return NULL;
	fputs("# nodebw plot data: ", f);
	comment_text(f, p->title);
	fputs("\n# column 1: ", f);
	comment_text(f, p->xlabel);
	fputs("; column 2: ", f);
	comment_text(f, p->ylabel);
	fputs("\n# one block per series, blocks separated by two blank lines (gnuplot: index N)\n",
	      f);
	size_t block = 0;
	for (size_t k = 0; k < p->nseries; k++) {
		const struct nbw_plot_series *s = &p->series[k];
		if (!usable_points(p, s))
			continue;
		if (block)
			fputs("\n\n", f);
		fprintf(f, "# index %zu: ", block++);
		comment_text(f, s->title);
		fputc('\n', f);
		for (size_t i = 0; i < s->n; i++)
			if (usable(p, s->x[i], s->y[i]))
				fprintf(f, "%.10g %.10g\n", s->x[i], s->y[i]);
	}
	fclose(f);
	return buf;
}

void nbw_gp_preamble(FILE *f, const char *stem, const char *title, const char *data_layout)
{
	fputs("# nodebw plot: ", f);
	comment_text(f, title);
	fprintf(f, "\n# Data: %s.dat, ", stem);
	comment_text(f, data_layout);
	fprintf(f, ".\n# Restyle freely, then run in this folder:\n"
		   "#   gnuplot -e \"fmt='png'\" %s.gp    (writes %s.png)\n"
		   "#   gnuplot -e \"fmt='svg'\" %s.gp    (writes %s.svg)\n"
		   "# out='file' sets another output file.\n\n",
		stem, stem, stem, stem);
	fprintf(f, "if (!exists(\"fmt\")) fmt = 'png'\n"
		   "if (!exists(\"out\")) out = '%s.' . fmt\n"
		   "datafile = '%s.dat'\n\n", stem, stem);
	fputs("if (fmt eq 'svg') {\n"
	      "\tset terminal svg size 1000,760 dynamic font 'Sans,12' background rgb 'white'\n"
	      "} else {\n"
	      "\tif (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
	      "\t\tset terminal pngcairo size 1000,760 font 'Sans,11' background rgb 'white'\n"
	      "\t} else {\n"
	      "\t\tset terminal png size 1000,760 background rgb 'white'\n"
	      "\t}\n"
	      "}\n"
	      "set output out\n"
	      "set termoption noenhanced\n\n", f);
}

static char *script_text(const struct nbw_plot *p, const char *stem, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	if (!f)
		return NULL;
	nbw_gp_preamble(f, stem, p->title, "one block per series (column 1 = x, column 2 = y)");
	fputs("set title ", f);
	nbw_gp_quote(f, p->title);
	fputs("\nset xlabel ", f);
	nbw_gp_quote(f, p->xlabel);
	fputs("\nset ylabel ", f);
	nbw_gp_quote(f, p->ylabel);
	fputc('\n', f);
	if (p->logx)
		fputs("set logscale x 10\n", f);
	if (p->logy)
		fputs("set logscale y 10\n", f);
	fputs("set grid xtics ytics lc rgb '#dddddd'\n"
	      "set key below Left reverse horizontal maxcols 2 width -4 height 1 nobox\n"
	      "set format y '%g'\n", f);
	if (p->note && *p->note) {
		fputs("set label 1 ", f);
		nbw_gp_quote(f, p->note);
		fputs(" at graph 0.02, graph 0.95 left front\n", f);
	}
	if (p->extra && *p->extra)
		fprintf(f, "%s\n", p->extra);
	fputs("\nplot \\\n", f);
	size_t block = 0;
	bool first = true;
	for (size_t k = 0; k < p->nseries; k++) {
		const struct nbw_plot_series *s = &p->series[k];
		if (!usable_points(p, s))
			continue;
		fprintf(f, "%s\tdatafile index %zu using 1:2 with %s title ", first ? "" : ", \\\n",
			block++, s->style && *s->style ? s->style : "linespoints");
		nbw_gp_quote(f, s->title ? s->title : "");
		first = false;
	}
	for (size_t h = 0; h < p->nhline; h++) {
		if (!isfinite(p->hline[h]) || (p->logy && p->hline[h] <= 0))
			continue;
		fprintf(f, ", \\\n\t%.10g with lines dashtype 2 lw 1.5 lc rgb '#555555' title ",
			p->hline[h]);
		nbw_gp_quote(f, p->hline_title && p->hline_title[h] ? p->hline_title[h] : "");
	}
	fputs("\n", f);
	fclose(f);
	return buf;
}

/* The program to run, or NULL with \p why. */
static char *find_gnuplot(char *why, size_t whylen)
{
	const char *env = getenv("NODEBW_GNUPLOT");
	const char *prog = env && *env ? env : "gnuplot";
	if (strchr(prog, '/')) {
		if (access(prog, X_OK) == 0)
			return strdup(prog);
		snprintf(why, whylen, "NODEBW_GNUPLOT=%s: %s", prog, strerror(errno));
		return NULL;
	}
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		const char *colon = strchr(path, ':');
		size_t n = colon ? (size_t)(colon - path) : strlen(path);
		char *cand = NULL;
		if (asprintf(&cand, "%.*s/%s", (int)n, n ? path : ".", prog) < 0)
			break;
		struct stat st;
		if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0)
			return cand;
		free(cand);
		path += n + (colon != NULL);
	}
	if (env && *env)
		snprintf(why, whylen, "NODEBW_GNUPLOT=%s: not found on PATH", prog);
	else
		snprintf(why, whylen, "gnuplot not found on PATH (install gnuplot, or set "
				      "NODEBW_GNUPLOT)");
	return NULL;
}

/* The last non-empty line of \p path, trimmed, into \p out. */
static void last_line(const char *path, char *out, size_t outlen)
{
	out[0] = '\0';
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	char line[512];
	while (fgets(line, sizeof(line), f)) {
		char *s = line;
		while (*s == ' ' || *s == '\t')
			s++;
		size_t n = strlen(s);
		while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' '))
			s[--n] = '\0';
		if (n && strcmp(s, "^") != 0)
			snprintf(out, outlen, "%s", s);
	}
	fclose(f);
}

/* Run `gnuplot -e "fmt='FMT'; out='OUT'" STEM.gp` in \p plots; 0, or -1 with \p why. */
/* A finished image ends with its format's end marker: PNG's IEND chunk, SVG's </svg>. */
static bool image_complete(const char *path, const char *fmt)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	char tail[64];
	struct stat st;
	ssize_t n = -1;
	if (fstat(fd, &st) == 0 && st.st_size > 0) {
		off_t from = st.st_size > (off_t)sizeof(tail) ? st.st_size - (off_t)sizeof(tail) : 0;
		n = pread(fd, tail, sizeof(tail), from);
	}
	close(fd);
	if (n <= 0)
		return false;
	if (strcmp(fmt, "png") == 0) {
		static const unsigned char iend[] = { 0, 0, 0, 0, 'I', 'E', 'N', 'D',
						      0xAE, 0x42, 0x60, 0x82 };
		return n >= 12 && memcmp(tail + n - 12, iend, 12) == 0;
	}
	while (n > 0 && (tail[n - 1] == '\n' || tail[n - 1] == ' ' || tail[n - 1] == '\r'))
		n--;
	return n >= 6 && memcmp(tail + n - 6, "</svg>", 6) == 0;
}

static int run_gnuplot(const char *prog, const char *plots, const char *stem, const char *fmt,
		       double limit_s, char *why, size_t whylen)
{
	char vars[320], script[200], log[200];
	snprintf(vars, sizeof(vars), "fmt='%s'; out='%s.%s.part'", fmt, stem, fmt);
	snprintf(script, sizeof(script), "%s.gp", stem);
	snprintf(log, sizeof(log), "%s.log", stem);
	char *const argv[] = { (char *)prog, "-e", vars, script, NULL };
	fflush(NULL);
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(why, whylen, "cannot start %s: %s", prog, strerror(errno));
		return -1;
	}
	if (pid == 0) {
		nbw_child_setup(parent); /* its own process group, killed with nodebw */
		if (chdir(plots) != 0)
			_exit(126);
		int in = open("/dev/null", O_RDONLY);
		int out = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (in < 0 || out < 0)
			_exit(126);
		dup2(in, 0);
		dup2(out, 1);
		dup2(out, 2);
		execv(prog, argv);
		_exit(127);
	}
	int status = 0;
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	long waited_ms = 0;
	pid_t w;
	while ((w = waitpid(pid, &status, WNOHANG)) == 0 ||
	       (w < 0 && errno == EINTR)) {
		if (waited_ms >= limit_s * 1000.0) {
			kill(-pid, SIGKILL); /* gnuplot and whatever it started */
			kill(pid, SIGKILL);
			while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
				;
			snprintf(why, whylen, "%s did not finish within %.0f s%s", prog, limit_s,
				 limit_s < GNUPLOT_TIMEOUT_S ? " (the rest of the report's plot time "
							       "limit)"
							     : "");
			return -1;
		}
		nanosleep(&tick, NULL);
		waited_ms += 10;
	}
	kill(-pid, SIGKILL); /* nothing gnuplot started outlives it */
	char logpath[4096], msg[400];
	snprintf(logpath, sizeof(logpath), "%s/%s", plots, log);
	if (w < 0) {
		snprintf(why, whylen, "waiting for %s: %s", prog, strerror(errno));
		return -1;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		last_line(logpath, msg, sizeof(msg));
		if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
			snprintf(why, whylen, "%s could not be executed", prog);
		else if (WIFEXITED(status))
			snprintf(why, whylen, "gnuplot failed making %s (exit status %d%s%s; see "
					      "plots/%s)", fmt, WEXITSTATUS(status),
				 msg[0] ? ": " : "", msg, log);
		else
			snprintf(why, whylen, "gnuplot was killed by signal %d making %s",
				 WTERMSIG(status), fmt);
		return -1;
	}
	char part[4096], final[4096];
	snprintf(part, sizeof(part), "%s/%s.%s.part", plots, stem, fmt);
	snprintf(final, sizeof(final), "%s/%s.%s", plots, stem, fmt);
	struct stat st;
	if (stat(part, &st) != 0 || st.st_size == 0) {
		last_line(logpath, msg, sizeof(msg));
		snprintf(why, whylen, "gnuplot exited normally but wrote no %s image%s%s", fmt,
			 msg[0] ? ": " : "", msg);
		unlink(part);
		return -1;
	}
	if (!image_complete(part, fmt)) {
		snprintf(why, whylen, "gnuplot's %s image is truncated (no %s end marker; a full "
				      "disk or a file-size limit?)",
			 fmt, strcmp(fmt, "png") == 0 ? "IEND" : "</svg>");
		unlink(part);
		return -1;
	}
	if (rename(part, final) != 0) {
		snprintf(why, whylen, "cannot rename %s: %s", part, strerror(errno));
		unlink(part);
		return -1;
	}
	return 0;
}

int nbw_rdoc_plot_files(struct nbw_rdoc *r, const char *stem, const char *data, size_t dlen,
			const char *script, size_t slen, const char *caption)
{
	char plots[4096], path[4096], err[600], why[600] = "";
	snprintf(plots, sizeof(plots), "%s/plots", nbw_rdoc_dir(r));
	int rc = -1;
	bool have_script = false;
	if (!data || !script) {
		snprintf(why, sizeof(why), "out of memory");
		goto out;
	}
	snprintf(path, sizeof(path), "%s/%s.dat", plots, stem);
	if (nbw_write_atomic(path, data, dlen, err, sizeof(err))) {
		snprintf(why, sizeof(why), "%s", err);
		goto out;
	}
	snprintf(path, sizeof(path), "%s/%s.gp", plots, stem);
	if (nbw_write_atomic(path, script, slen, err, sizeof(err))) {
		snprintf(why, sizeof(why), "%s", err);
		goto out;
	}
	have_script = true;
	char *prog = find_gnuplot(why, sizeof(why));
	if (!prog)
		goto out;
	static const char *const fmts[] = { "png", "svg" };
	rc = 0;
	for (size_t i = 0; i < 2 && rc == 0; i++) {
		double left = nbw_rdoc_plot_time_left(r);
		if (left <= 0.0) {
			snprintf(why, sizeof(why), "the report's plot time limit (%.0f s by default, "
						   "NODEBW_PLOT_TIME_LIMIT) was spent before this "
						   "figure", NBW_REPORT_PLOT_LIMIT_S);
			rc = -1;
			break;
		}
		rc = run_gnuplot(prog, plots, stem, fmts[i],
				 left < GNUPLOT_TIMEOUT_S ? left : GNUPLOT_TIMEOUT_S, why, sizeof(why));
	}
	free(prog);
	if (rc == 0) {
		snprintf(path, sizeof(path), "%s/%s.log", plots, stem);
		unlink(path);
	} else {
		/* No half figure: a PNG without its SVG goes too. */
		for (size_t i = 0; i < 2; i++) {
			snprintf(path, sizeof(path), "%s/%s.%s", plots, stem, fmts[i]);
			unlink(path);
		}
	}
out:
	nbw_rdoc_figure(r, stem, caption, rc == 0 ? NULL : why, have_script);
	return rc;
}

int nbw_rdoc_plot(struct nbw_rdoc *r, const struct nbw_plot *p, const char *caption)
{
	char stem[160];
	nbw_rdoc_claim_name(r, "plot", p->name ? p->name : "plot", stem, sizeof(stem));
	if (!caption)
		caption = p->title ? p->title : stem;
	size_t with_data = 0;
	for (size_t k = 0; k < p->nseries; k++)
		with_data += usable_points(p, &p->series[k]) > 0;
	if (with_data == 0) {
		nbw_rdoc_para(r, "Figure \"%s\": no data to plot%s.", caption,
			      p->logx || p->logy ? " (no positive values for the log axes)" : "");
		return -1;
	}
	size_t dlen = 0, slen = 0;
	char *data = data_text(p, &dlen);
	char *script = script_text(p, stem, &slen);
	int rc = nbw_rdoc_plot_files(r, stem, data, dlen, script, slen, caption);
	free(data);
	free(script);
	return rc;
}

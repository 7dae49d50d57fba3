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
#include "nodebw/readfile.h"
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
		   "#   gnuplot -e \"fmt='phone'\" %s.gp  (writes %s.phone.svg, drawn for a "
		   "phone's width)\n"
		   "# out='file' sets another output file.\n\n",
		stem, stem, stem, stem, stem, stem);
	fprintf(f, "if (!exists(\"fmt\")) fmt = 'png'\n"
		   "if (!exists(\"out\")) out = '%s.' . (fmt eq 'phone' ? 'phone.svg' : fmt)\n"
		   "datafile = '%s.dat'\n\n", stem, stem);
	fputs("if (fmt eq 'phone') {\n"
	      "\tset terminal svg size " NBW_PHONE_SVG_SIZE " dynamic font 'Sans,12' "
	      "background rgb 'white'\n"
	      "} else { if (fmt eq 'svg') {\n"
	      "\tset terminal svg size 720,540 dynamic font 'Sans,12' background rgb 'white'\n"
	      "} else {\n"
	      "\tif (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
	      "\t\tset terminal pngcairo size 1000,760 font 'Sans,11' background rgb 'white'\n"
	      "\t} else {\n"
	      "\t\tset terminal png size 1000,760 background rgb 'white'\n"
	      "\t}\n"
	      "} }\n"
	      "set output out\n"
	      "set termoption noenhanced\n\n", f);
}

/* ---- styles: every series and every reference line its own look ------------------ */

/* Okabe-Ito colours (readable by colour-blind readers) and two more; the reference lines
 * are grey, a colour no series has. */
static const char *const palette[NBW_PLOT_COLOURS] = {
	"#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#7b3294", "#8c510a",
};
#define REF_COLOUR "#505050"
/* Point types in the order they are handed out (filled first, then open). */
static const int points[] = { 7, 5, 9, 13, 11, 6, 4, 8, 12, 10, 1, 2, 3 };
#define NPOINTS (sizeof(points) / sizeof(points[0]))
/* gnuplot's dash types 1-5 are terminal patterns; past 5 explicit patterns. */
static const char *const dashes[] = { "1", "2", "3", "4", "5", "(16,6,2,6,2,6)", "(2,8)",
				      "(24,8)", "(8,4,8,12)", "(4,12)" };
#define NDASHES ((int)(sizeof(dashes) / sizeof(dashes[0])))
/* Reference lines take dash types in this order: plain dashes first. */
static const int ref_dashes[] = { 2, 4, 5, 3, 6, 7, 8, 9, 10 };
#define NREF_DASHES (sizeof(ref_dashes) / sizeof(ref_dashes[0]))

struct look {
	int colour;  /* 1..NBW_PLOT_COLOURS */
	int dash;    /* 1..NDASHES, 0 when the style draws no line */
	int point;   /* a pointtype, 0 when the style draws no points */
	bool lines, marks;
};

/* What the style draws, from its first word: lines, points, both, or neither (bars). */
static void style_draws(const char *style, bool *lines, bool *marks)
{
	char w[16] = "";
	sscanf(style, "%15[a-z]", w);
	*lines = strcmp(w, "lines") == 0 || strcmp(w, "l") == 0 ||
		 strcmp(w, "linespoints") == 0 || strcmp(w, "lp") == 0 ||
		 strcmp(w, "steps") == 0 || strcmp(w, "impulses") == 0;
	*marks = strcmp(w, "linespoints") == 0 || strcmp(w, "lp") == 0 ||
		 strcmp(w, "points") == 0 || strcmp(w, "p") == 0;
}

static const char *series_style(const struct nbw_plot_series *s)
{
	return s->style && *s->style ? s->style : "linespoints";
}

static bool same_look(const struct look *a, const struct look *b)
{
	return a->colour == b->colour && a->dash == b->dash && a->point == b->point &&
	       a->lines == b->lines && a->marks == b->marks;
}

static bool look_taken(const struct look *lk, size_t k)
{
	for (size_t j = 0; j < k; j++)
		if (same_look(&lk[j], &lk[k]))
			return true;
	return false;
}

/* A point type no earlier series has, else one by position. */
static int free_point(const struct look *lk, size_t k)
{
	for (size_t i = 0; i < NPOINTS; i++) {
		bool used = false;
		for (size_t j = 0; j < k && !used; j++)
			used = lk[j].point == points[i];
		if (!used)
			return points[i];
	}
	return points[k % NPOINTS];
}

/* The look of each of \p n series (usable ones only are passed): pinned values kept,
 * the rest assigned, repeats moved to another point type, dash type or colour. */
static void assign_looks(const struct nbw_plot_series *const *s, size_t n, struct look *lk)
{
	bool pinned[NBW_PLOT_COLOURS + 1] = { false };
	for (size_t k = 0; k < n; k++)
		if (s[k]->colour >= 1 && s[k]->colour <= NBW_PLOT_COLOURS)
			pinned[s[k]->colour] = true;
	int next = 1;
	for (size_t k = 0; k < n; k++) {
		struct look *l = &lk[k];
		style_draws(series_style(s[k]), &l->lines, &l->marks);
		if (s[k]->colour >= 1 && s[k]->colour <= NBW_PLOT_COLOURS) {
			l->colour = s[k]->colour;
		} else {
			while (next <= NBW_PLOT_COLOURS && pinned[next])
				next++;
			l->colour = next <= NBW_PLOT_COLOURS ? next++
							     : 1 + (int)(k % NBW_PLOT_COLOURS);
		}
		l->dash = !l->lines ? 0 : s[k]->dash >= 1 && s[k]->dash <= NDASHES ? s[k]->dash : 1;
		l->point = !l->marks ? 0 : s[k]->point > 0 ? s[k]->point : free_point(lk, k);
		/* A repeat: the next point type, past the last one the next dash type, past the
		 * last one the next colour (every combination is tried once). */
		int np = l->marks ? (int)NPOINTS : 1, nd = l->lines ? NDASHES : 1;
		int pi = 0;
		for (size_t i = 0; i < NPOINTS && l->marks; i++)
			if (points[i] == l->point)
				pi = (int)i;
		for (int tries = 1; tries < np * nd * NBW_PLOT_COLOURS && look_taken(lk, k);
		     tries++) {
			if (l->marks && (l->point = points[++pi % np]) != points[0])
				continue;
			if (l->lines && (l->dash = l->dash % NDASHES + 1) != 1)
				continue;
			l->colour = l->colour % NBW_PLOT_COLOURS + 1;
		}
	}
}

static void write_look(FILE *f, const struct look *l)
{
	fprintf(f, " linecolor rgb '%s'", palette[l->colour - 1]);
	if (l->lines)
		fprintf(f, " dashtype %s", dashes[l->dash - 1]);
	if (l->marks)
		fprintf(f, " pointtype %d", l->point);
}

/* ---- the script --------------------------------------------------------------------- */

static bool hline_drawn(const struct nbw_plot *p, size_t h)
{
	return isfinite(p->hline[h]) && (!p->logy || p->hline[h] > 0);
}

static void widen(double v, double *lo, double *hi)
{
	if (v < *lo)
		*lo = v;
	if (v > *hi)
		*hi = v;
}

/* The y range: every point and every reference line with room around it, so that no
 * reference line lies on the border. False when there is nothing to range. */
static bool y_range(const struct nbw_plot *p, double *lo, double *hi)
{
	*lo = INFINITY;
	*hi = -INFINITY;
	for (size_t k = 0; k < p->nseries; k++) {
		const struct nbw_plot_series *s = &p->series[k];
		for (size_t i = 0; s->x && s->y && i < s->n; i++)
			if (usable(p, s->x[i], s->y[i]))
				widen(s->y[i], lo, hi);
	}
	for (size_t h = 0; h < p->nhline; h++) {
		if (!hline_drawn(p, h))
			continue;
		widen(p->hline[h], lo, hi);
		if (p->hline_pm && !p->logy)
			widen(-p->hline[h], lo, hi);
	}
	if (p->yzero && !p->logy)
		widen(0.0, lo, hi);
	if (!(*lo <= *hi))
		return false;
	if (p->logy) {
		double f = *hi > *lo ? pow(*hi / *lo, 0.06) : 1.5;
		*lo /= f;
		*hi *= f;
		return true;
	}
	double span = *hi > *lo ? *hi - *lo : (*hi != 0 ? fabs(*hi) : 1.0);
	bool from_zero = p->yzero && *lo >= 0;
	*lo = from_zero ? 0.0 : *lo - 0.07 * span;
	*hi += 0.07 * span;
	return true;
}

/* The key below the plot area, never over data or guides; the y range. */
static void layout(FILE *f, const struct nbw_plot *p)
{
	fputs("set key outside bmargin center Left reverse horizontal maxcols 2 samplen 3 "
	      "spacing 1.1 height 1 nobox\n", f);
	double lo, hi;
	if (y_range(p, &lo, &hi))
		fprintf(f, "set yrange [%.10g:%.10g]\n", lo, hi);
}

static void write_hlines(FILE *f, const struct nbw_plot *p)
{
	size_t k = 0;
	for (size_t h = 0; h < p->nhline; h++) {
		if (!hline_drawn(p, h))
			continue;
		const char *dt = dashes[ref_dashes[k % NREF_DASHES] - 1];
		k++;
		fprintf(f, ", \\\n\t%.10g with lines linecolor rgb '%s' dashtype %s lw 1.5 title ",
			p->hline[h], REF_COLOUR, dt);
		nbw_gp_quote(f, p->hline_title && p->hline_title[h] ? p->hline_title[h] : "");
		if (p->hline_pm && !p->logy && p->hline[h] != 0)
			fprintf(f, ", \\\n\t%.10g with lines linecolor rgb '%s' dashtype %s lw 1.5 "
				   "notitle", -p->hline[h], REF_COLOUR, dt);
	}
}

static char *script_text(const struct nbw_plot *p, const char *stem, size_t *len)
{
	const struct nbw_plot_series **used = calloc(p->nseries ? p->nseries : 1, sizeof(*used));
	struct look *lk = calloc(p->nseries ? p->nseries : 1, sizeof(*lk));
	char *buf = NULL;
	FILE *f = used && lk ? open_memstream(&buf, len) : NULL;
	if (!f) {
		free(used);
		free(lk);
		return NULL;
	}
	size_t nu = 0;
	for (size_t k = 0; k < p->nseries; k++)
		if (usable_points(p, &p->series[k]))
			used[nu++] = &p->series[k];
	assign_looks(used, nu, lk);
	nbw_gp_preamble(f, stem, p->title, "one block per series (column 1 = x, column 2 = y)");
	/* The note is the title's second line: above the plot area, never over a point. */
	fputs("set title ", f);
	nbw_gp_quote(f, p->title);
	if (p->note && *p->note) {
		fputs(" . \"\\n\" . ", f);
		nbw_gp_quote(f, p->note);
	}
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
	      "set format y '%g'\n", f);
	layout(f, p);
	if (p->extra && *p->extra)
		fprintf(f, "%s\n", p->extra);
	fputs("\nplot \\\n", f);
	for (size_t k = 0; k < nu; k++) {
		fprintf(f, "%s\tdatafile index %zu using 1:2 with %s", k ? ", \\\n" : "", k,
			series_style(used[k]));
		write_look(f, &lk[k]);
		fputs(" title ", f);
		nbw_gp_quote(f, used[k]->title ? used[k]->title : "");
	}
	write_hlines(f, p);
	fputs("\n", f);
	fclose(f);
	free(used);
	free(lk);
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
	const char *ext = strcmp(fmt, "phone") == 0 ? "phone.svg" : fmt;
	snprintf(vars, sizeof(vars), "fmt='%s'; out='%s.%s.part'", fmt, stem, ext);
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
		nbw_last_line(logpath, "^", msg, sizeof(msg));
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
	snprintf(part, sizeof(part), "%s/%s.%s.part", plots, stem, ext);
	snprintf(final, sizeof(final), "%s/%s.%s", plots, stem, ext);
	struct stat st;
	if (stat(part, &st) != 0 || st.st_size == 0) {
		nbw_last_line(logpath, "^", msg, sizeof(msg));
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
	/* The phone's drawing is a nicety: without it a phone shows the SVG, smaller. */
	double left = nbw_rdoc_plot_time_left(r);
	snprintf(path, sizeof(path), "%s/%s.phone.svg", plots, stem);
	unlink(path); /* never an earlier report's */
	if (rc == 0 && left > 0.0) {
		char pwhy[600];
		run_gnuplot(prog, plots, stem, "phone",
			    left < GNUPLOT_TIMEOUT_S ? left : GNUPLOT_TIMEOUT_S, pwhy, sizeof(pwhy));
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

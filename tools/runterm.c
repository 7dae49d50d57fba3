/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The terminal of `nodebw run` (tools/runterm.h): the status line rewritten in place with
 * "\r" and erase-to-end-of-line, the findings above it, run.log beside the results, and
 * the probes' sink that feeds them. The only process-wide state is what a signal handler
 * needs to clear the status line (the terminal's descriptor and whether a line is drawn).
 */
#include "runterm.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nodebw/runner.h"
#include "nodebw/sizes.h"
#include "nodebw/termtext.h"

#define ERASE_LINE "\r\033[K"

/* ---- Ctrl-C: the status line cleared before the signal's own handler runs ------------ */

static volatile sig_atomic_t sig_fd = -1, sig_drawn;
static volatile sig_atomic_t sig_seen[NSIG];
static struct sigaction sig_old[NSIG];
static const int sig_list[] = {SIGINT, SIGTERM, SIGHUP};

static void on_signal(int sig)
{
	int e = errno;
	if (sig_drawn && sig_fd >= 0) {
		ssize_t w = write(sig_fd, ERASE_LINE, sizeof(ERASE_LINE) - 1);
		(void)w;
		sig_drawn = 0;
	}
	if (sig_seen[sig]) {
		/* The second one ends the process at once, as without the status line. */
		signal(sig, SIG_DFL);
		raise(sig);
		errno = e;
		return;
	}
	sig_seen[sig] = 1;
	if (sig_old[sig].sa_handler != SIG_DFL && sig_old[sig].sa_handler != SIG_IGN)
		sig_old[sig].sa_handler(sig);
	/* The first one's handler (nodebw/session.h) may have reset the signal: this one
	 * stays, to clear the line for the second. */
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(sig, &sa, NULL);
	errno = e;
}

static void signals_install(int fd)
{
	sig_fd = fd;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	for (size_t i = 0; i < sizeof(sig_list) / sizeof(sig_list[0]); i++) {
		int s = sig_list[i];
		/* A signal ignored stays ignored (nohup). */
		if (sigaction(s, NULL, &sig_old[s]) == 0 && sig_old[s].sa_handler != SIG_IGN)
			sigaction(s, &sa, NULL);
	}
}

static void signals_restore(void)
{
	if (sig_fd < 0)
		return;
	for (size_t i = 0; i < sizeof(sig_list) / sizeof(sig_list[0]); i++) {
		int s = sig_list[i];
		struct sigaction now;
		/* A signal already seen keeps its default action (the session reset it). */
		if (sigaction(s, NULL, &now) == 0 && now.sa_handler == on_signal)
			sigaction(s, sig_seen[s] ? &(struct sigaction){.sa_handler = SIG_DFL}
						 : &sig_old[s], NULL);
	}
	sig_fd = -1;
}

/* ---- the status line ------------------------------------------------------------------ */

static void clear(struct nbw_runterm *t)
{
	if (!t->drawn)
		return;
	sig_drawn = 0;
	fputs(ERASE_LINE, t->out);
	fflush(t->out);
	t->drawn = false;
}

static int stage_index(const struct nbw_runterm *t, const char *name)
{
	for (size_t i = 0; i < t->nstages; i++)
		if (strcmp(t->stage_names[i], name) == 0)
			return (int)i;
	return -1;
}

double nbw_runterm_left(const struct nbw_runterm *t)
{
	if (t->stage < 0)
		return -1.0;
	double now = nbw_now(), in = now - t->stage_t0, est = t->stage_est[t->stage], cur;
	double frac = t->stage_frac;
	if (frac < 0.0 && t->stage_meas_planned)
		frac = (double)(t->meas_done - t->stage_meas_start) / (double)t->stage_meas_planned;
	if (frac > 0.02 && frac <= 1.0)
		cur = in / frac * (1.0 - frac);
	else
		cur = est > in ? est - in : 0.0;
	double left = cur;
	for (size_t i = (size_t)t->stage + 1; i < t->nstages; i++)
		left += t->stage_est[i];
	if (t->limit > 0.0) {
		double cap = t->limit - (now - t->t0);
		if (cap < left)
			left = cap > 0.0 ? cap : 0.0;
	}
	return left;
}

/* The status line drawn again; unless \p force, at most ten times a second (a terminal
 * cannot show more, and a recording of it stays small). */
static void draw_when(struct nbw_runterm *t, bool force)
{
	if (!t->live || t->stage < 0)
		return;
	double now = nbw_now();
	if (!force && t->drawn && now - t->last_draw < 0.1)
		return;
	t->last_draw = now;
	t->cols = nbw_term_columns(fileno(t->out));
	char text[512], left[48] = "", counts[128] = "";
	double l = nbw_runterm_left(t);
	if (l >= 0.5)
		snprintf(left, sizeof(left), ", about %.0f s left", l);
	else if (l >= 0.0)
		snprintf(left, sizeof(left), ", finishing");
	size_t w = 0;
	if (t->stage >= 0 && strcmp(t->stage_names[t->stage], "probes") == 0 && t->series_total)
		w += (size_t)snprintf(counts + w, sizeof(counts) - w, "series %zu/%zu, ",
				      t->series_done, t->series_total);
	if (t->meas_planned)
		snprintf(counts + w, sizeof(counts) - w, "measurements %zu/%zu", t->meas_done,
			 t->meas_planned);
	else
		snprintf(counts + w, sizeof(counts) - w, "measurements %zu", t->meas_done);
	snprintf(text, sizeof(text), "[%.0f s%s] %s: %s%s%s", nbw_now() - t->t0, left,
		 t->stage >= 0 ? t->stage_names[t->stage] : "starting", counts,
		 t->doing[0] ? "; " : "", t->doing);
	/* One column short of the width: a line that fills the last column makes some
	 * terminals wrap, and the next "\r" would rewrite the wrong line. */
	int room = t->cols - 1;
	size_t n = strlen(text);
	while (n > 0 && nbw_term_text_columns(text, n) > room)
		n--;
	fputs("\r", t->out);
	fwrite(text, 1, n, t->out);
	fputs("\033[K", t->out);
	fflush(t->out);
	t->drawn = true;
	sig_drawn = 1;
}

static void draw(struct nbw_runterm *t)
{
	draw_when(t, true);
}

static void draw_soon(struct nbw_runterm *t)
{
	draw_when(t, false);
}

/* \p text printed on \p f, wrapped, above the status line. */
static void above(struct nbw_runterm *t, FILE *f, const char *first, const char *rest,
		  const char *text)
{
	clear(t);
	nbw_term_wrap(f, first, rest, text, t->live ? t->cols : NBW_TERM_COLUMNS);
	fflush(f);
	draw(t);
}

static void log_line(struct nbw_runterm *t, const char *text)
{
	if (t->log)
		fprintf(t->log, "%s\n", text);
}

/* ---- the per-series stream and stderr ---------------------------------------------- */

static void detail_line(struct nbw_runterm *t, const char *line)
{
	if (!line[0])
		return; /* no blank lines between the lines */
	log_line(t, line);
	if (t->show_detail)
		above(t, t->out, "", "    ", line);
}

static void err_line(struct nbw_runterm *t, const char *line)
{
	if (!line[0])
		return;
	log_line(t, line);
	above(t, t->real_err, "", "  ", line);
}

/* Whole lines of \p buf to \p fn; the rest kept in \p part. */
static void split_lines(struct nbw_runterm *t, char *part, size_t cap, const char *buf,
			size_t size, void (*fn)(struct nbw_runterm *, const char *))
{
	for (size_t i = 0; i < size; i++) {
		size_t n = strlen(part);
		if (buf[i] == '\n' || n + 1 >= cap) {
			fn(t, part);
			part[0] = '\0';
			if (buf[i] == '\n')
				continue;
			n = 0;
		}
		part[n] = buf[i];
		part[n + 1] = '\0';
	}
}

static ssize_t detail_write(void *cookie, const char *buf, size_t size)
{
	struct nbw_runterm *t = cookie;
	split_lines(t, t->part_detail, sizeof(t->part_detail), buf, size, detail_line);
	return (ssize_t)size;
}

static ssize_t err_write(void *cookie, const char *buf, size_t size)
{
	struct nbw_runterm *t = cookie;
	split_lines(t, t->part_err, sizeof(t->part_err), buf, size, err_line);
	return (ssize_t)size;
}

/* ---- the run ------------------------------------------------------------------------- */

int nbw_runterm_open(struct nbw_runterm *t, const char *dir, bool tty, bool verbose, bool json,
		     bool quiet, double t0, double limit, char *err, size_t errlen)
{
	memset(t, 0, sizeof(*t));
	t->out = stdout;
	t->quiet = quiet;
	t->live = tty && !json && !quiet;
	t->show_detail = !quiet && !json && (verbose || !tty);
	t->lines = json || !tty ? stderr : stdout;
	t->cols = NBW_TERM_COLUMNS;
	t->t0 = t0;
	t->limit = limit;
	t->stage = -1;
	t->stage_frac = -1.0;
	char path[4200];
	snprintf(path, sizeof(path), "%s/run.log", dir);
	t->log = fopen(path, "w");
	if (!t->log) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	setvbuf(t->log, NULL, _IOLBF, 0);
	t->detail = fopencookie(t, "w", (cookie_io_functions_t){.write = detail_write});
	if (!t->detail) {
		snprintf(err, errlen, "out of memory");
		fclose(t->log);
		t->log = NULL;
		return -1;
	}
	setvbuf(t->detail, NULL, _IOLBF, 0);
	if (t->live) {
		/* Whatever is said on stderr while the status line is drawn comes above it. */
		t->errs = fopencookie(t, "w", (cookie_io_functions_t){.write = err_write});
		if (t->errs) {
			setvbuf(t->errs, NULL, _IOLBF, 0);
			t->real_err = stderr;
			stderr = t->errs;
		}
		signals_install(fileno(t->out));
	}
	return 0;
}

void nbw_runterm_finish(struct nbw_runterm *t)
{
	if (t->errs) {
		fflush(t->errs);
		stderr = t->real_err;
		fclose(t->errs);
		t->errs = NULL;
	}
	clear(t);
	t->live = false;
	signals_restore();
}

void nbw_runterm_close(struct nbw_runterm *t)
{
	nbw_runterm_finish(t);
	if (t->detail) {
		fflush(t->detail);
		if (t->part_detail[0])
			detail_line(t, t->part_detail);
		fclose(t->detail);
		t->detail = NULL;
	}
	if (t->log) {
		fclose(t->log);
		t->log = NULL;
	}
}

void nbw_runterm_plan_stage(struct nbw_runterm *t, const char *name, double est)
{
	if (t->nstages >= NBW_RUNTERM_MAX_STAGES)
		return;
	snprintf(t->stage_names[t->nstages], sizeof(t->stage_names[0]), "%s", name);
	t->stage_est[t->nstages++] = est;
}

void nbw_runterm_plan_counts(struct nbw_runterm *t, size_t measurements, size_t series)
{
	t->meas_planned = measurements;
	t->series_total = series;
}

void nbw_runterm_stage(struct nbw_runterm *t, const char *name, size_t planned)
{
	t->stage = stage_index(t, name);
	t->stage_t0 = nbw_now();
	t->stage_frac = -1.0;
	t->stage_meas_start = t->meas_done;
	t->stage_meas_planned = planned;
	t->design_skips = 0;
	t->doing[0] = '\0';
	draw(t);
}

void nbw_runterm_fraction(struct nbw_runterm *t, double frac)
{
	t->stage_frac = frac;
	draw(t);
}

void nbw_runterm_measured(struct nbw_runterm *t, size_t done)
{
	t->meas_done = done;
	draw_soon(t);
}

void nbw_runterm_doing(struct nbw_runterm *t, const char *stamp, const char *text)
{
	if (t->log)
		fprintf(t->log, "%s%s\n", stamp, text);
	if (t->live) {
		snprintf(t->doing, sizeof(t->doing), "%s", text);
		draw(t);
	} else if (!t->quiet) {
		nbw_term_wrapf(t->lines, "", "    ", NBW_TERM_COLUMNS, "%s%s", stamp, text);
		fflush(t->lines);
	}
}

void nbw_runterm_say(struct nbw_runterm *t, const char *text)
{
	log_line(t, text);
	if (!t->quiet)
		above(t, t->live ? t->out : t->lines, "", "    ", text);
}

void nbw_runterm_detail(struct nbw_runterm *t, const char *text)
{
	fputs(text, t->detail);
	fflush(t->detail);
}

/* ---- the probes' sink ---------------------------------------------------------------- */

struct rsink {
	struct nbw_sink sink; /* first: the sink is the struct */
	struct nbw_runterm *t;
};

static void r_series(struct nbw_sink *s, const struct nbw_series_info *si)
{
	struct nbw_runterm *t = ((struct rsink *)s)->t;
	const struct nbw_series_plan *p = si->plan;
	snprintf(t->doing, sizeof(t->doing), "%s-%s %s %s", si->api, nbw_dir_name(p->kind->dir),
		 nbw_mode_name(p->mode), p->kind->dir == NBW_P2P ? p->kind->label
								 : nbw_hostmem_name(p->mem));
	draw_soon(t);
}

static void r_measurement(struct nbw_sink *s, const struct nbw_series_info *si,
			  const struct nbw_measurement *m)
{
	struct nbw_runterm *t = ((struct rsink *)s)->t;
	t->meas_done++;
	bool failed = !m->error[0] && strcmp(m->verify_status, "passed") != 0;
	if (m->error[0] || failed) {
		char sz[32], line[1200];
		nbw_size_label(m->bytes, sz, sizeof(sz));
		snprintf(line, sizeof(line), "%s %s at %s: %s%s", m->probe, si->plan->what, sz,
			 m->error[0] ? "error: " : "verification ",
			 m->error[0] ? m->error : m->verify_status);
		nbw_runterm_say(t, line);
		return;
	}
	draw_soon(t);
}

static void r_series_end(struct nbw_sink *s, const struct nbw_series_info *si)
{
	struct nbw_runterm *t = ((struct rsink *)s)->t;
	t->series_done++;
	draw_soon(t);
}

static void r_skip(struct nbw_sink *s, const char *api, const char *probe, const char *what,
		   const char *reason, bool by_design)
{
	struct nbw_runterm *t = ((struct rsink *)s)->t;
	if (by_design) {
		t->design_skips++;
		return;
	}
	char line[1200];
	snprintf(line, sizeof(line), "%s %s: skipped: %s", strcmp(probe, "*") ? probe : api, what,
		 reason);
	nbw_runterm_say(t, line);
}

struct nbw_sink *nbw_runterm_sink(struct nbw_runterm *t)
{
	struct rsink *r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->t = t;
	r->sink = (struct nbw_sink){.series = r_series, .measurement = r_measurement,
				    .series_end = r_series_end, .skip = r_skip};
	return &r->sink;
}

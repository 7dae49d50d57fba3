/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One report document written twice at once: report.md (Markdown) and report.html (one
 * self-contained page with a small inline style sheet), plus tables/<name>.csv for every
 * table. Text is plain: it is escaped for each format here, never by the callers. Every
 * file is written atomically (temporary file + rename, nbw_write_atomic).
 */
#include "nodebw/report.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nodebw/csvcell.h"
#include "nodebw/results.h"
#include "nodebw/version.h"
#include "nodebw/runner.h"
#include "nodebw/sizes.h"
#include "rdoc_priv.h"

/* A table column whose longest cell has more characters than this wraps; the others stay
 * on one line. Such a column is made wide enough for its longest cell in this many lines. */
#define NBW_RDOC_LONG_CELL 40
#define NBW_RDOC_ROW_LINES 3

struct heading {
	int level;
	char *text, *id;
};

/* One page of the report: report.md/.html (the main page) or an appendix page <stem>.md/.html
 * beside it, its body growing in memory streams. */
struct page {
	char *stem, *title;
	char *md, *html;
	size_t md_len, html_len;
	FILE *mdf, *htmlf;
	bool in_list;
	struct heading *heads;
	size_t nheads;
};

/* A figure placed (with its image or with why it has none): what nbw_rdoc_figure_again
 * places once more. */
struct placed {
	char *stem, *caption;
	char *no_image;        /* NULL: it has its image; else why not */
	bool have_script;
};

struct nbw_rdoc {
	char *dir, *title;
	struct page **pages;   /* pages[0] is the main page */
	size_t npages;
	struct page *pg;       /* the page being written */
	struct placed *figs;
	size_t nfigs;
	bool grid;             /* figures side by side until nbw_rdoc_grid_end */
	char **names;          /* claimed "kind/stem" names */
	size_t nnames;
	char err[512];         /* the first failure (a table's CSV), reported by write */
	int no_image;          /* figures without an image, and the first reason */
	char no_image_why[600];
	double plot_deadline;  /* monotonic seconds: gnuplot's time for the whole report */
	bool aside;            /* the next figure stands beside the text that follows it */
};

struct nbw_rtable {
	char *name;
	size_t ncols;
	char **headers;
	char **csv_names;      /* the CSV column names, NULL = derived from the header */
	char **cells;          /* row-major, nrows * ncols, NULL = empty */
	char **csv;            /* the same: a cell's own CSV text, NULL = from the display */
	bool *has_csv;         /* the same: csv[] was given (NULL there = empty) */
	size_t nrows, cur;     /* cur: cells filled in the row being built */
	size_t cap;            /* rows allocated */
	bool bad;              /* out of memory: the table is dropped */
};

/* ---- text helpers ------------------------------------------------------------------- */

static char *vfmt(const char *fmt, va_list ap)
{
	char *s = NULL;
	if (vasprintf(&s, fmt, ap) < 0)
		return NULL;
	return s;
}

static bool isalnum_c(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static void html_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*s, f);
		}
	}
}

/* Markdown: backslash-escape what could start markup inside running text; line breaks
 * become spaces in table cells and headings (\p one_line). */
static void md_text(FILE *f, const char *s, bool one_line)
{
	for (const char *p = s; *p; p++) {
		if (*p == '\n' || *p == '\r') {
			fputc(one_line ? ' ' : '\n', f);
			continue;
		}
		if (strchr("\\`*[]<>|", *p) || (*p == '_' && (p == s || !isalnum_c(p[-1]) ||
							    !isalnum_c(p[1]))) ||
		    (*p == '#' && p == s))
			fputc('\\', f);
		fputc(*p, f);
	}
}

void nbw_human_bytes(double bytes, char *out, size_t outlen)
{
	/* The one size formatter (common/sizes.c), on the nearest whole byte. */
	if (!isfinite(bytes) || bytes < 0.0 || bytes >= 1.8e19) {
		snprintf(out, outlen, "%g B", bytes);
		return;
	}
	nbw_size_label((uint64_t)llround(bytes), out, outlen);
}

/* ---- the document ------------------------------------------------------------------- */

static int make_dir(const char *path, char *err, size_t errlen)
{
	if (mkdir(path, 0755) == 0 || errno == EEXIST) {
		struct stat st;
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
			return 0;
		snprintf(err, errlen, "cannot create folder %s: %s", path,
			 errno == EEXIST ? "a file of that name exists" : strerror(errno));
		return -1;
	}
	snprintf(err, errlen, "cannot create folder %s: %s", path, strerror(errno));
	return -1;
}

static void page_free(struct page *pg)
{
	if (!pg)
		return;
	if (pg->mdf)
		fclose(pg->mdf);
	if (pg->htmlf)
		fclose(pg->htmlf);
	free(pg->md);
	free(pg->html);
	for (size_t i = 0; i < pg->nheads; i++) {
		free(pg->heads[i].text);
		free(pg->heads[i].id);
	}
	free(pg->heads);
	free(pg->stem);
	free(pg->title);
	free(pg);
}

/* A new page of \p r named \p stem (its files <stem>.md and <stem>.html). NULL: memory. */
static struct page *page_new(struct nbw_rdoc *r, const char *stem, const char *title)
{
	struct page **pp = realloc(r->pages, (r->npages + 1) * sizeof(*pp));
	if (!pp)
		return NULL;
	r->pages = pp;
	struct page *pg = calloc(1, sizeof(*pg));
	if (!pg || !(pg->stem = strdup(stem)) || !(pg->title = strdup(title)) ||
	    !(pg->mdf = open_memstream(&pg->md, &pg->md_len)) ||
	    !(pg->htmlf = open_memstream(&pg->html, &pg->html_len))) {
		page_free(pg);
		return NULL;
	}
	pp[r->npages++] = pg;
	return pg;
}

struct nbw_rdoc *nbw_rdoc_new(const char *dir, const char *title, char *err, size_t errlen)
{
	if (make_dir(dir, err, errlen))
		return NULL;
	char sub[4096];
	snprintf(sub, sizeof(sub), "%s/plots", dir);
	if (make_dir(sub, err, errlen))
		return NULL;
	snprintf(sub, sizeof(sub), "%s/tables", dir);
	if (make_dir(sub, err, errlen))
		return NULL;
	struct nbw_rdoc *r = calloc(1, sizeof(*r));
	if (!r || !(r->dir = strdup(dir)) || !(r->title = strdup(title ? title : "nodebw report")) ||
	    !(r->pg = page_new(r, "report", r->title))) {
		snprintf(err, errlen, "out of memory");
		nbw_rdoc_free(r);
		return NULL;
	}
	double limit = NBW_REPORT_PLOT_LIMIT_S;
	const char *env = getenv("NODEBW_PLOT_TIME_LIMIT");
	char *end;
	if (env && *env) {
		double v = strtod(env, &end);
		if (*end == '\0' && v > 0.0 && v < 1e6)
			limit = v;
	}
	r->plot_deadline = nbw_now() + limit;
	return r;
}

static void end_list(struct nbw_rdoc *r);
static void place(struct nbw_rdoc *r, const char *stem, const char *caption,
		  const char *no_image, bool have_script, bool again);

bool nbw_rdoc_page(struct nbw_rdoc *r, const char *stem, const char *title)
{
	end_list(r);
	if (!stem) {
		r->pg = r->pages[0];
		return true;
	}
	for (size_t i = 0; i < r->npages; i++)
		if (strcmp(r->pages[i]->stem, stem) == 0) {
			r->pg = r->pages[i];
			return true;
		}
	struct page *pg = page_new(r, stem, title ? title : stem);
	if (!pg)
		return false;
	r->pg = pg;
	return true;
}

void nbw_rdoc_link_page(struct nbw_rdoc *r, const char *stem, const char *text,
			const char *after)
{
	end_list(r);
	fputs("[", r->pg->mdf);
	md_text(r->pg->mdf, text, true);
	fprintf(r->pg->mdf, "](%s.md)", stem);
	if (after && *after) {
		fputc(' ', r->pg->mdf);
		md_text(r->pg->mdf, after, false);
	}
	fputs("\n\n", r->pg->mdf);
	fprintf(r->pg->htmlf, "<p class=\"more\"><a href=\"%s.html\">", stem);
	html_text(r->pg->htmlf, text);
	fputs("</a>", r->pg->htmlf);
	if (after && *after) {
		fputc(' ', r->pg->htmlf);
		html_text(r->pg->htmlf, after);
	}
	fputs("</p>\n", r->pg->htmlf);
}

void nbw_rdoc_grid_begin(struct nbw_rdoc *r)
{
	end_list(r);
	if (!r->grid)
		fputs("<div class=\"grid\">\n", r->pg->htmlf);
	r->grid = true;
}

void nbw_rdoc_grid_end(struct nbw_rdoc *r)
{
	if (r->grid)
		fputs("</div>\n", r->pg->htmlf);
	r->grid = false;
}

const char *nbw_rdoc_find_figure(const struct nbw_rdoc *r, const char *prefix,
				 const char *suffix)
{
	size_t np = strlen(prefix), ns = suffix ? strlen(suffix) : 0;
	for (size_t i = 0; i < r->nfigs; i++) {
		const char *s = r->figs[i].stem;
		size_t n = strlen(s);
		if (n >= np + ns && strncmp(s, prefix, np) == 0 &&
		    (!ns || strcmp(s + n - ns, suffix) == 0))
			return s;
	}
	return NULL;
}

bool nbw_rdoc_figure_again(struct nbw_rdoc *r, const char *stem)
{
	for (size_t i = 0; i < r->nfigs; i++)
		if (strcmp(r->figs[i].stem, stem) == 0) {
			const struct placed *pl = &r->figs[i];
			place(r, pl->stem, pl->caption, pl->no_image, pl->have_script, true);
			return true;
		}
	return false;
}

double nbw_rdoc_plot_time_left(const struct nbw_rdoc *r)
{
	return r->plot_deadline - nbw_now();
}

const char *nbw_rdoc_dir(const struct nbw_rdoc *r)
{
	return r->dir;
}

static void end_list(struct nbw_rdoc *r)
{
	if (!r->pg->in_list)
		return;
	fputs("\n", r->pg->mdf);
	fputs("</ul>\n", r->pg->htmlf);
	r->pg->in_list = false;
}

void nbw_rdoc_claim_name(struct nbw_rdoc *r, const char *kind, const char *want, char *out,
			 size_t outlen)
{
	char stem[128];
	size_t n = 0;
	for (const char *p = want; *p && n + 1 < sizeof(stem); p++) {
		char c = *p;
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '-' || c == '_' || (c == '.' && n > 0);
		stem[n++] = ok ? c : '-';
	}
	stem[n] = '\0';
	if (n == 0)
		snprintf(stem, sizeof(stem), "%s", kind);
	for (int k = 1;; k++) {
		char name[160];
		if (k == 1)
			snprintf(out, outlen, "%s", stem);
		else
			snprintf(out, outlen, "%s-%d", stem, k);
		snprintf(name, sizeof(name), "%s/%s", kind, out);
		bool used = false;
		for (size_t i = 0; i < r->nnames && !used; i++)
			used = strcmp(r->names[i], name) == 0;
		if (used)
			continue;
		char **nn = realloc(r->names, (r->nnames + 1) * sizeof(*nn));
		if (nn) {
			r->names = nn;
			if ((nn[r->nnames] = strdup(name)))
				r->nnames++;
		}
		return;
	}
}

void nbw_rdoc_heading(struct nbw_rdoc *r, int level, const char *text)
{
	end_list(r);
	if (level < 1)
		level = 1;
	if (level > 6)
		level = 6;
	char id[160];
	char slug[128];
	size_t n = 0;
	for (const char *p = text; *p && n + 1 < sizeof(slug); p++) {
		char c = *p;
		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
			slug[n++] = c;
		else if (n > 0 && slug[n - 1] != '-')
			slug[n++] = '-';
	}
	while (n > 0 && slug[n - 1] == '-')
		n--;
	slug[n] = '\0';
	nbw_rdoc_claim_name(r, "heading", n ? slug : "section", id, sizeof(id));

	fprintf(r->pg->mdf, "%.*s ", level, "######");
	md_text(r->pg->mdf, text, true);
	fputs("\n\n", r->pg->mdf);
	fprintf(r->pg->htmlf, "<h%d id=\"%s\">", level, id);
	html_text(r->pg->htmlf, text);
	fprintf(r->pg->htmlf, "</h%d>\n", level);

	struct heading *h = realloc(r->pg->heads, (r->pg->nheads + 1) * sizeof(*h));
	if (!h)
		return;
	r->pg->heads = h;
	h[r->pg->nheads].level = level;
	h[r->pg->nheads].text = strdup(text);
	h[r->pg->nheads].id = strdup(id);
	if (h[r->pg->nheads].text && h[r->pg->nheads].id) {
		r->pg->nheads++;
	} else {
		free(h[r->pg->nheads].text);
		free(h[r->pg->nheads].id);
	}
}

void nbw_rdoc_para(struct nbw_rdoc *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = vfmt(fmt, ap);
	va_end(ap);
	if (!s)
		return;
	end_list(r);
	md_text(r->pg->mdf, s, false);
	fputs("\n\n", r->pg->mdf);
	fputs("<p>", r->pg->htmlf);
	html_text(r->pg->htmlf, s);
	fputs("</p>\n", r->pg->htmlf);
	free(s);
}

void nbw_rdoc_verdict(struct nbw_rdoc *r, int kind, const char *text)
{
	end_list(r);
	fputs("**", r->pg->mdf);
	md_text(r->pg->mdf, text, true);
	fputs("**\n\n", r->pg->mdf);
	fprintf(r->pg->htmlf, "<p class=\"verdict %s\">",
		kind > 0 ? "pass" : kind == 0 ? "fail" : "none");
	html_text(r->pg->htmlf, text);
	fputs("</p>\n", r->pg->htmlf);
}

void nbw_rdoc_item(struct nbw_rdoc *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = vfmt(fmt, ap);
	va_end(ap);
	if (!s)
		return;
	if (!r->pg->in_list) {
		fputs("<ul>\n", r->pg->htmlf);
		r->pg->in_list = true;
	}
	fputs("- ", r->pg->mdf);
	md_text(r->pg->mdf, s, true);
	fputs("\n", r->pg->mdf);
	fputs("<li>", r->pg->htmlf);
	html_text(r->pg->htmlf, s);
	fputs("</li>\n", r->pg->htmlf);
	free(s);
}

void nbw_rdoc_figure_aside(struct nbw_rdoc *r)
{
	r->aside = true;
}

static void record(struct nbw_rdoc *r, const char *stem, const char *caption,
		   const char *no_image, bool have_script)
{
	for (size_t i = 0; i < r->nfigs; i++)
		if (strcmp(r->figs[i].stem, stem) == 0)
			return;
	struct placed *pl = realloc(r->figs, (r->nfigs + 1) * sizeof(*pl));
	if (!pl)
		return;
	r->figs = pl;
	pl[r->nfigs].stem = strdup(stem);
	pl[r->nfigs].caption = strdup(caption);
	pl[r->nfigs].no_image = no_image ? strdup(no_image) : NULL;
	pl[r->nfigs].have_script = have_script;
	if (pl[r->nfigs].stem && pl[r->nfigs].caption && (!no_image || pl[r->nfigs].no_image)) {
		r->nfigs++;
	} else {
		free(pl[r->nfigs].stem);
		free(pl[r->nfigs].caption);
		free(pl[r->nfigs].no_image);
	}
}

/* Figure \p stem on the current page; \p again: placed before (not counted twice). */
static void place(struct nbw_rdoc *r, const char *stem, const char *caption,
		  const char *no_image, bool have_script, bool again)
{
	end_list(r);
	if (!again)
		record(r, stem, caption, no_image, have_script);
	if (no_image) {
		if (!again && r->no_image++ == 0)
			snprintf(r->no_image_why, sizeof(r->no_image_why), "%s", no_image);
		char *s = NULL;
		int rc = have_script
				 ? asprintf(&s, "Figure \"%s\": no image (%s). The data and the "
						"gnuplot script are plots/%s.dat and plots/%s.gp; "
						"see doc/report.md to make the image.", caption,
					    no_image, stem, stem)
				 : asprintf(&s, "Figure \"%s\": no image (%s).", caption, no_image);
		if (rc < 0)
			return;
		md_text(r->pg->mdf, s, false);
		fputs("\n\n", r->pg->mdf);
		fputs("<p class=\"noimage\">", r->pg->htmlf);
		html_text(r->pg->htmlf, s);
		fputs("</p>\n", r->pg->htmlf);
		free(s);
		r->aside = false;
		return;
	}
	fputs("![", r->pg->mdf);
	md_text(r->pg->mdf, caption, true);
	fprintf(r->pg->mdf, "](plots/%s.svg)\n\n*Figure:* ", stem);
	md_text(r->pg->mdf, caption, true);
	fprintf(r->pg->mdf, " ([PNG](plots/%s.png), [data](plots/%s.dat), "
			"[gnuplot script](plots/%s.gp))\n\n", stem, stem, stem);

	/* A phone gets the figure drawn for its width where there is one (report/plot.c): its
	 * labels keep their size instead of shrinking with the picture. */
	char phone[4400];
	snprintf(phone, sizeof(phone), "%s/plots/%s.phone.svg", r->dir, stem);
	bool has_phone = access(phone, R_OK) == 0;
	fprintf(r->pg->htmlf, "<figure%s><a href=\"plots/%s.png\"><picture>",
		r->aside ? " class=\"aside\"" : "", stem);
	if (has_phone)
		fprintf(r->pg->htmlf, "<source media=\"(max-width: 40em)\" "
				      "srcset=\"plots/%s.phone.svg\">", stem);
	fprintf(r->pg->htmlf, "<img src=\"plots/%s.svg\" alt=\"", stem);
	r->aside = false;
	html_text(r->pg->htmlf, caption);
	fputs("\"></picture></a><figcaption>", r->pg->htmlf);
	html_text(r->pg->htmlf, caption);
	fprintf(r->pg->htmlf, " (<a href=\"plots/%s.png\">PNG</a>, <a href=\"plots/%s.dat\">data</a>,"
			  " <a href=\"plots/%s.gp\">gnuplot script</a>)</figcaption></figure>\n",
		stem, stem, stem);
}

void nbw_rdoc_figure(struct nbw_rdoc *r, const char *stem, const char *caption,
		     const char *no_image, bool have_script)
{
	place(r, stem, caption, no_image, have_script, false);
}

int nbw_rdoc_plot_failures(const struct nbw_rdoc *r, char *why, size_t whylen)
{
	if (why && whylen)
		snprintf(why, whylen, "%s", r->no_image_why);
	return r->no_image;
}

/* ---- tables ------------------------------------------------------------------------- */

struct nbw_rtable *nbw_rtable_new(const char *name, size_t ncols, const char *const *headers)
{
	struct nbw_rtable *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->ncols = ncols ? ncols : 1;
	t->name = strdup(name ? name : "table");
	t->headers = calloc(t->ncols, sizeof(*t->headers));
	if (!t->name || !t->headers) {
		t->bad = true;
		return t;
	}
	for (size_t i = 0; i < ncols; i++)
		if (headers && headers[i] && !(t->headers[i] = strdup(headers[i])))
			t->bad = true;
	return t;
}

void nbw_rtable_csv_names(struct nbw_rtable *t, const char *const *names)
{
	if (!t || t->bad || !names)
		return;
	if (!t->csv_names && !(t->csv_names = calloc(t->ncols, sizeof(*t->csv_names)))) {
		t->bad = true;
		return;
	}
	for (size_t i = 0; i < t->ncols; i++) {
		free(t->csv_names[i]);
		t->csv_names[i] = NULL;
		if (names[i] && !(t->csv_names[i] = strdup(names[i])))
			t->bad = true;
	}
}

/* Grow the three row-major arrays to \p cap rows. */
static bool grow(struct nbw_rtable *t, size_t cap)
{
	char **c = realloc(t->cells, cap * t->ncols * sizeof(*c));
	if (c)
		t->cells = c;
	char **v = c ? realloc(t->csv, cap * t->ncols * sizeof(*v)) : NULL;
	if (v)
		t->csv = v;
	bool *h = v ? realloc(t->has_csv, cap * t->ncols * sizeof(*h)) : NULL;
	if (h)
		t->has_csv = h;
	if (!h)
		return false;
	t->cap = cap;
	return true;
}

/* The index of the next cell of the current row (a new row when it is full), or -1. */
static ptrdiff_t next_slot(struct nbw_rtable *t)
{
	if (!t || t->bad)
		return -1;
	if (t->cur == t->ncols) /* a row longer than the header: start the next row */
		t->cur = 0;
	if (t->cur == 0) { /* a new row */
		if (t->nrows == t->cap && !grow(t, t->cap ? 2 * t->cap : 16)) {
			t->bad = true;
			return -1;
		}
		size_t at = t->nrows * t->ncols;
		memset(t->cells + at, 0, t->ncols * sizeof(*t->cells));
		memset(t->csv + at, 0, t->ncols * sizeof(*t->csv));
		memset(t->has_csv + at, 0, t->ncols * sizeof(*t->has_csv));
		t->nrows++;
	}
	return (ptrdiff_t)((t->nrows - 1) * t->ncols + t->cur++);
}

/* Put display text \p s (owned) and, when \p with_csv, CSV text \p csv (copied) in the next
 * cell. */
static void put_cell(struct nbw_rtable *t, char *s, bool with_csv, const char *csv)
{
	ptrdiff_t at = s ? next_slot(t) : -1;
	if (at < 0) {
		free(s);
		if (t && !s)
			t->bad = true;
		return;
	}
	t->cells[at] = s;
	t->has_csv[at] = with_csv;
	if (with_csv && csv && !(t->csv[at] = strdup(csv)))
		t->bad = true;
}

void nbw_rtable_cell(struct nbw_rtable *t, const char *fmt, ...)
{
	if (!t || t->bad)
		return;
	va_list ap;
	va_start(ap, fmt);
	char *s = vfmt(fmt, ap);
	va_end(ap);
	put_cell(t, s, false, NULL);
}

void nbw_rtable_cellv(struct nbw_rtable *t, double value, const char *fmt, ...)
{
	if (!t || t->bad)
		return;
	va_list ap;
	va_start(ap, fmt);
	char *s = vfmt(fmt, ap);
	va_end(ap);
	char v[40] = "";
	if (isfinite(value))
		snprintf(v, sizeof(v), "%.10g", value == 0 ? 0.0 : value); /* no "-0" */
	put_cell(t, s, true, v);
}

void nbw_rtable_cellc(struct nbw_rtable *t, const char *csv, const char *fmt, ...)
{
	if (!t || t->bad)
		return;
	va_list ap;
	va_start(ap, fmt);
	char *s = vfmt(fmt, ap);
	va_end(ap);
	put_cell(t, s, true, csv);
}

void nbw_rtable_end_row(struct nbw_rtable *t)
{
	if (!t || t->bad)
		return;
	if (t->cur == 0) { /* an empty row is still a row */
		if (next_slot(t) < 0)
			return;
		t->cur = 0;
	}
	t->cur = 0;
}

static void rtable_free(struct nbw_rtable *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nrows * t->ncols; i++) {
		free(t->cells[i]);
		free(t->csv[i]);
	}
	for (size_t i = 0; i < t->ncols; i++) {
		if (t->headers)
			free(t->headers[i]);
		if (t->csv_names)
			free(t->csv_names[i]);
	}
	free(t->headers);
	free(t->csv_names);
	free(t->cells);
	free(t->csv);
	free(t->has_csv);
	free(t->name);
	free(t);
}

static const char *cell(const struct nbw_rtable *t, size_t row, size_t col)
{
	const char *s = t->cells[row * t->ncols + col];
	return s ? s : "";
}

/* RFC 4180, control characters removed and formula-like text made inert
 * (include/nodebw/csvcell.h). */
static void csv_field(FILE *f, const char *s)
{
	nbw_csv_cell(f, s, false);
}

static bool numeric(const char *s)
{
	if (!*s)
		return true;
	char *end;
	strtod(s, &end);
	while (*end == ' ' || *end == '%')
		end++;
	return end != s && *end == '\0';
}

/* ---- the CSV view: machine column names, one value per cell -------------------------- */

/* A display cell split for the CSV file: the number (without '+', '%' or a unit) and the
 * note in parentheses after it, or not a number. */
struct csv_cell {
	char num[48];
	const char *note;   /* inside the parentheses, not terminated: note_len characters */
	size_t note_len;
	bool is_num, missing, pct;
};

static bool missing_marker(const char *s)
{
	static const char *const m[] = { "", "-", "n/a", "unknown", "?", "none", "nan",
					 "no link" };
	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++)
		if (strcasecmp(s, m[i]) == 0)
			return true;
	return false;
}

/* A unit written after a number in a display cell ("8 B", "1.5 x"); bytes and ratios only:
 * anything else makes the cell text. */
static bool plain_unit(const char *s, size_t n)
{
	return (n == 1 && (s[0] == 'B' || s[0] == 'x')) || (n == 5 && !strncmp(s, "bytes", 5));
}

static void split_cell(const char *s, struct csv_cell *c)
{
	memset(c, 0, sizeof(*c));
	while (*s == ' ')
		s++;
	size_t n = strlen(s);
	while (n && s[n - 1] == ' ')
		n--;
	char buf[512];
	snprintf(buf, sizeof(buf), "%.*s", (int)n, s);
	if (missing_marker(buf)) {
		c->missing = true;
		return;
	}
	const char *p = buf[0] == '+' ? buf + 1 : buf;
	if (!((*p >= '0' && *p <= '9') || *p == '.' || *p == '-'))
		return;
	char *end;
	double v = strtod(p, &end);
	if (end == p || !isfinite(v))
		return;
	const char *rest = end;
	while (*rest == ' ')
		rest++;
	if (*rest == '%') {
		c->pct = true;
		for (rest++; *rest == ' '; rest++)
			;
	}
	size_t u = strcspn(rest, " (");
	if (u && plain_unit(rest, u))
		for (rest += u; *rest == ' '; rest++)
			;
	if (*rest == '(' && buf[n - 1] == ')' && n >= 2) {
		c->note = s + (rest + 1 - buf);
		c->note_len = (size_t)(buf + n - 1 - (rest + 1));
	} else if (*rest) {
		return;
	}
	if (v == 0 && *p == '-') /* "-0.0" is 0 */
		p++;
	snprintf(c->num, sizeof(c->num), "%.*s", (int)(end - p), p);
	c->is_num = true;
}

/* The machine name of a display header: lower case, "|x|" -> abs_x, GB/s -> gbps,
 * % -> pct, n_1/2 -> n_half, -> -> to, other runs of non-alphanumerics -> '_'. */
static void derive_name(const char *h, size_t col, char *out, size_t outlen)
{
	static const struct { const char *from, *to; } map[] = {
		{ "(1e9 b/s)", " " }, { "gb/s", " gbps " }, { "b/s", " bps " }, { "%", " pct " },
		{ "n_1/2", " n_half " }, { "->", " to " }, { "&", " and " }, { "+-", " pm " },
		{ "#", " n " },
	};
	char low[256], tmp[512];
	size_t k = 0;
	for (const char *s = h ? h : ""; *s && k + 1 < sizeof(low); s++)
		low[k++] = (char)(*s >= 'A' && *s <= 'Z' ? *s - 'A' + 'a' : *s);
	low[k] = '\0';
	size_t o = 0;
	for (const char *s = low; *s && o + 12 < sizeof(tmp);) {
		bool hit = false;
		for (size_t i = 0; i < sizeof(map) / sizeof(map[0]) && !hit; i++) {
			size_t n = strlen(map[i].from);
			if (strncmp(s, map[i].from, n) == 0) {
				o += (size_t)snprintf(tmp + o, sizeof(tmp) - o, "%s", map[i].to);
				s += n;
				hit = true;
			}
		}
		if (hit)
			continue;
		if (*s == '|' && strchr(s + 1, '|')) { /* |x| */
			o += (size_t)snprintf(tmp + o, sizeof(tmp) - o, " abs ");
			const char *close = strchr(s + 1, '|');
			size_t n = (size_t)(close - s - 1);
			if (o + n + 2 < sizeof(tmp)) {
				memcpy(tmp + o, s + 1, n);
				o += n;
			}
			tmp[o++] = ' ';
			s = close + 1;
			continue;
		}
		tmp[o++] = *s++;
	}
	tmp[o] = '\0';
	size_t w = 0;
	bool sep = false;
	for (const char *s = tmp; *s && w + 3 < outlen; s++) {
		if (isalnum_c(*s)) {
			if (sep && w)
				out[w++] = '_';
			if (w == 0 && *s >= '0' && *s <= '9') {
				out[w++] = 'c';
				out[w++] = '_';
			}
			out[w++] = *s;
			sep = false;
		} else {
			sep = true;
		}
	}
	out[w] = '\0';
	if (!w)
		snprintf(out, outlen, "column_%zu", col + 1);
}

/* One column's CSV view: its CSV columns (a number and its note, or the parts the caller
 * named) and whether its cells are numbers. */
#define CSV_PARTS 4
struct csv_col {
	char name[CSV_PARTS][96];
	size_t parts;       /* CSV columns it becomes: 1, or 2 for value and note, or as named */
	bool numeric;
};

static const char *csv_text(const struct nbw_rtable *t, size_t row, size_t col)
{
	const char *v = t->csv[row * t->ncols + col];
	return v ? v : "";
}

/* "a,b,c" into the names of \p cc; the number of names. */
static size_t given_names(const char *given, struct csv_col *cc)
{
	size_t k = 0;
	for (const char *s = given; *s && k < CSV_PARTS; k++) {
		size_t n = strcspn(s, ",");
		snprintf(cc->name[k], sizeof(cc->name[k]), "%.*s", (int)n, s);
		s += n + (s[n] == ',');
	}
	return k;
}

/* A name that ends in a unit: the column holds numbers. */
static bool unit_name(const char *name)
{
	static const char *const units[] = { "_gbps", "_pct", "_us", "_s", "_bytes" };
	size_t n = strlen(name);
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		size_t k = strlen(units[i]);
		if (n > k && strcmp(name + n - k, units[i]) == 0)
			return true;
	}
	return false;
}

static void plan_column(const struct nbw_rtable *t, size_t c, struct csv_col *cc)
{
	memset(cc, 0, sizeof(*cc));
	bool any = false, all = true, pct = false, notes = false, some_mark = false;
	for (size_t i = 0; i < t->nrows; i++) {
		struct csv_cell x;
		bool own = t->has_csv[i * t->ncols + c];
		split_cell(own ? csv_text(t, i, c) : cell(t, i, c), &x);
		any = any || x.is_num;
		all = all && (x.is_num || x.missing);
		some_mark = some_mark || (x.missing && strcmp(cell(t, i, c), "-") == 0);
		pct = pct || x.pct;
		notes = notes || (!own && x.is_num && x.note_len);
	}
	const char *given = t->csv_names ? t->csv_names[c] : NULL;
	if (given && strcmp(given, "-") == 0)
		return; /* shown only: the value is in another column */
	cc->parts = given && *given ? given_names(given, cc) : 0;
	char derived[96];
	derive_name(t->headers[c], c, derived, sizeof(derived));
	/* Numbers (and gaps), or only gaps: "-" everywhere, or any gap mark under a name
	 * with a unit ("no link" under theoretical GB/s); "n/a" or "none" alone is text. */
	cc->numeric = all && (any || some_mark || unit_name(cc->parts ? cc->name[0] : derived));
	if (!cc->parts) {
		snprintf(cc->name[0], sizeof(cc->name[0]), "%s", derived);
		if (cc->numeric && pct && !strstr(cc->name[0], "pct")) {
			size_t n = strlen(cc->name[0]);
			snprintf(cc->name[0] + n, sizeof(cc->name[0]) - n, "_pct");
		}
		cc->parts = 1;
	}
	if (cc->parts == 1 && cc->numeric && notes) {
		snprintf(cc->name[1], sizeof(cc->name[1]), "%.90s_note", cc->name[0]);
		cc->parts = 2;
	}
}

/* Names made unique: a repeat gets _2, _3, ... */
static void unique_names(struct csv_col *cc, size_t n)
{
	for (size_t i = 0; i < n * CSV_PARTS; i++) {
		if (i % CSV_PARTS >= cc[i / CSV_PARTS].parts)
			continue;
		char *name = cc[i / CSV_PARTS].name[i % CSV_PARTS], base[96];
		snprintf(base, sizeof(base), "%s", name);
		for (int k = 2; k < 1000; k++) {
			bool dup = false;
			for (size_t j = 0; j < i && !dup; j++)
				dup = j % CSV_PARTS < cc[j / CSV_PARTS].parts &&
				      !strcmp(name, cc[j / CSV_PARTS].name[j % CSV_PARTS]);
			if (!dup)
				break;
			snprintf(name, sizeof(cc->name[0]), "%.80s_%d", base, k);
		}
	}
}

/* One CSV field of a cell: the number alone in a numeric column, else the text. */
static void csv_value(FILE *f, const char *s, bool numeric)
{
	struct csv_cell x;
	split_cell(s, &x);
	csv_field(f, !numeric ? s : x.is_num ? x.num : "");
}

/* One part of a cell the caller split: a number alone, a missing mark empty, else text. */
static void csv_part(FILE *f, const char *s)
{
	struct csv_cell x;
	split_cell(s, &x);
	csv_field(f, x.is_num ? x.num : x.missing ? "" : s);
}

static void csv_row_cell(FILE *f, const struct nbw_rtable *t, size_t i, size_t c,
			 const struct csv_col *cc)
{
	bool own = t->has_csv[i * t->ncols + c];
	const char *s = own ? csv_text(t, i, c) : cell(t, i, c);
	if (own && cc->parts > 1) { /* "a,b,c": one part per CSV column */
		for (size_t k = 0; k < cc->parts; k++) {
			size_t n = strcspn(s, ",");
			char part[256];
			snprintf(part, sizeof(part), "%.*s", (int)n, s);
			if (k)
				fputc(',', f);
			csv_part(f, part);
			s += n + (s[n] == ',');
		}
		return;
	}
	if (!cc->parts)
		return;
	struct csv_cell x;
	split_cell(s, &x);
	if (cc->parts > 1 && !cc->numeric)
		csv_part(f, s);
	else
		csv_value(f, s, cc->numeric);
	for (size_t k = 1; k < cc->parts; k++) {
		char note[512] = "";
		if (k == 1 && !own && x.is_num && x.note_len)
			snprintf(note, sizeof(note), "%.*s", (int)x.note_len, x.note);
		fputc(',', f);
		csv_field(f, note);
	}
}

static int write_csv(const struct nbw_rdoc *r, const struct nbw_rtable *t, const char *stem,
		     char *err, size_t errlen)
{
	struct csv_col *cc = calloc(t->ncols, sizeof(*cc));
	char *buf = NULL;
	size_t len = 0;
	FILE *f = cc ? open_memstream(&buf, &len) : NULL;
	if (!f) {
		free(cc);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t c = 0; c < t->ncols; c++)
		plan_column(t, c, &cc[c]);
	unique_names(cc, t->ncols);
	bool first = true;
	for (size_t c = 0; c < t->ncols; c++)
		for (size_t k = 0; k < cc[c].parts; k++) {
			fprintf(f, "%s%s", first ? "" : ",", cc[c].name[k]);
			first = false;
		}
	fputc('\n', f);
	for (size_t i = 0; i < t->nrows; i++) {
		first = true;
		for (size_t c = 0; c < t->ncols; c++) {
			if (!cc[c].parts)
				continue;
			if (!first)
				fputc(',', f);
			first = false;
			csv_row_cell(f, t, i, c, &cc[c]);
		}
		fputc('\n', f);
	}
	fclose(f);
	free(cc);
	char path[4096];
	snprintf(path, sizeof(path), "%s/tables/%s.csv", r->dir, stem);
	int rc = nbw_write_atomic(path, buf, len, err, errlen);
	free(buf);
	return rc;
}

/* Characters of a cell as a reader sees them (UTF-8 continuation bytes not counted). */
static size_t text_width(const char *s)
{
	size_t n = 0;
	for (; s && *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* The HTML of a table: inside a box of its own that scrolls sideways when the table is
 * wider than the page. Cells stay on one line, except in the columns of long text, which
 * wrap at a width that keeps their longest cell to about NBW_RDOC_ROW_LINES lines. */
static void table_html(struct nbw_rdoc *r, const struct nbw_rtable *t, const char *stem,
		       const char *caption, const bool *num)
{
	fputs("<div class=\"wide\"><table>\n<caption>", r->pg->htmlf);
	html_text(r->pg->htmlf, caption ? caption : t->name);
	fprintf(r->pg->htmlf, " (<a href=\"tables/%s.csv\">CSV</a>)</caption>\n<thead><tr>", stem);
	bool *long_text = calloc(t->ncols ? t->ncols : 1, sizeof(*long_text));
	for (size_t c = 0; c < t->ncols; c++) {
		size_t most = 0;
		for (size_t i = 0; i < t->nrows; i++) {
			size_t w = text_width(cell(t, i, c));
			most = w > most ? w : most;
		}
		if (long_text && most > NBW_RDOC_LONG_CELL) {
			/* About 1.5 characters per em of the table's font, after word wrapping
			 * and capitals. */
			size_t em = 2 * most / (3 * NBW_RDOC_ROW_LINES) + 2;
			long_text[c] = true;
			fprintf(r->pg->htmlf, "<th class=\"long\" style=\"min-width:%zuem\">",
				em < 14 ? 14 : em > 60 ? 60 : em);
		} else {
			fputs("<th>", r->pg->htmlf);
		}
		html_text(r->pg->htmlf, t->headers[c] ? t->headers[c] : "");
		fputs("</th>", r->pg->htmlf);
	}
	fputs("</tr></thead>\n<tbody>\n", r->pg->htmlf);
	for (size_t i = 0; i < t->nrows; i++) {
		fputs("<tr>", r->pg->htmlf);
		for (size_t c = 0; c < t->ncols; c++) {
			const char *td = num && num[c] ? "<td class=\"num\">"
					 : long_text && long_text[c] ? "<td class=\"long\">" : "<td>";
			fputs(td, r->pg->htmlf);
			html_text(r->pg->htmlf, cell(t, i, c));
			fputs("</td>", r->pg->htmlf);
		}
		fputs("</tr>\n", r->pg->htmlf);
	}
	fputs("</tbody>\n</table></div>\n", r->pg->htmlf);
	free(long_text);
}

void nbw_rdoc_table(struct nbw_rdoc *r, struct nbw_rtable *t, const char *caption)
{
	if (!t)
		return;
	end_list(r);
	if (t->bad) {
		nbw_rdoc_para(r, "Table \"%s\" could not be built (out of memory).",
			      caption ? caption : t->name);
		rtable_free(t);
		return;
	}
	char stem[160];
	nbw_rdoc_claim_name(r, "table", t->name, stem, sizeof(stem));
	char e[512];
	if (write_csv(r, t, stem, e, sizeof(e)) && !r->err[0])
		snprintf(r->err, sizeof(r->err), "%s", e);

	bool *num = calloc(t->ncols, sizeof(*num));
	for (size_t c = 0; num && c < t->ncols; c++) {
		num[c] = t->nrows > 0;
		for (size_t i = 0; i < t->nrows && num[c]; i++)
			num[c] = numeric(cell(t, i, c));
	}

	/* Markdown: caption line, then a pipe table. */
	fputs("**Table:** ", r->pg->mdf);
	md_text(r->pg->mdf, caption ? caption : t->name, true);
	fprintf(r->pg->mdf, " ([CSV](tables/%s.csv))\n\n|", stem);
	for (size_t c = 0; c < t->ncols; c++) {
		fputc(' ', r->pg->mdf);
		md_text(r->pg->mdf, t->headers[c] ? t->headers[c] : "", true);
		fputs(" |", r->pg->mdf);
	}
	fputs("\n|", r->pg->mdf);
	for (size_t c = 0; c < t->ncols; c++)
		fputs(num && num[c] ? "---:|" : "---|", r->pg->mdf);
	fputc('\n', r->pg->mdf);
	for (size_t i = 0; i < t->nrows; i++) {
		fputc('|', r->pg->mdf);
		for (size_t c = 0; c < t->ncols; c++) {
			fputc(' ', r->pg->mdf);
			md_text(r->pg->mdf, cell(t, i, c), true);
			fputs(" |", r->pg->mdf);
		}
		fputc('\n', r->pg->mdf);
	}
	fputc('\n', r->pg->mdf);

	table_html(r, t, stem, caption, num);
	free(num);
	rtable_free(t);
}

/* ---- writing ------------------------------------------------------------------------ */

/* Wide tables scroll in their own box (div.wide), never the page; cells stay on one line
 * except the columns of long text (td.long); a figure.aside floats beside the text after
 * it on a wide window and stands above it on a narrow one. */
static const char css[] =
	"body{font-family:system-ui,sans-serif;max-width:90em;margin:1.5em auto;padding:0 1em;"
	"line-height:1.45;color:#222}\n"
	"p,li{max-width:62em}\n"
	"h1,h2,h3{line-height:1.2}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;"
	"margin-top:2em;clear:both}\n"
	"div.wide{overflow-x:auto;max-width:100%;margin:1em 0;clear:both}\n"
	"table{border-collapse:collapse;font-size:.88em;line-height:1.3}\n"
	"caption{text-align:left;font-weight:600;padding:.3em 0;white-space:normal}\n"
	"th,td{border:1px solid #ccc;padding:.15em .5em;text-align:left;vertical-align:top}\n"
	"td{white-space:nowrap}td.long{white-space:normal}\n"
	"th{background:#f2f2f2}td.num{text-align:right;font-variant-numeric:tabular-nums}\n"
	"tbody tr:nth-child(even){background:#fafafa}\n"
	"figure{margin:1.5em 0}figure img{max-width:min(100%,56em);height:auto;border:1px solid #eee}\n"
	"div.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,30em),1fr));"
	"gap:0 1.5em}div.grid figure{margin:.5em 0}\n"
	"div.wide th:first-child,div.wide td:first-child{position:sticky;left:0;z-index:1;"
	"background:#fff;box-shadow:1px 0 0 #ccc}\n"
	"div.wide th:first-child{background:#f2f2f2}\n"
	"div.wide tbody tr:nth-child(even) td:first-child{background:#fafafa}\n"
	"p.more{font-style:italic}p.back{margin:.2em 0}\n"
	"p.verdict{font-weight:600;padding:.5em .8em;border-left:6px solid #888;"
	"background:#f4f4f4}p.verdict.pass{border-color:#1a7f37;background:#e9f6ec}"
	"p.verdict.fail{border-color:#c62828;background:#fdecea}\n"
	"@media (max-width:40em){body{margin:.5em auto;padding:0 .5em}"
	"h1{font-size:1.5em}figure{margin:1em 0}h2{margin-top:1.2em}}\n"
	"figure.aside{float:right;width:44%;margin:0 0 1em 1.5em}\n"
	"@media (max-width:70em){figure.aside{float:none;width:auto;margin:1em 0}}\n"
	"figcaption{font-size:.92em;color:#444}\n"
	"p.noimage{background:#fff6e0;border-left:4px solid #e0a000;padding:.4em .8em}\n"
	"nav ul{display:flex;flex-wrap:wrap;gap:.2em 1.5em;list-style:none;padding:0;"
	"margin:.3em 0}\n"
	"footer{margin-top:3em;font-size:.85em;color:#666;clear:both}\n"
	"@media (max-width:40em){nav ul{flex-wrap:nowrap;overflow-x:auto;white-space:nowrap;"
	"padding-bottom:.3em}}\n";

/* The page's contents: its level-2 headings (the main page also names the appendix
 * pages); on an appendix page, the way back to the main page. */
static void page_nav(const struct nbw_rdoc *r, const struct page *pg, FILE *f)
{
	bool main_page = pg == r->pages[0];
	if (!main_page) {
		fputs("<p class=\"back\"><a href=\"report.html\">&larr; the report</a></p>\n", f);
	}
	size_t n2 = 0;
	for (size_t i = 0; i < pg->nheads; i++)
		n2 += pg->heads[i].level == 2;
	if (n2 + (main_page ? r->npages - 1 : 0) <= 1)
		return;
	fputs("<nav><strong>Contents</strong>\n<ul>\n", f);
	for (size_t i = 0; i < pg->nheads; i++) {
		if (pg->heads[i].level != 2)
			continue;
		fprintf(f, "<li><a href=\"#%s\">", pg->heads[i].id);
		html_text(f, pg->heads[i].text);
		fputs("</a></li>\n", f);
	}
	for (size_t i = 1; main_page && i < r->npages; i++) {
		fprintf(f, "<li class=\"page\"><a href=\"%s.html\">", r->pages[i]->stem);
		html_text(f, r->pages[i]->title);
		fputs("</a></li>\n", f);
	}
	fputs("</ul>\n</nav>\n", f);
}

static int write_page(const struct nbw_rdoc *r, struct page *pg, char *err, size_t errlen)
{
	bool main_page = pg == r->pages[0];
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	fputs("# ", f);
	md_text(f, pg->title, true);
	fputs("\n\n", f);
	if (!main_page)
		fputs("[Back to the report](report.md)\n\n", f);
	for (size_t i = 1; main_page && i < r->npages; i++) {
		fprintf(f, "%s[", i == 1 ? "In detail: " : ", ");
		md_text(f, r->pages[i]->title, true);
		fprintf(f, "](%s.md)%s", r->pages[i]->stem, i + 1 == r->npages ? "\n\n" : "");
	}
	fwrite(pg->md, 1, pg->md_len, f);
	fprintf(f, "---\n\nWritten by nodebw %s. Bandwidth in GB/s = 1e9 bytes per second; "
		   "sizes in bytes (kB, MB, GB are powers of 1000).\n", NBW_VERSION);
	fclose(f);
	char path[4200];
	snprintf(path, sizeof(path), "%s/%s.md", r->dir, pg->stem);
	int rc = nbw_write_atomic(path, buf, len, err, errlen);
	free(buf);
	if (rc)
		return rc;

	buf = NULL;
	len = 0;
	if (!(f = open_memstream(&buf, &len))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<title>", f);
	html_text(f, pg->title);
	fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>", css);
	html_text(f, pg->title);
	fputs("</h1>\n", f);
	page_nav(r, pg, f);
	fwrite(pg->html, 1, pg->html_len, f);
	fprintf(f, "<footer>Written by nodebw %s. Bandwidth in GB/s = 1e9 bytes per second; "
		   "sizes in bytes (kB, MB, GB are powers of 1000).</footer>\n</body>\n</html>\n",
		NBW_VERSION);
	fclose(f);
	snprintf(path, sizeof(path), "%s/%s.html", r->dir, pg->stem);
	rc = nbw_write_atomic(path, buf, len, err, errlen);
	free(buf);
	return rc;
}

int nbw_rdoc_write(struct nbw_rdoc *r, char *err, size_t errlen)
{
	nbw_rdoc_grid_end(r);
	for (size_t i = 0; i < r->npages; i++) {
		r->pg = r->pages[i];
		end_list(r);
		if (fflush(r->pg->mdf) || fflush(r->pg->htmlf) || !r->pg->md || !r->pg->html) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
	}
	if (r->err[0]) {
		snprintf(err, errlen, "%s", r->err);
		return -1;
	}
	/* The appendix pages first: report.html, written last, never links to a page that
	 * is not there. */
	for (size_t i = r->npages; i-- > 0;)
		if (write_page(r, r->pages[i], err, errlen))
			return -1;
	return 0;
}

void nbw_rdoc_free(struct nbw_rdoc *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->npages; i++)
		page_free(r->pages[i]);
	free(r->pages);
	for (size_t i = 0; i < r->nfigs; i++) {
		free(r->figs[i].stem);
		free(r->figs[i].caption);
		free(r->figs[i].no_image);
	}
	free(r->figs);
	for (size_t i = 0; i < r->nnames; i++)
		free(r->names[i]);
	free(r->names);
	free(r->dir);
	free(r->title);
	free(r);
}

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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "nodebw/results.h"
#include "nodebw/version.h"
#include "nodebw/runner.h"
#include "nodebw/sizes.h"
#include "rdoc_priv.h"

struct heading {
	int level;
	char *text, *id;
};

struct nbw_rdoc {
	char *dir, *title;
	char *md, *html;       /* the bodies, growing in memory streams */
	size_t md_len, html_len;
	FILE *mdf, *htmlf;
	bool in_list;
	struct heading *heads;
	size_t nheads;
	char **names;          /* claimed "kind/stem" names */
	size_t nnames;
	char err[512];         /* the first failure (a table's CSV), reported by write */
	int no_image;          /* figures without an image, and the first reason */
	char no_image_why[600];
	double plot_deadline;  /* monotonic seconds: gnuplot's time for the whole report */
};

struct nbw_rtable {
	char *name;
	size_t ncols;
	char **headers;
	char **cells;          /* row-major, nrows * ncols, NULL = empty */
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
	    !(r->mdf = open_memstream(&r->md, &r->md_len)) ||
	    !(r->htmlf = open_memstream(&r->html, &r->html_len))) {
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
	if (!r->in_list)
		return;
	fputs("\n", r->mdf);
	fputs("</ul>\n", r->htmlf);
	r->in_list = false;
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

	fprintf(r->mdf, "%.*s ", level, "######");
	md_text(r->mdf, text, true);
	fputs("\n\n", r->mdf);
	fprintf(r->htmlf, "<h%d id=\"%s\">", level, id);
	html_text(r->htmlf, text);
	fprintf(r->htmlf, "</h%d>\n", level);

	struct heading *h = realloc(r->heads, (r->nheads + 1) * sizeof(*h));
	if (!h)
		return;
	r->heads = h;
	h[r->nheads].level = level;
	h[r->nheads].text = strdup(text);
	h[r->nheads].id = strdup(id);
	if (h[r->nheads].text && h[r->nheads].id) {
		r->nheads++;
	} else {
		free(h[r->nheads].text);
		free(h[r->nheads].id);
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
	md_text(r->mdf, s, false);
	fputs("\n\n", r->mdf);
	fputs("<p>", r->htmlf);
	html_text(r->htmlf, s);
	fputs("</p>\n", r->htmlf);
	free(s);
}

void nbw_rdoc_item(struct nbw_rdoc *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = vfmt(fmt, ap);
	va_end(ap);
	if (!s)
		return;
	if (!r->in_list) {
		fputs("<ul>\n", r->htmlf);
		r->in_list = true;
	}
	fputs("- ", r->mdf);
	md_text(r->mdf, s, true);
	fputs("\n", r->mdf);
	fputs("<li>", r->htmlf);
	html_text(r->htmlf, s);
	fputs("</li>\n", r->htmlf);
	free(s);
}

void nbw_rdoc_figure(struct nbw_rdoc *r, const char *stem, const char *caption,
		     const char *no_image, bool have_script)
{
	end_list(r);
	if (no_image) {
		if (r->no_image++ == 0)
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
		md_text(r->mdf, s, false);
		fputs("\n\n", r->mdf);
		fputs("<p class=\"noimage\">", r->htmlf);
		html_text(r->htmlf, s);
		fputs("</p>\n", r->htmlf);
		free(s);
		return;
	}
	fputs("![", r->mdf);
	md_text(r->mdf, caption, true);
	fprintf(r->mdf, "](plots/%s.svg)\n\n*Figure:* ", stem);
	md_text(r->mdf, caption, true);
	fprintf(r->mdf, " ([PNG](plots/%s.png), [data](plots/%s.dat), "
			"[gnuplot script](plots/%s.gp))\n\n", stem, stem, stem);

	fprintf(r->htmlf, "<figure><a href=\"plots/%s.png\"><img src=\"plots/%s.svg\" alt=\"",
		stem, stem);
	html_text(r->htmlf, caption);
	fputs("\"></a><figcaption>", r->htmlf);
	html_text(r->htmlf, caption);
	fprintf(r->htmlf, " (<a href=\"plots/%s.png\">PNG</a>, <a href=\"plots/%s.dat\">data</a>,"
			  " <a href=\"plots/%s.gp\">gnuplot script</a>)</figcaption></figure>\n",
		stem, stem, stem);
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

static char **row_slot(struct nbw_rtable *t)
{
	if (t->cur == 0) { /* a new row */
		if (t->nrows == t->cap) {
			size_t cap = t->cap ? 2 * t->cap : 16;
			char **c = realloc(t->cells, cap * t->ncols * sizeof(*c));
			if (!c)
				return NULL;
			t->cells = c;
			t->cap = cap;
		}
		memset(t->cells + t->nrows * t->ncols, 0, t->ncols * sizeof(*t->cells));
		t->nrows++;
	}
	return t->cells + (t->nrows - 1) * t->ncols;
}

void nbw_rtable_cell(struct nbw_rtable *t, const char *fmt, ...)
{
	if (!t || t->bad)
		return;
	if (t->cur == t->ncols) /* a row longer than the header: start the next row */
		t->cur = 0;
	char **row = row_slot(t);
	if (!row) {
		t->bad = true;
		return;
	}
	va_list ap;
	va_start(ap, fmt);
	char *s = vfmt(fmt, ap);
	va_end(ap);
	if (!s) {
		t->bad = true;
		return;
	}
	row[t->cur++] = s;
}

void nbw_rtable_end_row(struct nbw_rtable *t)
{
	if (!t || t->bad)
		return;
	if (t->cur == 0 && !row_slot(t)) /* an empty row is still a row */
		t->bad = true;
	t->cur = 0;
}

static void rtable_free(struct nbw_rtable *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	if (t->headers)
		for (size_t i = 0; i < t->ncols; i++)
			free(t->headers[i]);
	free(t->headers);
	free(t->cells);
	free(t->name);
	free(t);
}

static const char *cell(const struct nbw_rtable *t, size_t row, size_t col)
{
	const char *s = t->cells[row * t->ncols + col];
	return s ? s : "";
}

/* RFC 4180: quoted when the field holds a comma, a quote, a line break or outer spaces;
 * a quote inside is written twice. */
static void csv_field(FILE *f, const char *s)
{
	size_t n = strlen(s);
	bool quote = strpbrk(s, ",\"\r\n") || (n && (s[0] == ' ' || s[n - 1] == ' '));
	if (!quote) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
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

static int write_csv(const struct nbw_rdoc *r, const struct nbw_rtable *t, const char *stem,
		     char *err, size_t errlen)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t c = 0; c < t->ncols; c++) {
		if (c)
			fputc(',', f);
		csv_field(f, t->headers[c] ? t->headers[c] : "");
	}
	fputc('\n', f);
	for (size_t i = 0; i < t->nrows; i++) {
		for (size_t c = 0; c < t->ncols; c++) {
			if (c)
				fputc(',', f);
			csv_field(f, cell(t, i, c));
		}
		fputc('\n', f);
	}
	fclose(f);
	char path[4096];
	snprintf(path, sizeof(path), "%s/tables/%s.csv", r->dir, stem);
	int rc = nbw_write_atomic(path, buf, len, err, errlen);
	free(buf);
	return rc;
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
	fputs("**Table:** ", r->mdf);
	md_text(r->mdf, caption ? caption : t->name, true);
	fprintf(r->mdf, " ([CSV](tables/%s.csv))\n\n|", stem);
	for (size_t c = 0; c < t->ncols; c++) {
		fputc(' ', r->mdf);
		md_text(r->mdf, t->headers[c] ? t->headers[c] : "", true);
		fputs(" |", r->mdf);
	}
	fputs("\n|", r->mdf);
	for (size_t c = 0; c < t->ncols; c++)
		fputs(num && num[c] ? "---:|" : "---|", r->mdf);
	fputc('\n', r->mdf);
	for (size_t i = 0; i < t->nrows; i++) {
		fputc('|', r->mdf);
		for (size_t c = 0; c < t->ncols; c++) {
			fputc(' ', r->mdf);
			md_text(r->mdf, cell(t, i, c), true);
			fputs(" |", r->mdf);
		}
		fputc('\n', r->mdf);
	}
	fputc('\n', r->mdf);

	/* HTML */
	fputs("<table>\n<caption>", r->htmlf);
	html_text(r->htmlf, caption ? caption : t->name);
	fprintf(r->htmlf, " (<a href=\"tables/%s.csv\">CSV</a>)</caption>\n<thead><tr>", stem);
	for (size_t c = 0; c < t->ncols; c++) {
		fputs("<th>", r->htmlf);
		html_text(r->htmlf, t->headers[c] ? t->headers[c] : "");
		fputs("</th>", r->htmlf);
	}
	fputs("</tr></thead>\n<tbody>\n", r->htmlf);
	for (size_t i = 0; i < t->nrows; i++) {
		fputs("<tr>", r->htmlf);
		for (size_t c = 0; c < t->ncols; c++) {
			fputs(num && num[c] ? "<td class=\"num\">" : "<td>", r->htmlf);
			html_text(r->htmlf, cell(t, i, c));
			fputs("</td>", r->htmlf);
		}
		fputs("</tr>\n", r->htmlf);
	}
	fputs("</tbody>\n</table>\n", r->htmlf);
	free(num);
	rtable_free(t);
}

/* ---- writing ------------------------------------------------------------------------ */

static const char css[] =
	"body{font-family:system-ui,sans-serif;max-width:70em;margin:2em auto;padding:0 1em;"
	"line-height:1.45;color:#222}\n"
	"h1,h2,h3{line-height:1.2}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;"
	"margin-top:2em}\n"
	"table{border-collapse:collapse;margin:1em 0;font-size:.92em}\n"
	"caption{text-align:left;font-weight:600;padding:.3em 0}\n"
	"th,td{border:1px solid #ccc;padding:.25em .6em;text-align:left;vertical-align:top}\n"
	"th{background:#f2f2f2}td.num{text-align:right;font-variant-numeric:tabular-nums}\n"
	"tbody tr:nth-child(even){background:#fafafa}\n"
	"figure{margin:1.5em 0}figure img{max-width:100%;height:auto;border:1px solid #eee}\n"
	"figcaption{font-size:.92em;color:#444}\n"
	"p.noimage{background:#fff6e0;border-left:4px solid #e0a000;padding:.4em .8em}\n"
	"nav ul{columns:2}footer{margin-top:3em;font-size:.85em;color:#666}\n";

int nbw_rdoc_write(struct nbw_rdoc *r, char *err, size_t errlen)
{
	end_list(r);
	if (fflush(r->mdf) || fflush(r->htmlf) || !r->md || !r->html) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (r->err[0]) {
		snprintf(err, errlen, "%s", r->err);
		return -1;
	}
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	fputs("# ", f);
	md_text(f, r->title, true);
	fputs("\n\n", f);
	fwrite(r->md, 1, r->md_len, f);
	fprintf(f, "---\n\nWritten by nodebw %s. Bandwidth in GB/s = 1e9 bytes per second; "
		   "sizes in bytes (kB, MB, GB are powers of 1000).\n", NBW_VERSION);
	fclose(f);
	char path[4096];
	snprintf(path, sizeof(path), "%s/report.md", r->dir);
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
	html_text(f, r->title);
	fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>", css);
	html_text(f, r->title);
	fputs("</h1>\n", f);
	size_t n2 = 0;
	for (size_t i = 0; i < r->nheads; i++)
		n2 += r->heads[i].level == 2;
	if (n2 > 1) {
		fputs("<nav><strong>Contents</strong>\n<ul>\n", f);
		for (size_t i = 0; i < r->nheads; i++) {
			if (r->heads[i].level != 2)
				continue;
			fprintf(f, "<li><a href=\"#%s\">", r->heads[i].id);
			html_text(f, r->heads[i].text);
			fputs("</a></li>\n", f);
		}
		fputs("</ul>\n</nav>\n", f);
	}
	fwrite(r->html, 1, r->html_len, f);
	fprintf(f, "<footer>Written by nodebw %s. Bandwidth in GB/s = 1e9 bytes per second; "
		   "sizes in bytes (kB, MB, GB are powers of 1000).</footer>\n</body>\n</html>\n",
		NBW_VERSION);
	fclose(f);
	snprintf(path, sizeof(path), "%s/report.html", r->dir);
	rc = nbw_write_atomic(path, buf, len, err, errlen);
	free(buf);
	return rc;
}

void nbw_rdoc_free(struct nbw_rdoc *r)
{
	if (!r)
		return;
	if (r->mdf)
		fclose(r->mdf);
	if (r->htmlf)
		fclose(r->htmlf);
	free(r->md);
	free(r->html);
	for (size_t i = 0; i < r->nheads; i++) {
		free(r->heads[i].text);
		free(r->heads[i].id);
	}
	free(r->heads);
	for (size_t i = 0; i < r->nnames; i++)
		free(r->names[i]);
	free(r->names);
	free(r->dir);
	free(r->title);
	free(r);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Heat maps: a device x device matrix as a gnuplot image with the value written in every
 * cell. plots/<name>.dat holds one line per cell, "column row value "label"", a blank line
 * after each row (gnuplot's grid layout for `with image`); a cell without a value is NaN,
 * drawn uncoloured over a grey background, its label "-". Rows are drawn top down (row 0
 * at the top), as in nvidia-smi topo -m. The script comes from the shared preamble, so the
 * same fmt/out variables make the PNG and the SVG.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodebw/report.h"
#include "rdoc_priv.h"

/* A label without double quotes (they delimit it in the data file). */
static void label(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++)
		fputc(*s == '"' || *s == '\n' || *s == '\r' ? ' ' : *s, f);
	fputc('"', f);
}

static size_t nrows(const struct nbw_heatmap *h)
{
	return h->rows ? h->rows : h->n;
}

static size_t ncols(const struct nbw_heatmap *h)
{
	return h->rows ? h->cols : h->n;
}

/* The label of row or column \p i (a device id, or the rectangular map's text). */
static void axis_label(const struct nbw_heatmap *h, bool row, size_t i, char *out, size_t len)
{
	if (h->rows)
		snprintf(out, len, "%s", (row ? h->row_labels : h->col_labels)[i]);
	else
		snprintf(out, len, "%d", h->ids[i]);
}

static char *data_text(const struct nbw_heatmap *h, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	if (!f)
		return NULL;
	fputs("# nodebw heat map: ", f);
	label(f, h->title);
	fputs("\n# column 1: column index (", f);
	label(f, h->xlabel);
	fputs("), column 2: row index (", f);
	label(f, h->ylabel);
	fputs("), column 3: value (", f);
	label(f, h->cblabel);
	fputs("; NaN = none), column 4: the cell's text\n", f);
	for (int axis = 0; axis < 2; axis++) {
		fputs(axis ? "# column index -> label:" : "# row index -> label:", f);
		for (size_t i = 0; i < (axis ? ncols(h) : nrows(h)); i++) {
			char l[256];
			axis_label(h, axis == 0, i, l, sizeof(l));
			fprintf(f, " %zu=", i);
			label(f, l);
		}
		fputc('\n', f);
	}
	const char *fmt = h->fmt ? h->fmt : "%.1f";
	size_t nc = ncols(h);
	for (size_t row = 0; row < nrows(h); row++) {
		for (size_t col = 0; col < nc; col++) {
			double v = h->value[row * nc + col];
			const char *t = h->text ? h->text[row * nc + col] : NULL;
			char num[64];
			if (isfinite(v))
				fprintf(f, "%zu %zu %.10g ", col, row, v);
			else
				fprintf(f, "%zu %zu NaN ", col, row);
			if (!t) {
				if (isfinite(v))
					snprintf(num, sizeof(num), fmt, v);
				else
					snprintf(num, sizeof(num), "-");
				t = num;
			}
			label(f, t);
			fputc('\n', f);
		}
		fputc('\n', f);
	}
	fclose(f);
	return buf;
}

static void tics(FILE *f, const char *axis, const struct nbw_heatmap *h)
{
	bool row = strcmp(axis, "ytics") == 0;
	fprintf(f, "set %s (", axis);
	for (size_t i = 0; i < (row ? nrows(h) : ncols(h)); i++) {
		char l[256];
		axis_label(h, row, i, l, sizeof(l));
		fputs(i ? ", " : "", f);
		nbw_gp_quote(f, l);
		fprintf(f, " %zu", i);
	}
	fputs(")\n", f);
}

static char *script_text(const struct nbw_heatmap *h, const char *stem, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	if (!f)
		return NULL;
	nbw_gp_preamble(f, stem, h->title,
			"one line per cell: column index, row index, value (NaN = none), "
			"\"label\"; a blank line after each row");
	fputs("set title ", f);
	nbw_gp_quote(f, h->title);
	fputs("\nset xlabel ", f);
	nbw_gp_quote(f, h->xlabel);
	fputs("\nset ylabel ", f);
	nbw_gp_quote(f, h->ylabel);
	fputs("\nset cblabel ", f);
	nbw_gp_quote(f, h->cblabel);
	fprintf(f, "\nset xrange [-0.5:%g]\nset yrange [%g:-0.5]\n", (double)ncols(h) - 0.5,
		(double)nrows(h) - 0.5);
	tics(f, "xtics", h);
	tics(f, "ytics", h);
	if (h->rows)
		fputs("set xtics rotate by 60 right font ',7'\nset tics scale 0\nunset key\n", f);
	else
		fputs("set tics scale 0\nset size ratio -1\nunset key\n", f);
	char lo[32] = "*", hi[32] = "*";
	if (isfinite(h->cbmin))
		snprintf(lo, sizeof(lo), "%.10g", h->cbmin);
	if (isfinite(h->cbmax))
		snprintf(hi, sizeof(hi), "%.10g", h->cbmax);
	fprintf(f, "set cbrange [%s:%s]\n", lo, hi);
	if (h->red_to_green)
		fputs("set palette defined (0 '#d73027', 0.5 '#fee08b', 1 '#66bd63')\n", f);
	else
		fputs("set palette defined (0 '#f7fbff', 0.5 '#9ecae1', 1 '#4292c6')\n", f);
	fputs("# cells without a value (NaN) are left uncoloured over this grey\n"
	      "set object 1 rectangle from graph 0, graph 0 to graph 1, graph 1 behind "
	      "fillcolor rgb '#e8e8e8' fillstyle solid noborder\n", f);
	size_t big = nrows(h) > ncols(h) ? nrows(h) : ncols(h);
	int font = big <= 8 ? 12 : big <= 12 ? 9 : big <= 16 ? 7 : 5;
	fprintf(f, "\nplot datafile using 1:2:3 with image, \\\n"
		   "\tdatafile using 1:2:4 with labels font ',%d'\n", font);
	fclose(f);
	return buf;
}

int nbw_rdoc_heatmap(struct nbw_rdoc *r, const struct nbw_heatmap *h, const char *caption)
{
	char stem[160];
	nbw_rdoc_claim_name(r, "plot", h->name ? h->name : "heatmap", stem, sizeof(stem));
	if (!caption)
		caption = h->title ? h->title : stem;
	size_t with_value = 0;
	for (size_t i = 0; h->value && i < nrows(h) * ncols(h); i++)
		with_value += isfinite(h->value[i]) != 0;
	bool shaped = h->rows ? h->cols > 0 && h->row_labels && h->col_labels : h->n >= 2 && h->ids;
	if (!shaped || with_value == 0) {
		nbw_rdoc_para(r, "Figure \"%s\": no data to plot%s.", caption,
			      !h->rows && h->n < 2 ? " (a heat map needs at least two devices)" : "");
		return -1;
	}
	size_t dlen = 0, slen = 0;
	char *data = data_text(h, &dlen);
	char *script = script_text(h, stem, &slen);
	int rc = nbw_rdoc_plot_files(r, stem, data, dlen, script, slen, caption);
	free(data);
	free(script);
	return rc;
}

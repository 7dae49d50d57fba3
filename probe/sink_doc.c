/* SPDX-License-Identifier: BSD-3-Clause */
/* The results-document sink (include/nodebw/sink.h). */
#include <stdlib.h>
#include <string.h>

#include "nodebw/results.h"
#include "nodebw/runner.h"
#include "nodebw/sink.h"

struct docsink {
	struct nbw_sink sink;      /* first: the sink is the struct */
	struct nbw_doc *doc;
	const char *outdir;
	unsigned errors;
	char why[NBW_REASON_LEN];
	double last;               /* when the document was last written */
	double took;               /* how long that took */
};

/* A checkpoint writes the whole document, which grows with every series (samples
 * included, tens of MB in --full): not more often than below, so a long run does not spend
 * its time rewriting it; the run writes it once more at the end. */
#define NBW_CHECKPOINT_S 5.0

static void d_backend(struct nbw_sink *s, const char *api, int ndev, const struct nbw_device *d)
{
	for (int i = 0; i < ndev; i++)
		nbw_doc_add_device(((struct docsink *)s)->doc, api, &d[i]);
}

static void d_measurement(struct nbw_sink *s, const struct nbw_series_info *si,
			  const struct nbw_measurement *m)
{
	(void)si;
	nbw_doc_add_measurement(((struct docsink *)s)->doc, m);
}

static void d_skip(struct nbw_sink *s, const char *api, const char *probe, const char *what,
		   const char *reason, bool by_design)
{
	(void)by_design; /* the document lists every skip alike */
	nbw_doc_add_skip(((struct docsink *)s)->doc, api, probe, what, reason);
}

static void d_checkpoint(struct nbw_sink *s)
{
	struct docsink *d = (struct docsink *)s;
	char err[NBW_REASON_LEN];
	/* At least NBW_CHECKPOINT_S apart, and twenty times as long as the last write took:
	 * writing never takes more than a twentieth of the run. */
	double wait = d->took * 20.0 > NBW_CHECKPOINT_S ? d->took * 20.0 : NBW_CHECKPOINT_S;
	if (!d->outdir || (d->last > 0.0 && nbw_now() - d->last < wait))
		return;
	double t0 = nbw_now();
	int rc = nbw_doc_write(d->doc, d->outdir, err, sizeof(err));
	d->last = nbw_now();
	d->took = d->last - t0;
	if (rc == 0)
		return;
	if (d->errors++ == 0)
		snprintf(d->why, sizeof(d->why), "%s", err);
}

struct nbw_sink *nbw_sink_doc(struct nbw_doc *doc, const char *outdir)
{
	struct docsink *d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->doc = doc;
	d->outdir = outdir;
	d->sink = (struct nbw_sink){ .backend = d_backend, .measurement = d_measurement,
				     .skip = d_skip, .checkpoint = d_checkpoint };
	return &d->sink;
}

unsigned nbw_sink_doc_errors(const struct nbw_sink *s, char *why, size_t len)
{
	const struct docsink *d = (const struct docsink *)s;
	snprintf(why, len, "%s", d->why);
	return d->errors;
}

void nbw_sink_doc_free(struct nbw_sink *s)
{
	free(s);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Plane-size sweep: the halo copies of the solver are 8 N^2 bytes, and at those sizes (tens
 * of KiB on host-plugin devices) one copy's time moves more from one process to the next
 * than between the repetitions of one process (on the 2-vCPU VM 12.8 KB took 0.57-1.13 us
 * in six processes, each within +-1 %). A single process's median is then one draw of
 * that. Each child is this executable running "probe" on the paths the models read, at the
 * plane sizes only, into a private folder; the parent merges them, each measurement tagged
 * with its process, and the calibration takes each size's fastest process. A caller may run
 * the processes in several calls (nodebw run: two before the solver, then one as each solver
 * round starts, so that they meet the machine at as many moments as the solver does).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nodebw/backends.h"
#include "nodebw/runner.h"
#include "nodebw/session.h"

/* The options of one process of the sweep (\p c->sizes.v allocated: free it): the paths the
 * models read at the plane sizes. 0, or -1 when out of memory. */
static int plane_opts(const struct nbw_probe_opts *o, const size_t *sizes, size_t nsizes,
		      int hidden_helpers, int nomp, struct nbw_probe_opts *out)
{
	struct nbw_probe_opts c = *o;
	c.napis = 1;
	snprintf(c.apis[0], sizeof(c.apis[0]), "omp");
	c.nprobes = 0;
	memset(c.modes, 0, sizeof(c.modes));
	c.modes[NBW_MODE_SYNC] = c.modes[NBW_MODE_ASYNC] = true;
	memset(c.hostmem, 0, sizeof(c.hostmem));
	c.hostmem[NBW_HOSTMEM_PINNED] = true; /* the solver stages its halos in pinned memory */
	c.threads[NBW_THREADS_1] = true;
	c.threads[NBW_THREADS_2] = nomp >= 2; /* dual and bidir: the contention terms */
	c.threads[NBW_THREADS_ALL] = false;
	c.ndevices = nomp >= 2 ? 2 : 1;
	c.devices[0] = 0;
	c.devices[1] = 1;
	c.hidden_helpers = hidden_helpers;
	c.hht_sweep = false;
	c.quiet = true;
	c.json = false;
	c.verbose = false;
	c.sizes_given = true;
	c.sizes.n = nsizes;
	c.sizes.v = calloc(nsizes, sizeof(*c.sizes.v));
	if (!c.sizes.v)
		return -1;
	for (size_t k = 0; k < nsizes; k++)
		c.sizes.v[k].bytes = sizes[k];
	*out = c;
	return 0;
}

size_t nbw_plane_sweep_count(const struct nbw_probe_opts *o, const size_t *sizes,
			     size_t nsizes, int omp_devices)
{
	struct nbw_probe_opts c;
	if (!nsizes || omp_devices < 1 || !nbw_backend_find("omp") ||
	    plane_opts(o, sizes, nsizes, -1, omp_devices, &c))
		return 0;
	size_t n = nbw_probe_child_count(&c);
	free(c.sizes.v);
	return n;
}

int nbw_plane_sweep(const struct nbw_probe_opts *o, const size_t *sizes, size_t nsizes,
		    int hidden_helpers, int first, int count, int processes, struct nbw_doc *doc,
		    const char *outdir, FILE *progress, struct nbw_run_status *st, char *err,
		    size_t errlen)
{
	const char *what = "plane-size sweep";
	if (!nsizes || processes < 1 || first < 1 || count < 1 || first > processes)
		return 0;
	if (first + count - 1 > processes)
		count = processes - first + 1;
	if (!nbw_backend_find("omp")) {
		nbw_doc_add_skip(doc, "omp", "*", what, "no OpenMP backend");
		st->skipped++;
		return 0;
	}
	int nomp = nbw_doc_api_devices(doc, "omp");
	if (nomp == 0)
		return 0;
	struct nbw_probe_opts c;
	if (plane_opts(o, sizes, nsizes, hidden_helpers, nomp, &c)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	json_t *done = nbw_doc_plane_sweep_children(doc, first == 1, processes, hidden_helpers);	int rc = 0;
	for (int p = first; p < first + count && !nbw_stop_requested; p++) {
		snprintf(c.output, sizeof(c.output), "%s/.planes-%d-XXXXXX", outdir, p);
		if (!mkdtemp(c.output)) {
			snprintf(err, errlen, "cannot create a folder in %s: %s", outdir,
				 strerror(errno));
			rc = -1;
			break;
		}
		if (progress) {
			fprintf(progress, "\nplane-size sweep: process %d of %d, %zu size%s\n", p,
				processes, nsizes, nsizes == 1 ? "" : "s");
			fflush(progress);
		}
		char **argv = nbw_cli_probe_argv(&c, "nodebw");
		int crc = argv ? nbw_run_child(argv) : -1;
		nbw_cli_argv_free(argv);
		char res[sizeof(c.output) + 16];
		snprintf(res, sizeof(res), "%s/results.json", c.output);
		if (!nbw_stop_requested || access(res, F_OK) == 0)
			nbw_merge_child(doc, c.output, "plane_sweep",
					json_pack("{s:i, s:i}", "process", p, "processes", processes),
					what, st);
		nbw_remove_results_dir(c.output);
		if (nbw_stop_requested) {
			st->interrupted = 1;
			nbw_doc_set(doc, "interrupted", json_true());
		} else if (crc != 0) {
			char why[NBW_REASON_LEN];
			snprintf(why, sizeof(why), "process %d of %d exited with status %d", p,
				 processes, crc);
			nbw_doc_add_skip(doc, "omp", "*", what, why);
			st->skipped++;
		}
		json_array_append_new(done, json_pack("{s:i, s:i}", "process", p,
						      "child_exit_status", crc));
		if (nbw_doc_write(doc, outdir, err, errlen)) {
			rc = -1;
			break;
		}
	}
	free(c.sizes.v);
	return rc;
}

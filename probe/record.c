/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A timed point becomes a measurement: what was between source and destination, what the
 * path could give (topology), how the bytes are counted (the kind table), the samples, the
 * verification and, for concurrent streams, the overlap against each stream alone.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"
#include "nodebw/runner.h"
#include "nodebw/stats.h"

#define DIR(s) ((s)->plan->kind->dir)
#define NSTREAMS(s) ((s)->plan->set.nstreams)
#define SRC(s, i) ((s)->plan->set.src[i])
#define DST(s, i) ((s)->plan->set.dst[i])

static void device_label(const struct nbw_exec *s, int dev, char *buf, size_t len)
{
	if (dev < 0)
		snprintf(buf, len, "host %s memory", nbw_hostmem_name(s->plan->mem));
	else
		snprintf(buf, len, "%s device %d [%s: %s]", s->ops->name, dev, s->devinfo[dev].kind,
			 s->devinfo[dev].memory);
}

static void describe(const struct nbw_exec *s, const struct nbw_point *p,
		     struct nbw_measurement *m)
{
	char a[200], b[200];
	unsigned ns = NSTREAMS(s);
	enum nbw_conc conc = s->plan->set.conc;
	device_label(s, SRC(s, 0), a, sizeof(a));
	device_label(s, DST(s, 0), b, sizeof(b));
	const char *more = conc == NBW_CONC_DUAL    ? " (and the same for the second device)"
			   : conc == NBW_CONC_ALL   ? " (and the same for every other device at once)"
			   : conc == NBW_CONC_RING  ? " (and every device to its ring neighbour at once)"
			   : conc == NBW_CONC_A2A   ? " (and every other ordered pair at once)"
			   : conc == NBW_CONC_BIDIR ? " (and the reverse direction at once)"
			   : conc == NBW_CONC_XLINE || conc == NBW_CONC_XGRID
				   ? " (and every other message of the exchange at once)"
			   : conc == NBW_CONC_XDECOMP && s->plan->face.staged
				   ? " (staged: device box -> host box -> device box; and every other "
				     "message of the exchange at once)"
			   : conc == NBW_CONC_XDECOMP
				   ? " (and every other message of the exchange at once)"
				   : "";
	if (DIR(s) == NBW_P2P && s->plan->mode == NBW_MODE_KERNEL)
		/* Not the API's copy-engine path: the backend's interface says who copies (a
		 * kernel of the destination device, Level Zero's compute queue group). */
		snprintf(m->path, sizeof(m->path), "%s -> %s; kernel mode, not the copy engines' "
			 "path: %s%s", a, b, s->plan->interface, more);
	else if (DIR(s) == NBW_P2P && s->plan->face.staged)
		snprintf(m->path, sizeof(m->path), "%s -> a %s host box -> %s%s", a,
			 nbw_hostmem_name(s->plan->mem), b, more);
	else if (DIR(s) == NBW_P2P)
		snprintf(m->path, sizeof(m->path), "%s -> %s; %s%s", a, b,
			 s->ops->p2p_path(s->be, SRC(s, 0), DST(s, 0)), more);
	else
		snprintf(m->path, sizeof(m->path), "%s -> %s%s", a, b, more);
	int dev = DIR(s) == NBW_HTOD ? DST(s, 0) : SRC(s, 0);
	snprintf(m->host_mem_note, sizeof(m->host_mem_note), "%s",
		 DIR(s) == NBW_P2P && !s->plan->face.staged
			 ? "no host memory involved"
			 : s->ops->hostmem_note(s->be, s->plan->mem, dev));
	if (s->grouped && s->ops->exchange_interface)
		snprintf(m->start, sizeof(m->start), "%s",
			 s->ops->exchange_interface(s->be, s->plan->mode));
	else if (ns == 1)
		snprintf(m->start, sizeof(m->start), "one host thread");
	else if (p && p->gated)
		snprintf(m->start, sizeof(m->start),
			 "backend gate: all %u copies enqueued, then released together", ns);
	else if (p && p->no_gate[0])
		snprintf(m->start, sizeof(m->start), "barrier (no gate: %s)", p->no_gate);
	else
		snprintf(m->start, sizeof(m->start),
			 "%u host threads released together by a barrier%s", ns,
			 conc == NBW_CONC_XDECOMP ? ", one per message" : "");
	snprintf(m->bytes_counting, sizeof(m->bytes_counting), "%s", s->plan->kind->bytes_counting);
}

/* What the path of the series could give, per measurement (aggregate for several streams:
 * the sum over the streams' links). */
static void theoretical(const struct nbw_exec *s, struct nbw_measurement *m)
{
	m->theoretical_gbps = -1.0;
	if (!s->topo) {
		snprintf(m->link, sizeof(m->link), "unknown");
		snprintf(m->theoretical_basis, sizeof(m->theoretical_basis),
			 "the topology could not be read");
		return;
	}
	double sum = 0.0;
	bool known = true;
	for (unsigned i = 0; i < NSTREAMS(s); i++) {
		double g = -1.0;
		char label[64] = "", basis[NBW_TOPO_NOTE_LEN] = "";
		if (DIR(s) == NBW_P2P) {
			struct nbw_topo_pair pr;
			const char *a = s->devinfo[SRC(s, i)].pci_bus_id,
				   *b = s->devinfo[DST(s, i)].pci_bus_id;
			int rc = s->plan->peer == NBW_PEER_OFF ? nbw_topo_pcie_pair(s->topo, a, b, &pr)
							       : nbw_topo_pair(s->topo, a, b, &pr);
			if (!*a || !*b) {
				snprintf(label, sizeof(label), "host memory, no link");
				snprintf(basis, sizeof(basis), "a copy inside host memory");
			} else {
				snprintf(label, sizeof(label), "%s", pr.label);
				snprintf(basis, sizeof(basis), "%s", pr.basis);
				g = rc == 0 ? pr.theoretical_gbps : -1.0;
			}
		} else {
			int dev = DIR(s) == NBW_HTOD ? DST(s, i) : SRC(s, i);
			struct nbw_host_link hl;
			int rc = nbw_topo_host_link(s->topo, s->devinfo[dev].pci_bus_id, &hl);
			if (hl.host_memory)
				snprintf(label, sizeof(label), "host memory, no link");
			else if (rc == 0 && hl.max.gen)
				snprintf(label, sizeof(label), "PCIe Gen%d x%d", hl.max.gen,
					 hl.max.width);
			else
				snprintf(label, sizeof(label), "unknown");
			snprintf(basis, sizeof(basis), "%s", hl.note);
			g = rc == 0 ? hl.theoretical_gbps : -1.0;
		}
		if (i == 0) {
			snprintf(m->link, sizeof(m->link), "%s", label);
			snprintf(m->theoretical_basis, sizeof(m->theoretical_basis), "%s%s", basis,
				 NSTREAMS(s) > 1 ? "; aggregate = sum over the streams' paths" : "");
		}
		known = known && g > 0.0;
		sum += g;
	}
	m->theoretical_gbps = known ? sum : -1.0;
}

void nbw_record_sched(const struct nbw_exec *s, char *word, size_t wlen, char *note, size_t nlen)
{
	char w[2][32], n[2][NBW_REASON_LEN];
	int dev[2];
	unsigned k = 0;
	word[0] = note[0] = '\0';
	if (!s->ops->sched)
		return;
	/* The first device, and the first other device whose setting differs (if any). */
	for (unsigned i = 0; i < NSTREAMS(s) && k < 2; i++) {
		int d = DIR(s) == NBW_HTOD ? DST(s, i) : SRC(s, i);
		if (d < 0 || (k && dev[0] == d))
			continue;
		dev[k] = d;
		if (s->ops->sched(s->be, d, w[k], sizeof(w[k]), n[k], sizeof(n[k])))
			snprintf(w[k], sizeof(w[k]), "unknown");
		if (k == 0 || strcmp(w[0], w[k]) || strcmp(n[0], n[k]))
			k++;
	}
	if (k == 0)
		return;
	if (k == 1 || !strcmp(w[0], w[1]))
		snprintf(word, wlen, "%s", w[0]);
	else
		snprintf(word, wlen, "%s (device %d), %s (device %d)", w[0], dev[0], w[1], dev[1]);
	if (k == 1 || !strcmp(n[0], n[1]))
		snprintf(note, nlen, "%s", n[0]);
	else
		snprintf(note, nlen, "device %d: %s; device %d: %s", dev[0], n[0], dev[1], n[1]);
}

/* Everything but the samples: which series, which size, which path. */
static void header(const struct nbw_exec *s, const struct nbw_point *p, const struct nbw_size *sz,
		   struct nbw_measurement *m)
{
	memset(m, 0, sizeof(*m));
	snprintf(m->api, sizeof(m->api), "%s", s->ops->name);
	snprintf(m->probe, sizeof(m->probe), "%s-%s", s->ops->name, nbw_dir_name(DIR(s)));
	if (s->plan->face.staged)
		snprintf(m->interface, sizeof(m->interface), "2 hops via host: %s",
			 s->plan->interface);
	else
		snprintf(m->interface, sizeof(m->interface), "%s", s->plan->interface);
	m->dir = DIR(s);
	m->mode = s->plan->mode;
	m->hostmem = s->plan->mem;
	m->conc = s->plan->set.conc;
	m->peer = s->plan->peer;
	m->bytes = sz->bytes;
	m->halo_n = sz->halo_n;
	m->hidden_helpers = strcmp(s->ops->name, "omp") == 0 ? nbw_effective_hidden_helpers() : -1;
	m->warmup = s->o->warmup;
	describe(s, p, m);
	snprintf(m->size_set, sizeof(m->size_set), "%s",
		 s->plan->set.matrix_only ? "matrix" : "sweep");
	theoretical(s, m);
	nbw_record_sched(s, m->sched, sizeof(m->sched), m->sched_note, sizeof(m->sched_note));
	snprintf(m->bind_policy, sizeof(m->bind_policy), "%s", nbw_bind_policy_name(s->plan->bind));
	m->bind_node = s->node[0];
	m->nstreams = NSTREAMS(s);
	for (unsigned i = 0; i < NSTREAMS(s); i++) {
		m->streams[i].src_device = SRC(s, i);
		m->streams[i].dst_device = DST(s, i);
	}
	snprintf(m->verify_status, sizeof(m->verify_status), "not-run");
	if (s->plan->face.on) {
		/* A face probe: the measurement's bytes are its first message's face. */
		m->face.has = true;
		m->face.shape = s->plan->face.shape;
		m->face.method = s->plan->face.method;
		memcpy(m->face.faces, s->plan->face.face, sizeof(m->face.faces));
		memcpy(m->face.decomp, s->plan->face.decomp, sizeof(m->face.decomp));
		m->face.staged = s->plan->face.staged;
		m->face.fields = s->plan->face.fields > 1 ? s->plan->face.fields : 1;
		m->bytes = nbw_face_rec_stream_bytes(&m->face, 0);
		m->halo_n = 0;
	}
}

void nbw_record_error(const struct nbw_exec *s, const struct nbw_size *sz, const char *why,
		      struct nbw_measurement *m)
{
	header(s, NULL, sz, m);
	snprintf(m->error, sizeof(m->error), "%s", why);
	snprintf(m->verify_detail, sizeof(m->verify_detail), "not verified: the measurement failed");
	if (m->mode == NBW_MODE_CHASE)
		nbw_chase_record(s, NULL, m);
}

/* The q-quantile (0..1) of \p n samples by linear interpolation between order
 * statistics (a sorted copy; NaN when there are none). */
static double quantile(const double *x, size_t n, double q)
{
	double *v = x && n ? malloc(n * sizeof(*v)) : NULL;
	if (!v)
		return NAN;
	memcpy(v, x, n * sizeof(*v));
	nbw_median(v, n); /* sorts */
	double pos = q * (double)(n - 1);
	size_t i = (size_t)pos;
	double r = i + 1 < n ? v[i] + (pos - (double)i) * (v[i + 1] - v[i]) : v[n - 1];
	free(v);
	return r;
}

/* n streams: n = perfect overlap, 1 = one after the other. */
static const char *overlap_class(double speedup, double n)
{
	return speedup > 1.15 * n    ? "noisy" /* faster than physically possible */
	       : speedup >= 0.85 * n ? "overlapped"
	       : speedup <= 1.15     ? "serialized"
				     : "partial";
}

static void overlap(struct nbw_measurement *m)
{
	unsigned ns = m->nstreams;
	m->has_overlap = true;
	m->serial_estimate_s = 0.0;
	/* The speedup's range from the quartiles of each stream alone and of the concurrent
	 * repetitions: a verdict only where the whole range gives the same one. */
	double serial_lo = 0.0, serial_hi = 0.0;
	for (unsigned i = 0; i < ns; i++) {
		struct nbw_summary a;
		const double *al = m->streams[i].alone_samples_s;
		size_t na = m->streams[i].n_alone;
		nbw_summarize(al, na, &a);
		m->serial_estimate_s += a.median;
		serial_lo += quantile(al, na, 0.25);
		serial_hi += quantile(al, na, 0.75);
	}
	m->concurrent_s = m->seconds.median;
	m->overlap_speedup = m->concurrent_s > 0 ? m->serial_estimate_s / m->concurrent_s : 0;
	double c_lo = quantile(m->samples_s, m->n, 0.25), c_hi = quantile(m->samples_s, m->n, 0.75);
	m->overlap_lo = c_hi > 0 ? serial_lo / c_hi : 0;
	m->overlap_hi = c_lo > 0 ? serial_hi / c_lo : 0;
	double n = (double)ns;
	const char *v = overlap_class(m->overlap_speedup, n);
	if (strcmp(v, "noisy") != 0 && (!isfinite(m->overlap_lo) || !isfinite(m->overlap_hi) ||
					strcmp(overlap_class(m->overlap_lo, n), v) != 0 ||
					strcmp(overlap_class(m->overlap_hi, n), v) != 0))
		v = "unclear";
	snprintf(m->overlap_verdict, sizeof(m->overlap_verdict), "%s", v);
}

/* Huge-page host memory: what the kernel gave each stream's buffer, once when every stream
 * got the same, else per stream. */
static void record_huge_pages(const struct nbw_point *p, unsigned ns, struct nbw_measurement *m)
{
	bool same = true;
	for (unsigned i = 1; i < ns; i++)
		same = same && strcmp(p->st[i].huge, p->st[0].huge) == 0;
	for (unsigned i = 0; i < (same ? 1u : ns); i++) {
		size_t l = strlen(m->huge_pages);
		if (!p->st[i].huge[0] || l + 16 >= sizeof(m->huge_pages))
			continue;
		if (same)
			snprintf(m->huge_pages, sizeof(m->huge_pages), "%s", p->st[i].huge);
		else
			snprintf(m->huge_pages + l, sizeof(m->huge_pages) - l, "%sstream %u: %s",
				 l ? "; " : "", i, p->st[i].huge);
	}
}

void nbw_record_point(const struct nbw_exec *s, struct nbw_point *p, const struct nbw_size *sz,
		      struct nbw_measurement *m)
{
	header(s, p, sz, m);
	unsigned ns = NSTREAMS(s);
	record_huge_pages(p, ns, m);
	for (unsigned i = 0; i < ns; i++) {
		size_t l = strlen(m->host_pages);
		if (p->st[i].placement[0] && l < 96)
			snprintf(m->host_pages + l, sizeof(m->host_pages) - l, "%s%s",
				 l ? "; " : "", p->st[i].placement);
	}
	for (unsigned i = 0; i < ns; i++)
		if (p->st[i].err[0]) {
			if (ns > 1)
				snprintf(m->error, sizeof(m->error), "stream %u: %s", i,
					 p->st[i].err);
			else
				snprintf(m->error, sizeof(m->error), "%s", p->st[i].err);
			snprintf(m->verify_detail, sizeof(m->verify_detail),
				 "not verified: the measurement failed");
			if (m->mode == NBW_MODE_CHASE)
				nbw_chase_record(s, NULL, m);
			return;
		}
	m->reps = p->reps;
	m->n = p->reps;
	m->samples_s = calloc(p->reps, sizeof(double));
	for (unsigned r = 0; m->samples_s && r < p->reps; r++) {
		double lo = INFINITY, hi = -INFINITY;
		for (unsigned i = 0; i < ns; i++) {
			lo = fmin(lo, p->st[i].t0[r]);
			hi = fmax(hi, p->st[i].t1[r]);
		}
		m->samples_s[r] = hi - lo;
	}
	bool all_passed = true;
	uint64_t checked = 0;
	for (unsigned i = 0; i < ns; i++) {
		struct nbw_stream *st = &m->streams[i];
		st->samples_s = p->st[i].samples;
		st->n = p->reps;
		p->st[i].samples = NULL;
		if (p->st[i].alone) {
			st->alone_samples_s = p->st[i].alone;
			st->n_alone = p->alone_reps;
			p->st[i].alone = NULL;
		}
		bool timed_on_device = true;
		for (unsigned r = 0; r < p->reps; r++)
			timed_on_device = timed_on_device && p->st[i].dev[r] >= 0.0;
		if (timed_on_device && s->ops->device_timer) {
			st->device_samples_s = p->st[i].dev;
			st->n_device = p->reps;
			p->st[i].dev = NULL;
			snprintf(m->device_timer, sizeof(m->device_timer), "%s",
				 s->ops->device_timer);
		}
		if (strcmp(p->st[i].verify_status, "passed") == 0)
			checked += sz->bytes;
		else
			all_passed = false;
	}
	snprintf(m->verify_status, sizeof(m->verify_status), "%s", all_passed ? "passed" : "failed");
	m->verify_bytes = checked;
	nbw_repcheck_list(p->vmask, p->reps, m->verify_reps, sizeof(m->verify_reps));
	for (unsigned i = 0; i < ns; i++)
		if (!all_passed && strcmp(p->st[i].verify_status, "passed") != 0) {
			snprintf(m->verify_detail, sizeof(m->verify_detail), "stream %u: %s", i,
				 p->st[i].verify_detail[0] ? p->st[i].verify_detail
							   : "not checked");
			break;
		}
	if (all_passed && m->face.has)
		snprintf(m->verify_detail, sizeof(m->verify_detail),
			 "every face byte equals the source box's face and every other byte of the "
			 "destination box is untouched (%u box%s, checked after repetitions %s of %u)",
			 ns, ns > 1 ? "es" : "", m->verify_reps, p->reps);
	else if (all_passed)
		snprintf(m->verify_detail, sizeof(m->verify_detail),
			 "every destination byte equals the source pattern (%u stream%s, checked "
			 "after repetitions %s of %u)",
			 ns, ns > 1 ? "s" : "", m->verify_reps, p->reps);
	nbw_measurement_summarize(m);
	/* The interval and whether it met the target come from the samples (the executor
	 * judged the same ones); why the repetitions stopped from the executor. */
	snprintf(m->stop, sizeof(m->stop), "%s", p->stop);
	m->time_capped = p->time_capped;
	m->first_rep_s = m->samples_s && p->reps ? m->samples_s[0] : 0.0;
	m->minor_faults_per_rep = p->faults_per_rep;
	if (ns > 1)
		overlap(m);
	if (m->mode == NBW_MODE_CHASE)
		nbw_chase_record(s, p, m);
}

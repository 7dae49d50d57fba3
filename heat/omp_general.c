/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The general version of the heat solver: one host thread per device (as Versions 3 and 4),
 * the devices in a PX x PY x PZ grid (heat/decomp.c), each holding its box of the grid with
 * ghost layers of depth R on every side, F fields stepped and exchanged each step.
 *
 * Per step and field, every device sends the R layers next to each face that has a
 * neighbour into that neighbour's ghost layers of the new level (a star stencil needs no
 * edges or corners):
 *   copy rect    omp_target_memcpy_rect_async of the face box (a z-face is contiguous,
 *                a y-face rows with a stride, an x-face single elements with a stride);
 *   copy pack    a kernel packs the face into a contiguous device buffer, one
 *                omp_target_memcpy_async, a kernel on the neighbour unpacks it (launched by
 *                the sender's thread, so that one task graph orders the three);
 *   host-staged  device -> host buffer (llvm_omp_target_alloc_host) -> neighbour;
 *   device       device -> device (libomptarget routes it; between host-plugin devices it
 *                stages through a malloc buffer itself).
 * The copies of one field are chained on the field's depobj, after the kernels that wrote
 * the layers they send.
 *   overlap on   the layers the neighbours need are computed first (one kernel per band),
 *                their exchange is started, and the rest of the box is computed meanwhile
 *                (as Versions 2-4 do); one taskwait and the team's barrier per step;
 *   overlap off  the whole box is computed, a taskwait, then the exchange, a taskwait and
 *                the barrier.
 * As in Versions 3 and 4 the levels are chosen by the step's parity, so one barrier per step
 * suffices; the time runs from the first thread's start to the last thread's end.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heat_omp.h"
#include "omp_internal.h"

void *llvm_omp_target_alloc_host(size_t size, int device_num);
void llvm_omp_target_free_host(void *ptr, int device_num);

#define NFACE 6
#define NBOX 7

/* One face a device sends: axis a (0 x, 1 y, 2 z), side 0 (to the lower neighbour) or 1. */
struct gen_face {
	int nb;                            /* the neighbour's index in the run */
	int lo[3], hi[3];                  /* the layers sent, local (x, y, z) */
	int dlo[3], dhi[3];                /* where they land in the neighbour's box */
	size_t points;
	/* omp_target_memcpy_rect's arrays, slowest axis first (z, y, x); kept for the
	 * asynchronous copies. */
	size_t vol[3], src_off[3], dst_off[3], src_dims[3], dst_dims[3], zero[3];
	double *pack[NBW_HEAT_MAX_FIELDS];  /* on the sender (copy pack) */
	double *recv[NBW_HEAT_MAX_FIELDS];  /* on the neighbour (copy pack) */
	double *stage[NBW_HEAT_MAX_FIELDS]; /* host (host-staged) */
};

struct gen_dev {
	int id;
	bool gpu;
	struct nbw_heat_sub sub;
	int L[3];                          /* local box, ghosts included (x, y, z) */
	size_t points;
	double *u[NBW_HEAT_MAX_FIELDS][2];
	double *kappa, *rhs;
	struct gen_face face[NFACE];
	int nface;
	/* overlap on: the bands the neighbours need (box[0 .. nband)) and the rest (box
	 * nband, may be empty); overlap off: box 0 is the whole interior */
	int blo[NBOX][3], bhi[NBOX][3];
	int nband;
	int tok[NBW_HEAT_MAX_FIELDS], tok_inner;
	omp_depend_t dep[NBW_HEAT_MAX_FIELDS];
	bool dep_made;
};

struct gen_run {
	const struct nbw_heat_omp_request *rq;
	int ndev, nf, R, host;
	size_t grid_dims[3];               /* z, y, x */
	struct gen_dev *dev;
	struct nbw_heat_phases *ph;
	bool instrument;
	int failed;
	char err[256];
};

static void gen_fail(struct gen_run *r, int rc, const char *what, int from, int to)
{
	if (rc == 0)
		return;
#pragma omp critical(heat_gen_err)
	if (!r->failed) {
		r->failed = 1;
		snprintf(r->err, sizeof(r->err), "%s from device %d to %d returned %d", what, from,
			 to, rc);
	}
}

static void gen_free(struct gen_run *r)
{
	for (int g = 0; r->dev && g < r->ndev; g++) {
		struct gen_dev *d = &r->dev[g];
		for (int q = 0; q < NBW_HEAT_MAX_FIELDS; q++) {
			for (int l = 0; l < 2; l++)
				if (d->u[q][l])
					omp_target_free(d->u[q][l], d->id);
			for (int f = 0; f < d->nface; f++) {
				struct gen_face *fc = &d->face[f];
				if (fc->pack[q])
					omp_target_free(fc->pack[q], d->id);
				if (fc->recv[q])
					omp_target_free(fc->recv[q], r->dev[fc->nb].id);
				if (fc->stage[q])
					llvm_omp_target_free_host(fc->stage[q], d->id);
			}
			if (d->dep_made && q < r->nf) {
#pragma omp depobj(d->dep[q]) destroy
			}
		}
		if (d->kappa)
			omp_target_free(d->kappa, d->id);
		if (d->rhs)
			omp_target_free(d->rhs, d->id);
	}
	free(r->dev);
	free(r->ph);
	r->dev = NULL;
	r->ph = NULL;
}

/* Host array -> the device's box (ghosts included), or the box's updated points back. */
static int box_copy(struct gen_run *r, struct gen_dev *d, double *dev_ptr, double *host_ptr,
		    bool down)
{
	const int R = r->R;
	size_t ldims[3] = { (size_t)d->L[2], (size_t)d->L[1], (size_t)d->L[0] };
	if (!down) {
		size_t off[3] = { (size_t)(d->sub.begin[2] - R), (size_t)(d->sub.begin[1] - R),
				  (size_t)(d->sub.begin[0] - R) };
		size_t zero[3] = { 0, 0, 0 };
		return omp_target_memcpy_rect(dev_ptr, host_ptr, sizeof(double), 3, ldims, zero, off,
					      ldims, r->grid_dims, d->id, r->host);
	}
	size_t vol[3] = { (size_t)d->sub.count[2], (size_t)d->sub.count[1],
			  (size_t)d->sub.count[0] };
	size_t goff[3] = { (size_t)d->sub.begin[2], (size_t)d->sub.begin[1],
			   (size_t)d->sub.begin[0] };
	size_t loff[3] = { (size_t)R, (size_t)R, (size_t)R };
	return omp_target_memcpy_rect(host_ptr, dev_ptr, sizeof(double), 3, vol, goff, loff,
				      r->grid_dims, ldims, r->host, d->id);
}

static int gen_upload_u(struct gen_run *r)
{
	const size_t n = r->grid_dims[0] * r->grid_dims[1] * r->grid_dims[2];
	for (int g = 0; g < r->ndev; g++)
		for (int q = 0; q < r->nf; q++)
			for (int l = 0; l < 2; l++)
				if (box_copy(r, &r->dev[g], r->dev[g].u[q][l],
					     r->rq->fields->u0 + (size_t)q * n, false)) {
					snprintf(r->err, sizeof(r->err),
						 "omp_target_memcpy_rect to device %d failed",
						 r->dev[g].id);
					r->failed = 1;
					return -1;
				}
	return 0;
}

static int dev_index(const int decomp[3], const int idx[3])
{
	return idx[0] + decomp[0] * (idx[1] + decomp[1] * idx[2]);
}

/* The faces device g sends and the boxes it computes. */
static void plan_device(struct gen_run *r, int g)
{
	const struct nbw_heat_omp_request *rq = r->rq;
	struct gen_dev *d = &r->dev[g];
	const int R = r->R;
	int lo[3], hi[3], A[3], B[3];
	bool has[3][2];
	for (int a = 0; a < 3; a++) {
		lo[a] = R;
		hi[a] = R + d->sub.count[a];
		has[a][0] = d->sub.idx[a] > 0;
		has[a][1] = d->sub.idx[a] < rq->decomp[a] - 1;
		A[a] = has[a][0] ? (lo[a] + R < hi[a] ? lo[a] + R : hi[a]) : lo[a];
		B[a] = has[a][1] ? (hi[a] - R > A[a] ? hi[a] - R : A[a]) : hi[a];
	}
	/* Faces: along a, the R layers next to side sd, over the interior of the other axes. */
	d->nface = 0;
	for (int a = 2; a >= 0; a--)
		for (int sd = 0; sd < 2; sd++) {
			if (!has[a][sd])
				continue;
			struct gen_face *f = &d->face[d->nface++];
			int nidx[3] = { d->sub.idx[0], d->sub.idx[1], d->sub.idx[2] };
			nidx[a] += sd ? 1 : -1;
			f->nb = dev_index(rq->decomp, nidx);
			const struct gen_dev *nb = &r->dev[f->nb];
			memcpy(f->lo, lo, sizeof(lo));
			memcpy(f->hi, hi, sizeof(hi));
			memcpy(f->dlo, lo, sizeof(lo));
			memcpy(f->dhi, hi, sizeof(hi));
			f->lo[a] = sd ? hi[a] - R : lo[a];
			f->hi[a] = f->lo[a] + R;
			f->dlo[a] = sd ? 0 : R + nb->sub.count[a];
			f->dhi[a] = f->dlo[a] + R;
			f->points = 1;
			for (int b = 0; b < 3; b++) {
				int z = 2 - b; /* rect arrays: slowest first */
				f->vol[z] = (size_t)(f->hi[b] - f->lo[b]);
				f->src_off[z] = (size_t)f->lo[b];
				f->dst_off[z] = (size_t)f->dlo[b];
				f->src_dims[z] = (size_t)d->L[b];
				f->dst_dims[z] = (size_t)nb->L[b];
				f->zero[z] = 0;
				f->points *= f->vol[z];
			}
		}
	/* Boxes. */
	int n = 0;
	if (!rq->overlap) {
		memcpy(d->blo[0], lo, sizeof(lo));
		memcpy(d->bhi[0], hi, sizeof(hi));
		d->nband = 0;
		return;
	}
	for (int a = 2; a >= 0; a--)
		for (int sd = 0; sd < 2; sd++) {
			int *bl = d->blo[n], *bh = d->bhi[n];
			for (int b = 0; b < 3; b++) {
				/* axes above a (slower) are cut to [A, B); a is the band; axes
				 * below a keep their full range */
				bl[b] = b > a ? A[b] : lo[b];
				bh[b] = b > a ? B[b] : hi[b];
			}
			bl[a] = sd ? B[a] : lo[a];
			bh[a] = sd ? hi[a] : A[a];
			if (bl[a] < bh[a] && bl[0] < bh[0] && bl[1] < bh[1] && bl[2] < bh[2])
				n++;
		}
	d->nband = n;
	for (int b = 0; b < 3; b++) {
		d->blo[n][b] = A[b];
		d->bhi[n][b] = B[b];
	}
}

static int gen_setup(struct gen_run *r, char *err, size_t errlen)
{
	const struct nbw_heat_omp_request *rq = r->rq;
	const struct nbw_heat_grid *gr = rq->grid;
	r->ndev = rq->ndev;
	r->nf = rq->fields->nfields > 0 ? rq->fields->nfields : 1;
	r->R = gr->radius > 0 ? gr->radius : 1;
	r->host = omp_get_initial_device();
	r->grid_dims[0] = (size_t)gr->nz;
	r->grid_dims[1] = (size_t)gr->ny;
	r->grid_dims[2] = (size_t)gr->nx;
	r->dev = calloc((size_t)r->ndev, sizeof(*r->dev));
	r->ph = calloc((size_t)r->ndev, sizeof(*r->ph));
	if (!r->dev || !r->ph) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (int g = 0; g < r->ndev; g++) {
		struct gen_dev *d = &r->dev[g];
		d->id = rq->devices[g];
		d->gpu = rq->gpu[g];
		d->sub = rq->subs[g];
		d->points = 1;
		for (int a = 0; a < 3; a++) {
			d->L[a] = d->sub.count[a] + 2 * r->R;
			d->points *= (size_t)d->L[a];
		}
	}
	for (int g = 0; g < r->ndev; g++) {
		struct gen_dev *d = &r->dev[g];
		plan_device(r, g);
		size_t bytes = d->points * sizeof(double);
		bool got = true;
		for (int q = 0; q < r->nf; q++)
			for (int l = 0; l < 2; l++)
				got &= (d->u[q][l] = omp_target_alloc(bytes, d->id)) != NULL;
		got &= (d->kappa = omp_target_alloc(bytes, d->id)) != NULL;
		got &= (d->rhs = omp_target_alloc(bytes, d->id)) != NULL;
		for (int f = 0; got && f < d->nface; f++) {
			struct gen_face *fc = &d->face[f];
			size_t fb = fc->points * sizeof(double);
			for (int q = 0; q < r->nf && got; q++) {
				if (rq->copy == NBW_APP_PACK) {
					got &= (fc->pack[q] = omp_target_alloc(fb, d->id)) != NULL;
					got &= (fc->recv[q] = omp_target_alloc(
							fb, r->dev[fc->nb].id)) != NULL;
				}
				if (rq->exchange == NBW_APP_HOST_STAGED)
					got &= (fc->stage[q] = llvm_omp_target_alloc_host(fb, d->id)) !=
					       NULL;
			}
		}
		if (!got) {
			snprintf(err, errlen, "allocating the box of %zu points (%d fields) and its "
					      "face buffers on device %d failed",
				 d->points, r->nf, d->id);
			return -1;
		}
		if (box_copy(r, d, d->kappa, rq->fields->kappa, false) ||
		    box_copy(r, d, d->rhs, rq->fields->rhs, false)) {
			snprintf(err, errlen, "omp_target_memcpy_rect to device %d failed", d->id);
			return -1;
		}
		for (int q = 0; q < r->nf; q++) {
#pragma omp depobj(d->dep[q]) depend(inout : d->tok[q])
		}
		d->dep_made = true;
	}
	if (gen_upload_u(r)) {
		snprintf(err, errlen, "%s", r->err);
		return -1;
	}
	return 0;
}

/* ---- a step ---------------------------------------------------------------------------- */

static void compute(struct gen_run *r, struct gen_dev *d, int q, int s, int first, int last,
		    int *tok)
{
	const double f = r->rq->grid->factor;
	for (int b = first; b <= last; b++)
		heat_box_kernel(d->id, d->gpu, d->u[q][(s + 1) & 1], d->u[q][s & 1], d->kappa,
				d->rhs, d->L, d->blo[b], d->bhi[b], f, r->R, tok);
}

/* Field q's faces of device g at step s, chained on the field's depobj. */
static void exchange(struct gen_run *r, int g, int q, int s)
{
	const struct nbw_heat_omp_request *rq = r->rq;
	struct gen_dev *d = &r->dev[g];
	for (int f = 0; f < d->nface; f++) {
		struct gen_face *fc = &d->face[f];
		struct gen_dev *nb = &r->dev[fc->nb];
		double *src = d->u[q][(s + 1) & 1], *dst = nb->u[q][(s + 1) & 1];
		size_t fb = fc->points * sizeof(double);
		if (rq->copy == NBW_APP_RECT && rq->exchange == NBW_APP_DEVICE) {
			gen_fail(r,
				 omp_target_memcpy_rect_async(dst, src, sizeof(double), 3, fc->vol,
							      fc->dst_off, fc->src_off,
							      fc->dst_dims, fc->src_dims, nb->id,
							      d->id, 1, &d->dep[q]),
				 "omp_target_memcpy_rect_async", d->id, nb->id);
		} else if (rq->copy == NBW_APP_RECT) {
			gen_fail(r,
				 omp_target_memcpy_rect_async(fc->stage[q], src, sizeof(double), 3,
							      fc->vol, fc->zero, fc->src_off,
							      fc->vol, fc->src_dims, r->host,
							      d->id, 1, &d->dep[q]),
				 "omp_target_memcpy_rect_async", d->id, r->host);
			gen_fail(r,
				 omp_target_memcpy_rect_async(dst, fc->stage[q], sizeof(double), 3,
							      fc->vol, fc->dst_off, fc->zero,
							      fc->dst_dims, fc->vol, nb->id,
							      r->host, 1, &d->dep[q]),
				 "omp_target_memcpy_rect_async", r->host, nb->id);
		} else {
			heat_box_pack(d->id, d->gpu, src, fc->pack[q], d->L, fc->lo, fc->hi, false,
				      &d->tok[q]);
			if (rq->exchange == NBW_APP_DEVICE) {
				gen_fail(r,
					 omp_target_memcpy_async(fc->recv[q], fc->pack[q], fb, 0, 0,
								 nb->id, d->id, 1, &d->dep[q]),
					 "omp_target_memcpy_async", d->id, nb->id);
			} else {
				gen_fail(r,
					 omp_target_memcpy_async(fc->stage[q], fc->pack[q], fb, 0, 0,
								 r->host, d->id, 1, &d->dep[q]),
					 "omp_target_memcpy_async", d->id, r->host);
				gen_fail(r,
					 omp_target_memcpy_async(fc->recv[q], fc->stage[q], fb, 0, 0,
								 nb->id, r->host, 1, &d->dep[q]),
					 "omp_target_memcpy_async", r->host, nb->id);
			}
			heat_box_pack(nb->id, nb->gpu, dst, fc->recv[q], nb->L, fc->dlo, fc->dhi, true,
				      &d->tok[q]);
		}
	}
}

static void lap(double *t, double *acc)
{
	double now = omp_get_wtime();
	*acc += now - *t;
	*t = now;
}

static void step(struct gen_run *r, int g, int s)
{
	struct gen_dev *d = &r->dev[g];
	struct nbw_heat_phases *ph = &r->ph[g];
	double t = omp_get_wtime();
	if (r->rq->overlap) {
		/* the layers the neighbours need, then their exchange, then the rest */
		for (int q = 0; q < r->nf; q++)
			compute(r, d, q, s, 0, d->nband - 1, &d->tok[q]);
		if (r->instrument) {
#pragma omp taskwait
			lap(&t, &ph->boundary_s);
		}
		for (int q = 0; q < r->nf; q++)
			exchange(r, g, q, s);
		if (r->instrument) {
#pragma omp taskwait
			lap(&t, &ph->halo_s);
		}
		for (int q = 0; q < r->nf; q++)
			compute(r, d, q, s, d->nband, d->nband, &d->tok_inner);
	} else {
		for (int q = 0; q < r->nf; q++)
			compute(r, d, q, s, 0, 0, &d->tok[q]);
#pragma omp taskwait
		if (r->instrument)
			lap(&t, &ph->interior_s);
		for (int q = 0; q < r->nf; q++)
			exchange(r, g, q, s);
		if (r->instrument) {
#pragma omp taskwait
			lap(&t, &ph->halo_s);
		}
	}
#pragma omp taskwait
	if (r->instrument && r->rq->overlap)
		lap(&t, &ph->interior_s);
#pragma omp barrier
	if (r->instrument)
		lap(&t, &ph->sync_s);
}

static double time_steps(struct gen_run *r, int steps)
{
	int wrong = 0;
	double first = 0.0, last = 0.0;
#pragma omp parallel num_threads(r->ndev) shared(wrong, first, last)
	{
		if (omp_get_num_threads() != r->ndev) {
#pragma omp atomic write
			wrong = omp_get_num_threads();
		}
#pragma omp barrier
		int g = omp_get_thread_num();
		if (!wrong) {
			double t0 = omp_get_wtime();
			for (int s = 0; s < steps; s++)
				step(r, g, s);
			double t1 = omp_get_wtime();
#pragma omp critical(heat_gen_span)
			{
				first = first == 0.0 || t0 < first ? t0 : first;
				last = t1 > last ? t1 : last;
			}
		}
	}
	if (wrong) {
		snprintf(r->err, sizeof(r->err),
			 "the runtime gave %d host threads instead of one per device (%d); check "
			 "OMP_THREAD_LIMIT and OMP_DYNAMIC",
			 wrong, r->ndev);
		r->failed = 1;
	}
	return last - first;
}

static int gen_download(struct gen_run *r, int steps, double *u_out, char *err, size_t errlen)
{
	const size_t n = r->grid_dims[0] * r->grid_dims[1] * r->grid_dims[2];
	memcpy(u_out, r->rq->fields->u0, (size_t)r->nf * n * sizeof(double));
	for (int q = 0; q < r->nf; q++)
		for (int g = 0; g < r->ndev; g++)
			if (box_copy(r, &r->dev[g], r->dev[g].u[q][steps & 1], u_out + (size_t)q * n,
				     true)) {
				snprintf(err, errlen, "omp_target_memcpy_rect from device %d failed",
					 r->dev[g].id);
				return -1;
			}
	return 0;
}

static void gen_describe(const struct gen_run *r, struct nbw_heat_omp_result *res)
{
	const struct nbw_heat_omp_request *rq = r->rq;
	bool gpu = r->dev[0].gpu;
	snprintf(res->kernels, sizeof(res->kernels), "%s%s", heat_kernel_forms(gpu, true),
		 rq->copy == NBW_APP_PACK ? "; pack and unpack kernels of the same form" : "");
	const char *how = rq->copy == NBW_APP_RECT
				  ? "omp_target_memcpy_rect_async per face box"
				  : "pack kernel, omp_target_memcpy_async, unpack kernel on the neighbour";
	const char *path = rq->exchange == NBW_APP_HOST_STAGED
				   ? "device -> host -> device (llvm_omp_target_alloc_host buffers)"
			   : gpu ? "device -> device (peer copy where the plugin supports it)"
				 : "device -> device (libomptarget stages host-plugin copies through "
				   "a malloc buffer: not a peer link)";
	snprintf(res->halo_path, sizeof(res->halo_path), "%s; %s; chained per field", how, path);
	res->host_threads = r->ndev;
}

int heat_general_run(const struct nbw_heat_omp_request *rq, double *u_out,
		     struct nbw_heat_omp_result *res, char *err, size_t errlen)
{
	struct gen_run r;
	memset(&r, 0, sizeof(r));
	r.rq = rq;
	memset(&res->phases, 0, sizeof(res->phases));
	res->blocktime_ms = kmp_get_blocktime();
	if (rq->ndev < 2 || !rq->subs ||
	    rq->decomp[0] * rq->decomp[1] * rq->decomp[2] != rq->ndev) {
		snprintf(err, errlen, "general: %d devices for a %dx%dx%d decomposition", rq->ndev,
			 rq->decomp[0], rq->decomp[1], rq->decomp[2]);
		return -1;
	}
	int rc = gen_setup(&r, err, errlen);
	if (rc == 0)
		gen_describe(&r, res);
	if (rc == 0 && rq->warmup_steps > 0) {
		time_steps(&r, rq->warmup_steps);
		rc = r.failed || gen_upload_u(&r) ? -1 : 0;
	}
	for (int rep = 0; rc == 0 && rep < rq->reps; rep++) {
		if (rep > 0 && gen_upload_u(&r)) {
			rc = -1;
			break;
		}
		res->samples_s[rep] = time_steps(&r, rq->steps);
		if (r.failed)
			rc = -1;
	}
	if (rc == 0)
		rc = gen_download(&r, rq->steps, u_out, err, errlen);
	for (int rep = 0; rc == 0 && rq->instrument && rep < rq->reps; rep++) {
		if (gen_upload_u(&r)) {
			rc = -1;
			break;
		}
		r.instrument = true;
		memset(r.ph, 0, (size_t)r.ndev * sizeof(*r.ph));
		double total = time_steps(&r, rq->steps);
		rc = r.failed ? -1 : 0;
		if (rc || (rep > 0 && total >= res->phases.total_s))
			continue;
		memset(&res->phases, 0, sizeof(res->phases));
		for (int g = 0; g < r.ndev; g++) {
			res->phases.interior_s += r.ph[g].interior_s / r.ndev;
			res->phases.boundary_s += r.ph[g].boundary_s / r.ndev;
			res->phases.halo_s += r.ph[g].halo_s / r.ndev;
			res->phases.sync_s += r.ph[g].sync_s / r.ndev;
		}
		res->phases.total_s = total;
	}
	if (r.failed && r.err[0])
		snprintf(err, errlen, "%s", r.err);
	gen_free(&r);
	return rc;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The paper's model (Eq. 7-12): formulas only, on a calibration (include/nodebw/model.h,
 * doc/model.md), so that each can be checked against hand-computed cases.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_priv.h"
#include "nodebw/limits.h"
#include "nodebw/model.h"
#include "nodebw/stats.h"

/* ---- the paper's model -------------------------------------------------------------- */



static double cube(double x)
{
	return x * x * x;
}


/* "0<->1, 1<->2, 2<->3" (the neighbour pairs of G devices), "0, 1, 2" (the devices). */
static void list_str(char *buf, size_t len, int g, bool pairs)
{
	size_t w = 0;
	buf[0] = '\0';
	int n = pairs ? g - 1 : g;
	for (int i = 0; i < n && w < len; i++) {
		if (n > 8 && i == 3) {
			w += (size_t)snprintf(buf + w, len - w, ", ...");
			i = n - 2;
			continue;
		}
		if (pairs)
			w += (size_t)snprintf(buf + w, len - w, "%s%d<->%d", i ? ", " : "", i,
					      i + 1);
		else
			w += (size_t)snprintf(buf + w, len - w, "%s%d", i ? ", " : "", i);
	}
}

/* Eq. 10's P2P: the slowest of the neighbour pairs i -> i+1 and i+1 -> i. */
static int paper_p2p(const struct nbw_calib *c, const char *name, double b, int g,
		     struct nbw_paper_pred *out, double *per_step, char *why, size_t whylen)
{
	struct xsrc_count k = {{0}};
	double worst = -1.0;
	char how[400];
	for (int i = 0; i + 1 < g; i++)
		for (int d = 0; d < 2; d++) {
			int a = d ? i + 1 : i, z = d ? i : i + 1;
			double t;
			enum nbw_xsrc from;
			if (nbw_calib_xfer_ends_s(c, name, a, z, b, &t, &from, how, sizeof(how))) {
				say(why, whylen, "Eq. 10 needs beta_P2P at %.0f B: %s", b, how);
				return -1;
			}
			count_src(&k, from);
			if (t > worst) {
				worst = t;
				out->bound_src = a;
				out->bound_dst = z;
				out->bound_from = from;
			}
		}
	*per_step = worst;
	out->beta_gbps[0] = b / worst / 1e9;
	if (!nbw_calib_has_sets(c, name)) {
		say(out->bound, sizeof(out->bound), "path %s for every pair (the calibration has no "
			"per-pair measurements)", name);
		return 0;
	}
	char list[160], src[160];
	list_str(list, sizeof(list), g, true);
	nbw_mdl_sources_str(src, sizeof(src), "pair", &k);
	say(out->bound, sizeof(out->bound), "slowest neighbour pair %d->%d of %s, both directions "
		"(%s; %s)", out->bound_src, out->bound_dst, list,
	    nbw_xsrc_name(out->bound_from), src);
	return 0;
}

/* Eq. 9's HtoD + DtoH: the slowest device's own (the largest sum) among 0..G-1. */
static int paper_staged(const struct nbw_calib *c, const char *mode, double b, int g,
			struct nbw_paper_pred *out, double *per_step, char *why, size_t whylen)
{
	struct xsrc_count k = {{0}};
	double worst = -1.0;
	char how[400], name[2][32];
	enum nbw_xsrc wfrom[2] = {NBW_XSRC_GENERIC, NBW_XSRC_GENERIC};
	snprintf(name[0], sizeof(name[0]), "htod/%s", mode);
	snprintf(name[1], sizeof(name[1]), "dtoh/%s", mode);
	for (int d = 0; d < g; d++) {
		double t[2];
		enum nbw_xsrc from[2];
		for (int i = 0; i < 2; i++)
			if (nbw_calib_xfer_ends_s(c, name[i], i ? d : -1, i ? -1 : d, b, &t[i],
						  &from[i], how, sizeof(how))) {
				say(why, whylen, "Eq. 9 needs beta_%s at %.0f B: %s",
				    i ? "DtoH" : "HtoD", b, how);
				return -1;
			}
		count_src(&k, from[0]);
		count_src(&k, from[1]);
		if (t[0] + t[1] > worst) {
			worst = t[0] + t[1];
			out->beta_gbps[0] = b / t[0] / 1e9;
			out->beta_gbps[1] = b / t[1] / 1e9;
			out->bound_src = out->bound_dst = d;
			wfrom[0] = from[0];
			wfrom[1] = from[1];
		}
	}
	*per_step = worst;
	out->bound_from = wfrom[0] == NBW_XSRC_ESTIMATE || wfrom[1] == NBW_XSRC_ESTIMATE
				  ? NBW_XSRC_ESTIMATE : wfrom[0];
	if (!nbw_calib_has_sets(c, name[0]) && !nbw_calib_has_sets(c, name[1])) {
		say(out->bound, sizeof(out->bound), "paths %s and %s for every device (the "
			"calibration has no per-device measurements)", name[0], name[1]);
		return 0;
	}
	char list[160], src[160];
	list_str(list, sizeof(list), g, false);
	nbw_mdl_sources_str(src, sizeof(src), "transfer", &k);
	say(out->bound, sizeof(out->bound), "slowest device %d of %s (HtoD: %s, DtoH: %s; "
		"%s)", out->bound_src, list, nbw_xsrc_name(wfrom[0]),
	    nbw_xsrc_name(wfrom[1]), src);
	return 0;
}

int nbw_predict_paper(const struct nbw_calib *c, enum nbw_kbar_rule rule, int n, int g,
		      const char *v, int steps, struct nbw_paper_pred *out, char *why,
		      size_t whylen)
{
	memset(out, 0, sizeof(*out));
	int vn;
	if (!is_version(v, &vn) || g < 2 || g > NBW_MAX_DEVICES || n < 3 ||
	    n > NBW_GRID_MAX_SIDE || steps < 1 || steps > NBW_STEPS_MAX) {
		say(why, whylen, "the model covers v1-v4 on G = 2 to %d devices, N = 3 to %d, "
				 "steps 1 to %d", NBW_MAX_DEVICES, NBW_GRID_MAX_SIDE, NBW_STEPS_MAX);
		return -1;
	}
	if (nbw_calib_kbar(c, rule, &out->kbar, why, whylen))
		return -1;
	double b = plane_bytes(n), step_compute = out->kbar * cube(n - 2.0) / g;
	double per_step;
	if (vn == 4) {
		char name[32];
		out->equation = "Eq. 10";
		snprintf(name, sizeof(name), "p2p/%s", version_mode(vn));
		if (paper_p2p(c, name, b, g, out, &per_step, why, whylen))
			return -1;
	} else {
		out->equation = "Eq. 9";
		if (paper_staged(c, version_mode(vn), b, g, out, &per_step, why, whylen))
			return -1;
	}
	out->compute_s = steps * step_compute;
	out->transfer_s = steps * per_step;
	out->total_s = out->compute_s + out->transfer_s;
	out->overlap_s = steps * fmax(step_compute, per_step);
	return 0;
}

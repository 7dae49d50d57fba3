/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the summary says from the measurements themselves: how many did not converge (their
 * repetitions stopped by the time cap or the repetition cap before the median's interval
 * was within +-1 %), and the hidden-helper sweep's largest effect (the same path, mode and
 * size measured with different LIBOMP_NUM_HIDDEN_HELPER_THREADS).
 */
#include "nodebw/findings.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "nodebw/kernel_cmp.h"
#include "nodebw/results_view.h"
#include "nodebw/sizes.h"

/* "two devices at once" for "dual", ... */
static const char *conc_words(const char *c)
{
	if (strcmp(c, "dual") == 0)
		return "two devices at once, ";
	if (strcmp(c, "all") == 0)
		return "every device at once, ";
	if (strcmp(c, "bidir") == 0)
		return "both directions at once, ";
	if (strcmp(c, "ring") == 0)
		return "ring, ";
	if (strcmp(c, "a2a") == 0)
		return "all-to-all, ";
	return "";
}

/* "omp-p2p nowait 64 MiB" */
static void point_name(const struct nbw_rv_meas *x, char *out, size_t len)
{
	char sz[32];
	nbw_size_label((uint64_t)x->bytes, sz, sizeof(sz));
	bool mem = strcmp(x->host_mem, "none") != 0 && x->host_mem[0];
	snprintf(out, len, "%s %s %s%s%s%s", x->probe, x->mode, mem ? x->host_mem : "",
		 mem ? " " : "", conc_words(x->concurrency), sz);
}

/* Why the repetitions stopped, counted: the time cap, the repetition cap, anything else. */
struct stops {
	size_t time_cap, rep_cap, other;
	double cap;
	char other_why[48];
};

static void count_stop(struct stops *w, const char *why)
{
	if (sscanf(why, "time cap %lf", &w->cap) == 1) {
		w->time_cap++;
	} else if (strncmp(why, "max repetitions", 15) == 0) {
		w->rep_cap++;
	} else {
		if (!w->other++)
			snprintf(w->other_why, sizeof(w->other_why), "%s", why);
	}
}

static void stops_text(const struct stops *w, char *out, size_t len)
{
	size_t k = 0;
	out[0] = '\0';
	if (w->time_cap)
		k += (size_t)snprintf(out, len, "%zu stopped by the time cap (%g s per size; "
				      "--max-time raises it)", w->time_cap, w->cap);
	if (w->rep_cap && k < len)
		k += (size_t)snprintf(out + k, len - k, "%s%zu by the repetition cap",
				      k ? ", " : "", w->rep_cap);
	if (w->other && k < len)
		snprintf(out + k, len - k, "%s%zu stopped by: %s", k ? ", " : "", w->other,
			 w->other_why);
}

bool nbw_findings_not_converged(json_t *measurements, char *out, size_t len)
{
	size_t i, n = 0, total = 0;
	struct stops w = {0};
	struct nbw_rv_meas x, largest;
	json_t *m;
	json_array_foreach(measurements, i, m) {
		nbw_rv_meas_read(NULL, m, &x);
		if (x.converged < 0)
			continue;
		total++;
		if (x.converged)
			continue;
		/* The largest size that did not converge, a P2P one before others. */
		bool p2p = strcmp(x.direction, "p2p") == 0;
		bool lp2p = n && strcmp(largest.direction, "p2p") == 0;
		if (!n || x.bytes > largest.bytes || (x.bytes == largest.bytes && p2p && !lp2p))
			largest = x;
		n++;
		count_stop(&w, x.stop);
	}
	if (!n)
		return false;
	char name[160], why[200];
	point_name(&largest, name, sizeof(name));
	stops_text(&w, why, sizeof(why));
	snprintf(out, len,
		 "%zu of %zu measurements did not converge (the 95 %% interval of their median time "
		 "not within +-1 %%; their figures are less sure): %s; the largest: %s",
		 n, total, why, name);
	return true;
}

/* The key of a point apart from its hidden-helper count. */
static void hh_key(const struct nbw_rv_meas *x, char *out, size_t len)
{
	snprintf(out, len, "%s|%s|%s|%s|%s|%lld", x->probe, x->mode, x->host_mem, x->concurrency,
		 x->path, x->bytes);
}

static void time_text(double s, char *out, size_t len)
{
	if (s >= 1e-3)
		snprintf(out, len, "%.3g ms", s * 1e3);
	else
		snprintf(out, len, "%.3g us", s * 1e6);
}

bool nbw_findings_hidden_helpers(json_t *measurements, char *out, size_t len)
{
	size_t i;
	json_t *m;
	struct nbw_rv_meas a, b, sa, sb;
	double best = 0.0;
	size_t pairs = 0, slower = 0;
	char key[512];
	/* The main series' OpenMP points by key; each sweep point against its own. */
	json_t *main_pts = json_object();
	json_array_foreach(measurements, i, m) {
		nbw_rv_meas_read(NULL, m, &a);
		if (strcmp(a.api, "omp") == 0 && !a.hht_sweep[0] && !a.plane_sweep) {
			hh_key(&a, key, sizeof(key));
			json_object_set(main_pts, key, m);
		}
	}
	json_array_foreach(measurements, i, m) {
		nbw_rv_meas_read(NULL, m, &a);
		if (strcmp(a.api, "omp") || !a.hht_sweep[0])
			continue;
		hh_key(&a, key, sizeof(key));
		if (!nbw_rv_meas_read(NULL, json_object_get(main_pts, key), &b) ||
		    b.hidden_helpers == a.hidden_helpers)
			continue;
		double r = a.seconds > b.seconds ? a.seconds / b.seconds : b.seconds / a.seconds;
		pairs += isfinite(r);
		slower += isfinite(r) && r >= 2.0;
		if (isfinite(r) && r > best) {
			best = r;
			sa = a;
			sb = b;
		}
	}
	/* Only a difference the repetitions cannot explain: twice or more. */
	if (best < 2.0) {
		json_decref(main_pts);
		return false;
	}
	const struct nbw_rv_meas *slow = sa.seconds > sb.seconds ? &sa : &sb;
	const struct nbw_rv_meas *fast = slow == &sa ? &sb : &sa;
	char name[160], ts[32], tf[32];
	point_name(slow, name, sizeof(name));
	time_text(slow->seconds, ts, sizeof(ts));
	time_text(fast->seconds, tf, sizeof(tf));
	snprintf(out, len,
		 "hidden helpers: %s copies took %s with %d hidden helper threads against %s with "
		 "%d (%.0fx; median times); %zu of the %zu points of the hidden-helper sweep "
		 "differ 2x or more from the main series",
		 name, ts, slow->hidden_helpers, tf, fast->hidden_helpers, best, slower, pairs);
	json_decref(main_pts);
	return true;
}

bool nbw_findings_kernel_vs_copy(json_t *kc, char *out, size_t len)
{
	json_t *s;
	size_t i, w = 0;
	if (len)
		out[0] = '\0';
	json_array_foreach(json_object_get(kc, "summary"), i, s) {
		char sm[24] = "n/m", lg[24] = "n/m";
		json_t *a = json_object_get(json_object_get(s, "small_band"), "median_ratio");
		json_t *b = json_object_get(json_object_get(s, "large_band"), "median_ratio");
		if (json_is_number(a))
			snprintf(sm, sizeof(sm), "%.2fx", json_number_value(a));
		if (json_is_number(b))
			snprintf(lg, sizeof(lg), "%.2fx", json_number_value(b));
		if (w == 0 && len)
			w += (size_t)snprintf(out, len,
					      "kernel copy vs the API's sync copy (median ratio "
					      "kernel / copy, > 1 = kernel faster, sizes <= 64 KiB / "
					      ">= 1 MiB; nodebw gap has every row):");
		if (w < len)
			w += (size_t)snprintf(out + w, len - w, "%s %s %s %s %s / %s", i ? ";" : "",
					      json_string_value(json_object_get(s, "api")),
					      json_string_value(json_object_get(s, "direction")),
					      json_string_value(json_object_get(s, "host_mem")), sm, lg);
	}
	return w > 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/** \file
 * \brief The application model (doc/model.md, "The application model"): the step time of
 * an application (include/nodebw/app.h) on G devices of this node, from the calibration's
 * probes and one-device runs and the application's description only.
 *
 * For the busiest device (the largest local box with the most neighbours), per step:
 *   compute  the local box's interior points x the one-device cost per point (the
 *            calibration's one-device run of that box and radius with nodebw-heat as the
 *            proxy, else the nearest one-device run; or the user's own seconds per step of
 *            a box, scaled by points; or seconds per point), times what G devices at once
 *            cost against one (the co-run probe, else the device kind's rule);
 *   exchange per face with a neighbour, one message of face elements x radius x fields x
 *            element_bytes bytes: on the host-staged path DtoH + HtoD, on the device path
 *            P2P, at the time the calibration's face probe measured for that shape and
 *            method, else the contiguous transfer curves at those bytes (strided faces
 *            then not measured: a warning); pack adds a pack and an unpack kernel per face;
 *   launch   the launch probe's per-device step (kernels, task wait and barrier);
 *   overlap  boundary + max(interior, exchange) where the devices run asynchronous work
 *            beside the host thread, else compute + exchange.
 * The paper's Versions 1-4 are the case decomp 1x1xG, radius 1, one field of 8 bytes:
 * nbw_app_predict hands them to the one-device model, whose compute and plane bytes are
 * nbw_app_box_compute_s and nbw_app_face_bytes and whose step nbw_app_step_s.
 */
#ifndef NODEBW_APP_MODEL_H
#define NODEBW_APP_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "nodebw/app.h"
#include "nodebw/model.h"

#define NBW_APP_MAX_DECOMPS 64
/** The time cap per series (--max-time, seconds) of the face probes nodebw measures an
 *  application's halo messages with (nodebw run's validation, predict --measure): the quick
 *  profile's cap is too short for the few-millisecond steps of a rectangular exchange on
 *  host-plugin devices to repeat often enough for a stable median. */
#define NBW_APP_FACES_MAX_TIME "0.25"

/** One predicted configuration of an application on G devices. */
struct nbw_app_pred {
	int g;
	int decomp[3];
	enum nbw_app_exchange exchange;
	enum nbw_app_copy copy;
	bool overlap;             /**< asked for and possible on these devices */
	long box[3];              /**< the busiest device's local box (ghosts included) */
	long interior[3];         /**< its interior points per axis */
	int neighbours;           /**< its faces with a neighbour (messages sent per step) */
	double face_bytes[3];     /**< one message on each split axis (0: not split) */
	double compute_s;         /**< per step, G devices at once */
	double boundary_s;        /**< per step: the part within radius of a shared face */
	double exchange_s;        /**< per step */
	double launch_s;          /**< per step */
	double concurrency;       /**< compute of G devices at once / one device alone */
	double step_s, total_s;
	const char *dominant;     /**< "compute", "exchange" or "launch" */
	bool paper_version;       /**< the one-device model of a paper Version made it */
	char version[4];          /**< that version ("v1".."v4"), else "" */
	bool box_measured;        /**< the compute came from a run of exactly this box */
	bool faces_measured;      /**< every face's time came from a face probe of its shape */
	bool faces_nearest;       /**< a face's time came from the nearest measured shape */
	bool strided_unmeasured;  /**< a strided (x or y) face took the contiguous curves */
	bool exchange_probed;     /**< the exchange came from the concurrent exchange probe of
				   *   exactly this decomposition, box, method and path */
	bool exchange_fields;     /**< ... measured with the app's fields (else one field's
				   *   probe x fields) */
	bool corun_measured;      /**< the compute came from the co-run of exactly this box on
				   *   G devices */
	char compute_from[200];
	char exchange_from[400];
};

/** The interior points of \p box (ghost layer \p radius on each side). */
double nbw_app_box_points(const long box[3], int radius);
/** Bytes of one halo message of a face of \p face_elements elements. */
double nbw_app_face_bytes(double face_elements, int radius, int fields, int element_bytes);
/** The compute of one device's local box: \p k seconds per interior point and step. */
double nbw_app_box_compute_s(double k, const long box[3], int radius);
/** One step from its terms: with \p overlap, boundary + max(compute - boundary, exchange),
 *  else compute + exchange; plus \p launch. */
double nbw_app_step_s(bool overlap, double compute, double boundary, double exchange,
		      double launch);

/** The decompositions px x py x pz = \p g that fit \p a's grid (nbw_app_decomp_fits), the
 *  app's own when it fixes one; their count (0: none fits). */
int nbw_app_decomps(const struct nbw_app *a, int g, int out[][3], int max);

/** Predict \p a on \p decomp (product G) with \p exchange and \p copy (the app's own, or an
 *  alternative the recommendation weighs) from \p c. 0, or -1 with \p why. */
int nbw_app_predict(const struct nbw_calib *c, const struct nbw_app *a, const int decomp[3],
		    enum nbw_app_exchange exchange, enum nbw_app_copy copy,
		    struct nbw_app_pred *out, char *why, size_t whylen);

/** The `nodebw probe --faces` argument that measures \p p's faces: "NXxNYxNZ:R:E". */
void nbw_app_faces_arg(const struct nbw_app *a, const struct nbw_app_pred *p, char *buf,
		       size_t len);

#endif

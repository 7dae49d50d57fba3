/* SPDX-License-Identifier: BSD-3-Clause */
/** \file
 * \brief An application description (schema "nodebw-app", version 1): the user's stencil
 * code as the application model and `nodebw heat --app` see it (doc/model.md,
 * doc/app.schema.json, examples in doc/examples/app-*.json).
 *
 * The grid counts every point, the Dirichlet boundary layer of depth `radius` on each side
 * included (as `nodebw heat --nx --ny --nz`): the (n - 2 radius) interior points of each
 * axis are split over that axis's devices, the first (n - 2 radius) mod p devices taking one
 * more. A device holds its interior points and a ghost layer of depth `radius` on each
 * side: its local box (nbw_app_local_box) is the box a one-device run updates exactly the
 * same points of.
 */
#ifndef NODEBW_APP_H
#define NODEBW_APP_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#define NBW_APP_SCHEMA "nodebw-app"
#define NBW_APP_VERSION 1
#define NBW_APP_MAX_RADIUS 4
#define NBW_APP_MAX_FIELDS 16
#define NBW_APP_MAX_SIDE 100000L
#define NBW_APP_MAX_STEPS 100000000L

/** How a halo travels between two devices. */
enum nbw_app_exchange {
	NBW_APP_HOST_STAGED, /**< device -> host buffer -> neighbour ("host-staged") */
	NBW_APP_DEVICE,      /**< device -> device, as the API routes it ("device") */
};

/** How a face is copied. */
enum nbw_app_copy {
	NBW_APP_RECT, /**< the API's rectangular (strided) copy ("rect") */
	NBW_APP_PACK, /**< kernel pack -> contiguous copy -> kernel unpack ("pack") */
};

/** What the compute of one step costs, as the user knows it. */
enum nbw_app_compute {
	NBW_APP_COMPUTE_KERNEL,	   /**< {"kernel": "nodebw-heat"}: nodebw's stencil of that
				    *   radius, measured on this node, as a proxy */
	NBW_APP_COMPUTE_SUBDOMAIN, /**< {"seconds_per_step": s, "box": [x, y, z]}: the user's
				    *   own one-device measurement of a local box */
	NBW_APP_COMPUTE_POINT,	   /**< {"seconds_per_point": s}: per updated point per step */
};

struct nbw_app {
	char name[64];		/**< "name", optional ("" when absent) */
	long grid[3];		/**< "grid": [nx, ny, nz], boundary included */
	int decomp[3];		/**< "decomp": [px, py, pz]; all 0 when left open */
	int radius;		/**< "radius": halo depth, 1..NBW_APP_MAX_RADIUS */
	int fields;		/**< "fields": exchanged per step, 1..NBW_APP_MAX_FIELDS */
	int element_bytes;	/**< "element_bytes": 1, 2, 4, 8 or 16 */
	enum nbw_app_exchange exchange; /**< "exchange": "host-staged" | "device" */
	enum nbw_app_copy copy;	/**< "copy": "rect" | "pack" */
	bool overlap;		/**< "overlap": interior compute overlapped with the exchange */
	long steps;		/**< "steps" */
	enum nbw_app_compute compute;
	double compute_seconds;	/**< per step (SUBDOMAIN) or per point (POINT); 0 for KERNEL */
	long compute_box[3];	/**< SUBDOMAIN: the local box it was measured on */
};

/** Read and check an application description; 0, or -1 with one line in \p err naming the
 *  file, the line and column where known, the field and what is wrong (an unknown key, a
 *  wrong type or a value out of range is an error). */
int nbw_app_load(const char *path, struct nbw_app *out, char *err, size_t errlen);
/** The same from a parsed document; \p where names it in errors. */
int nbw_app_from_json(json_t *root, const char *where, struct nbw_app *out, char *err,
		      size_t errlen);
/** The description as a document of the same schema (for records); new reference. */
json_t *nbw_app_to_json(const struct nbw_app *a);

static inline bool nbw_app_decomp_open(const struct nbw_app *a)
{
	return a->decomp[0] == 0;
}
/** Is \p decomp a possible split of \p a's grid (every device at least radius interior
 *  points along each split axis)? */
bool nbw_app_decomp_fits(const struct nbw_app *a, const int decomp[3]);
/** The interior points device \p idx (its position in the device grid) updates along each
 *  axis, and its local box (those + 2 radius per axis). */
void nbw_app_local_box(const struct nbw_app *a, const int decomp[3], const int idx[3],
		       long interior[3], long box[3]);
/** "host-staged"/"device", "rect"/"pack". */
const char *nbw_app_exchange_name(enum nbw_app_exchange e);
const char *nbw_app_copy_name(enum nbw_app_copy c);

#endif

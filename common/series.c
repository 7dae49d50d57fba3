/* SPDX-License-Identifier: BSD-3-Clause */
/* The table of series kinds (include/nodebw/series.h). */
#include "nodebw/series.h"

#include <string.h>

#define ONE_COPY                                                                           \
	"bytes = size of one transfer, counted once (read at the source, written at the "    \
	"destination); GB/s = bytes / duration of one transfer / 1e9"

#define TWO_DEVICES                                                                        \
	"aggregate GB/s = 2 x size / wall time from the earliest start to the latest end of "   \
	"the two transfers; per device = size / that thread's time"

#define EVERY_DEVICE                                                                       \
	"aggregate GB/s = number of devices x size / wall time from the earliest start to the " \
	"latest end of all transfers; per device = size / that thread's time"

#define FACE_BYTES                                                                         \
	"bytes = the face's elements x element bytes (the face copied, not the box), counted " \
	"once; GB/s = bytes / duration of one face copy (pack and unpack included for the " \
	"pack method) / 1e9"

#define EXCHANGE_BYTES                                                                     \
	"bytes per step = the sum over every message of its face's elements x element bytes; " \
	"GB/s = bytes per step / wall time of the step from the earliest start to the latest " \
	"end of all messages / 1e9; per message = its face bytes / that thread's time"

static const struct nbw_series_kind kinds[] = {
	{ NBW_HTOD, NBW_CONC_SINGLE, NBW_THREADS_1, 1, "single", "one device, one host thread",
	  ONE_COPY },
	{ NBW_HTOD, NBW_CONC_DUAL, NBW_THREADS_2, 2, "dual",
	  "two devices, two host threads at once",
	  TWO_DEVICES },
	{ NBW_HTOD, NBW_CONC_ALL, NBW_THREADS_ALL, 2, "host-to-all",
	  "host to every device at once, one host thread per device",
	  EVERY_DEVICE },
	{ NBW_DTOH, NBW_CONC_SINGLE, NBW_THREADS_1, 1, "single", "one device, one host thread",
	  ONE_COPY },
	{ NBW_DTOH, NBW_CONC_DUAL, NBW_THREADS_2, 2, "dual",
	  "two devices, two host threads at once",
	  TWO_DEVICES },
	{ NBW_DTOH, NBW_CONC_ALL, NBW_THREADS_ALL, 2, "all-to-host",
	  "every device to the host at once, one host thread per device",
	  EVERY_DEVICE },
	{ NBW_P2P, NBW_CONC_SINGLE, NBW_THREADS_1, 1, "single",
	  "one pair, one direction, one host thread (a same-device copy when there is one "
	  "device)",
	  ONE_COPY },
	{ NBW_P2P, NBW_CONC_BIDIR, NBW_THREADS_2, 2, "bidir",
	  "both directions of a pair at once, two host threads",
	  "aggregate GB/s = 2 x size (both directions) / wall time from the earliest start to "
	  "the latest end; per direction = size / that thread's time" },
	{ NBW_P2P, NBW_CONC_RING, NBW_THREADS_ALL, 3, "ring",
	  "every device sends to its ring neighbour (i -> i+1 mod n) at once, one host thread "
	  "per device",
	  "aggregate GB/s = number of devices x size / wall time from the earliest start to the "
	  "latest end of all transfers; per pair = size / that thread's time" },
	{ NBW_P2P, NBW_CONC_A2A, NBW_THREADS_ALL, 2, "all-to-all",
	  "every ordered pair of devices at once (n(n-1) copies, each from its own host "
	  "thread; the first " NBW_A2A_MAX_DEVICES_STR " devices)",
	  "aggregate GB/s = n(n-1) x size (every ordered pair's copy counted once) / wall time "
	  "from the earliest start to the latest end of all transfers; per pair = size / that "
	  "thread's time" },
	/* The face probes (--faces, include/nodebw/face.h): planned by probe/plan_faces.c only. */
	{ NBW_HTOD, NBW_CONC_FACE, NBW_THREADS_1, 1, "face",
	  "one face of a box, host box to device box, one host thread", FACE_BYTES },
	{ NBW_DTOH, NBW_CONC_FACE, NBW_THREADS_1, 1, "face",
	  "one face of a box, device box to host box, one host thread", FACE_BYTES },
	{ NBW_P2P, NBW_CONC_FACE, NBW_THREADS_1, 1, "face",
	  "one face of a box, device box to device box, one host thread (a same-device copy "
	  "when there is one device)",
	  FACE_BYTES },
	{ NBW_P2P, NBW_CONC_XLINE, NBW_THREADS_ALL, 2, "exchange-line",
	  "neighbour exchange of a line of devices: every device sends its z-faces to both "
	  "neighbours at once, one host thread per message",
	  EXCHANGE_BYTES },
	{ NBW_P2P, NBW_CONC_XGRID, NBW_THREADS_ALL, 4, "exchange-grid",
	  "neighbour exchange of a 2 x G/2 grid of devices: z-faces along the rows, y-faces "
	  "between the two rows, every message at once, one host thread per message",
	  EXCHANGE_BYTES },
	{ NBW_P2P, NBW_CONC_XDECOMP, NBW_THREADS_ALL, 2, "exchange-decomp",
	  "neighbour exchange of a PX x PY x PZ decomposition (--faces-decomp; device d at x = d % "
	  "PX, y = (d / PX) % PY, z = d / (PX PY)): each neighbour pair exchanges its faces both "
	  "ways (x-faces between x neighbours, ...), device to device or staged through a host "
	  "box, every message at once: issued by the backend as an application issues it (a host "
	  "thread per sending device, each message once per field, --faces-fields) where it can, "
	  "else one host thread per message",
	  "bytes per step = the sum over every message of its face's elements x element bytes, "
	  "times the fields; GB/s = bytes per step / wall time of the step from its start to the "
	  "end of all messages / 1e9; per message = its face bytes / the step's time" },
};

static const char *const thread_words[NBW_THREADS_COUNT] = { "1", "2", "all" };

const struct nbw_series_kind *nbw_series_kinds(size_t *n)
{
	*n = sizeof(kinds) / sizeof(kinds[0]);
	return kinds;
}

const struct nbw_series_kind *nbw_series_kind_of(enum nbw_dir dir, enum nbw_threads t)
{
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (kinds[i].dir == dir && kinds[i].threads == t)
			return &kinds[i];
	return NULL;
}

const struct nbw_series_kind *nbw_series_kind_find(enum nbw_dir dir, enum nbw_conc conc)
{
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (kinds[i].dir == dir && kinds[i].conc == conc)
			return &kinds[i];
	return NULL;
}

const char *nbw_threads_name(enum nbw_threads t)
{
	return (unsigned)t < NBW_THREADS_COUNT ? thread_words[t] : "?";
}

int nbw_threads_parse(const char *s)
{
	for (int i = 0; s && i < NBW_THREADS_COUNT; i++)
		if (strcmp(thread_words[i], s) == 0)
			return i;
	return -1;
}

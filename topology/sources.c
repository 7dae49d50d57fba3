/* SPDX-License-Identifier: BSD-3-Clause */
/* The topology's sources, in the order topo.c runs them; each file defines its own
 * operations (struct topo_source_ops, topo_int.h), as each backend does. */
#include <stddef.h>

#include "topo_int.h"

const struct topo_source_ops *const topo_sources[] = {
	&topo_source_sysfs_pci,
	&topo_source_hwloc_pci,
	&topo_source_hwloc_gpu,
	&topo_source_nvml,
	&topo_source_rocm,
	&topo_source_ze,
	NULL,
};

/* SPDX-License-Identifier: BSD-3-Clause */
/* A fake libnvidia-ml.so.1 for the link-health reading of topology/nvml.c: two GPUs,
 * 0000:e1:00.0 with 4 NVLinks to the other (link 2 down, error counters 10 x link + counter,
 * 81 PCIe replays) and 0000:e2:00.0 with 4 links up, no errors, 3 replays. Only the entry
 * points nvml.c resolves; the values are what tests/topology/check-topo-nvml.sh expects. */
#include <stdio.h>
#include <string.h>

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef struct {
	char busIdLegacy[16];
	unsigned domain, bus, device, pciDeviceId, pciSubSystemId;
	char busId[32];
} nvml_pci_info;

/* the entry points, as NVML declares them */
nvmlReturn_t nvmlInit_v2(void);
nvmlReturn_t nvmlShutdown(void);
const char *nvmlErrorString(nvmlReturn_t rc);
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned *n);
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned i, nvmlDevice_t *h);
nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t h, nvml_pci_info *p);
nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t h, char *name, unsigned len);
nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t h, unsigned l, int *state);
nvmlReturn_t nvmlDeviceGetNvLinkVersion(nvmlDevice_t h, unsigned l, unsigned *v);
nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t h, unsigned l, nvml_pci_info *p);
nvmlReturn_t nvmlDeviceGetTopologyCommonAncestor(nvmlDevice_t a, nvmlDevice_t b, int *level);
nvmlReturn_t nvmlDeviceGetPcieReplayCounter(nvmlDevice_t h, unsigned *v);
nvmlReturn_t nvmlDeviceGetNvLinkErrorCounter(nvmlDevice_t h, unsigned l, int counter,
					     unsigned long long *v);

enum { OK = 0, INVALID_ARGUMENT = 2 };
enum { LINKS = 4 };

static char gpu[2]; /* handles: &gpu[0], &gpu[1] */

static int idx(nvmlDevice_t h)
{
	return (char *)h == &gpu[1];
}

nvmlReturn_t nvmlInit_v2(void) { return OK; }
nvmlReturn_t nvmlShutdown(void) { return OK; }
const char *nvmlErrorString(nvmlReturn_t rc) { return rc ? "fake error" : "success"; }

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned *n)
{
	*n = 2;
	return OK;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned i, nvmlDevice_t *h)
{
	if (i > 1)
		return INVALID_ARGUMENT;
	*h = (nvmlDevice_t)&gpu[i];
	return OK;
}

static void pci_of(int i, nvml_pci_info *p)
{
	memset(p, 0, sizeof(*p));
	p->bus = 0xe1 + (unsigned)i;
	p->pciDeviceId = 0x233010de;
	snprintf(p->busId, sizeof(p->busId), "00000000:%02X:00.0", p->bus);
	snprintf(p->busIdLegacy, sizeof(p->busIdLegacy), "0000:%02X:00.0", p->bus);
}

nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t h, nvml_pci_info *p)
{
	pci_of(idx(h), p);
	return OK;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t h, char *name, unsigned len)
{
	(void)h;
	snprintf(name, len, "NVIDIA H100 80GB HBM3");
	return OK;
}

nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t h, unsigned l, int *state)
{
	if (l >= LINKS)
		return INVALID_ARGUMENT;
	*state = !(idx(h) == 0 && l == 2);
	return OK;
}

nvmlReturn_t nvmlDeviceGetNvLinkVersion(nvmlDevice_t h, unsigned l, unsigned *v)
{
	(void)h;
	if (l >= LINKS)
		return INVALID_ARGUMENT;
	*v = 6; /* NVLink 4.0 */
	return OK;
}

nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t h, unsigned l, nvml_pci_info *p)
{
	if (l >= LINKS)
		return INVALID_ARGUMENT;
	pci_of(!idx(h), p);
	return OK;
}

nvmlReturn_t nvmlDeviceGetTopologyCommonAncestor(nvmlDevice_t a, nvmlDevice_t b, int *level)
{
	(void)a, (void)b;
	*level = 50; /* SYSTEM */
	return OK;
}

nvmlReturn_t nvmlDeviceGetPcieReplayCounter(nvmlDevice_t h, unsigned *v)
{
	*v = idx(h) ? 3 : 81;
	return OK;
}

nvmlReturn_t nvmlDeviceGetNvLinkErrorCounter(nvmlDevice_t h, unsigned l, int counter,
					     unsigned long long *v)
{
	if (l >= LINKS || counter < 0 || counter > 4)
		return INVALID_ARGUMENT;
	*v = idx(h) ? 0 : 10ULL * l + (unsigned)counter;
	return OK;
}

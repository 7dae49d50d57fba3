#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write a synthetic topology fixture with many GPUs, for the scaling test and bench:

    make-many-gpus.py OUT_DIR NGPUS

OUT_DIR/hwloc.xml, sys/ and links.json in the layout of tests/fixtures/topology (written with
make-synthetic.py's Machine): two sockets, GPUs in groups of 8 behind one PCIe switch each
(root port, switch upstream port, 8 downstream ports), 16 groups per PCI domain, and NVLink 4
links (x4) between the GPUs of each group, so the matrix has NV4, PIX, NODE and SYS pairs.
"""
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SPEC = importlib.util.spec_from_file_location(
    "synthetic", os.path.join(HERE, "..", "fixtures", "topology", "make-synthetic.py"))
syn = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(syn)


def group(domain, base):
    """A root port on bus base, a switch below it, 8 GPUs; returns the tree and bus ids."""
    bid = lambda bus, dev=0: "%04x:%02x:%02x.0" % (domain, bus, dev)
    gpus = [syn.gpu(bid(base + 3 + k), 0x030200, 0x10de, 0x2330, 32.0, 16)
            for k in range(8)]
    down = [syn.bridge(bid(base + 2, k), base + 3 + k, base + 3 + k, 32.0, 16, [gpus[k]])
            for k in range(8)]
    up = syn.bridge(bid(base + 1), base + 2, base + 10, 32.0, 16, down)
    rp = syn.bridge(bid(base, 1), base + 1, base + 10, 32.0, 16, [up])
    return [rp], [g["bus"] for g in gpus]


def main():
    out, n = sys.argv[1], int(sys.argv[2])
    parent, name = os.path.split(os.path.abspath(out))
    syn.HERE = parent
    m = syn.Machine(name, 2, 1, 4, 1, 64 << 30, "Synthetic CPU")
    devices, links = [], []
    for g in range((n + 7) // 8):
        domain, slot = divmod(g, 16)
        tree, buses = group(domain, 1 + slot * 12)
        m.pci_tree(g % 2, domain, 1 + slot * 12, tree)
        buses = buses[:n - 8 * g]
        for b in buses:
            devices.append({"bus_id": b, "name": "NVIDIA H100 80GB HBM3", "vendor": "nvidia",
                            "source": "nvml", "nvlink": {"version": 4, "switch_links": 0}})
        for i, a in enumerate(buses):
            for b in buses[i + 1:]:
                links.append({"a": a, "b": b, "type": "nvlink", "links": 4, "version": 4,
                              "source": "nvml"})
    m.write({"sources": {"nvml": "ok"}, "devices": devices, "links": links},
            "Synthetic node with %d GPUs (tests/topology/make-many-gpus.py)" % n)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The NVPTX device link's two checks, run by meson.

  nvptx.py toolkit --llvm-version V (--explicit DIR | DIR...)
      Prints the first CUDA toolkit folder whose ptxas/nvlink write device images that
      LLVM V's libomptarget can load; on stderr one line saying which and why. Exit 1 with
      one line naming the cause and the fix when there is none.

  nvptx.py images --llvm-version V --arch sm_XX [--arch ...] --stamp FILE LIB...
      Reads the ELF header of every NVPTX device image embedded in LIB (the cubins that
      clang-linker-wrapper wraps into the host library) and checks it as LLVM V's runtime
      will: exit 1 with one line naming the cause and the fix when the runtime could not
      load one; else one line per library and FILE written.

Why: CUDA 13's ptxas and nvlink write NVIDIA's new CUDA ELF ABI (EI_ABIVERSION 8, the SM
number in bits 8-15 of e_flags, no EF_CUDA_64BIT_ADDRESS bit). libomptarget reads it only
from LLVM 21 on (llvm-project issue 159088, PR 159354, backported to 21 by PR 159451);
LLVM 19 and 20 take the SM from bits 0-7 and require bit 0x400, so they reject such an
image ("Invalid CUDA addressing mode") and the process sees no GPU.
"""
import argparse
import os
import re
import struct
import subprocess
import sys

EM_CUDA = 190
EF_CUDA_SM = 0xFF
EF_CUDA_64BIT_ADDRESS = 0x400
FIX = ("configure with -Domp_cuda_path=DIR, a CUDA 11.8-12.x toolkit "
       "(scripts/cuda-nvptx-toolkit.sh installs CUDA 11.8's ptxas and nvlink into "
       "/opt/nodebw/cuda-nvptx)")


def llvm_major(text):
    m = re.match(r"(\d+)", text)
    if not m:
        raise SystemExit(f"nvptx.py: cannot read an LLVM version from '{text}'")
    return int(m.group(1))


def new_abi_ok(llvm):
    """Whether LLVM's libomptarget reads CUDA 13's ELF ABI."""
    return llvm >= 21


def cuda_release(folder):
    """(major, minor) of the toolkit's ptxas, or a reason string."""
    ptxas = os.path.join(folder, "bin", "ptxas")
    if not os.access(ptxas, os.X_OK):
        return f"{folder} has no bin/ptxas"
    for need in ("bin/nvlink", "nvvm/libdevice", "include"):
        if not os.path.exists(os.path.join(folder, need)):
            return f"{folder} lacks {need}, which clang's NVPTX link needs"
    try:
        out = subprocess.run([ptxas, "--version"], capture_output=True, text=True,
                             timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"{ptxas} --version failed: {e}"
    m = re.search(r"release (\d+)\.(\d+)", out)
    if not m:
        return f"{ptxas} --version names no release"
    return int(m.group(1)), int(m.group(2))


def choose(args):
    llvm = llvm_major(args.llvm_version)
    folders = [args.explicit] if args.explicit else args.folders
    seen = []
    for f in folders:
        rel = cuda_release(f)
        if isinstance(rel, str):
            if args.explicit:
                sys.exit(f"OpenMP offload to NVIDIA GPUs: -Domp_cuda_path: {rel}")
            continue
        text = f"{f} (CUDA {rel[0]}.{rel[1]})"
        if rel[0] >= 13 and not new_abi_ok(llvm):
            seen.append(text)
            if args.explicit:
                sys.exit(f"OpenMP offload to NVIDIA GPUs: {text} writes CUDA 13's device "
                         f"ELF ABI, which LLVM {llvm}'s libomptarget cannot load "
                         f"(llvm-project#159088); {FIX}")
            continue
        print(f)
        print(f"ptxas and nvlink of {text}; LLVM {llvm}'s runtime loads their images",
              file=sys.stderr)
        return
    found = (f"found only {', '.join(seen)}, whose device ELF ABI LLVM {llvm}'s libomptarget "
             f"cannot load (llvm-project#159088)" if seen else
             f"no CUDA toolkit in {', '.join(folders)}")
    sys.exit(f"OpenMP offload to NVIDIA GPUs: {found}; {FIX}")


def cuda_images(blob):
    """(offset, abiversion, e_flags) of every 64-bit EM_CUDA ELF header in blob."""
    at = blob.find(b"\x7fELF")
    while at >= 0:
        hdr = blob[at:at + 64]
        if len(hdr) == 64 and hdr[4] == 2 and hdr[5] == 1:
            machine, = struct.unpack_from("<H", hdr, 18)
            if machine == EM_CUDA:
                flags, = struct.unpack_from("<I", hdr, 48)
                yield at, hdr[8], flags
        at = blob.find(b"\x7fELF", at + 1)


def image_sm(abiver, flags, llvm):
    """The SM number LLVM's runtime reads from the image, or None when it rejects it."""
    if flags & EF_CUDA_64BIT_ADDRESS and flags & EF_CUDA_SM >= 35:
        return flags & EF_CUDA_SM  # the encoding of CUDA <= 12
    if new_abi_ok(llvm) and abiver >= 8:
        return (flags >> 8) & 0xFF
    return None


def check_images(args):
    llvm = llvm_major(args.llvm_version)
    want = sorted({int(a[3:]) for a in args.arch})
    lines = []
    for lib in args.libs:
        name = os.path.basename(lib)
        with open(lib, "rb") as f:
            images = list(cuda_images(f.read()))
        if not images:
            sys.exit(f"{name}: no NVPTX device image embedded (built for "
                     f"{','.join(args.arch)}); meson-logs/meson-log.txt has the link line")
        got = set()
        for at, abiver, flags in images:
            sm = image_sm(abiver, flags, llvm)
            if sm is None:
                sys.exit(f"{name}: the device image at byte {at} has CUDA 13's ELF ABI "
                         f"(EI_ABIVERSION {abiver}, e_flags {flags:#x}), which LLVM {llvm}'s "
                         f"libomptarget cannot load (llvm-project#159088: no GPU at run "
                         f"time); {FIX}")
            got.add(sm)
        missing = [s for s in want if s not in got]
        if missing:
            sys.exit(f"{name}: no device image for sm_{missing[0]} (images for "
                     f"{', '.join(f'sm_{s}' for s in sorted(got))})")
        flags = ", ".join(f"{fl:#x}" for _, _, fl in images)
        lines.append(f"{name}: {len(images)} NVPTX image(s) for "
                     f"{', '.join(f'sm_{s}' for s in sorted(got))}, e_flags {flags}: "
                     f"LLVM {llvm}'s libomptarget loads them")
    text = "\n".join(lines) + "\n"
    print(text, end="")
    tmp = args.stamp + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, args.stamp)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("toolkit")
    t.add_argument("--llvm-version", required=True)
    t.add_argument("--explicit")
    t.add_argument("folders", nargs="*")
    t.set_defaults(run=choose)
    i = sub.add_parser("images")
    i.add_argument("--llvm-version", required=True)
    i.add_argument("--arch", action="append", required=True)
    i.add_argument("--stamp", required=True)
    i.add_argument("libs", nargs="+")
    i.set_defaults(run=check_images)
    args = p.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Embed a text file in C, run by meson at build time.

  embed_text.py NAME INPUT OUTPUT

Writes OUTPUT, a header that defines `static const char NAME[]` holding INPUT's text
(NUL-terminated, as cuModuleLoadDataEx wants PTX). Used for the CUDA backend's PTX
(bw_native/cuda_kernels.ptx), so that the PTX stays a file ptxas can check by itself.
Exit 2 with one line when INPUT cannot be read or is not ASCII text.
"""
import sys


def main():
    if len(sys.argv) != 4:
        print("usage: embed_text.py NAME INPUT OUTPUT", file=sys.stderr)
        return 2
    name, src, dst = sys.argv[1:]
    try:
        with open(src, "rb") as f:
            data = f.read()
        text = data.decode("ascii")
    except (OSError, UnicodeDecodeError) as e:
        print(f"embed_text.py: {src}: {e}", file=sys.stderr)
        return 2
    if "\0" in text:
        print(f"embed_text.py: {src}: has a NUL byte", file=sys.stderr)
        return 2
    out = [f"/* Generated from {src.rsplit('/', 1)[-1]} by meson/embed_text.py: do not edit. */",
           f"static const char {name}[] ="]
    for line in text.splitlines():
        esc = line.replace("\\", "\\\\").replace('"', '\\"').replace("\t", "\\t")
        out.append(f'\t"{esc}\\n"')
    out[-1] += ";" if len(out) > 2 else ""
    if len(out) == 2:
        out.append('\t"";')
    with open(dst, "w") as f:
        f.write("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

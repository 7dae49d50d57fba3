# SPDX-License-Identifier: BSD-3-Clause
"""What the lint scripts share: TAP lines and the C sources of the tree."""
import os
import subprocess


class Tap:
    """Numbered TAP lines; failed counts the 'not ok' ones."""

    def __init__(self):
        self.n = 0
        self.failed = 0

    def __call__(self, ok, desc, detail=(), always=False):
        """One line; the detail lines follow a failure (and a pass with always)."""
        self.n += 1
        print(("ok" if ok else "not ok") + f" {self.n} - {desc}")
        if not ok:
            self.failed += 1
        if not ok or always:
            for line in detail:
                print("#   " + line)


def c_sources(root):
    """The tree's .c files, relative to root: git's list, else a walk without build/."""
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "*.c"], capture_output=True,
                             text=True, check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        out = []
        for d, _, files in os.walk(root):
            if "/build" in d or "/." in d:
                continue
            out += [os.path.relpath(os.path.join(d, f), root) for f in files if f.endswith(".c")]
    return sorted(out)

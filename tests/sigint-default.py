# SPDX-License-Identifier: BSD-3-Clause
"""Run a command with SIGINT at its default action.

A non-interactive shell starts a background job ('cmd &') with SIGINT ignored (POSIX), and
nodebw keeps a signal that was ignored when it started ignored, as under nohup. Tests that
stand in for Ctrl-C start nodebw through this:  python3 sigint-default.py CMD ARGS...
"""
import os
import signal
import sys

signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])

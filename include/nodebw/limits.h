// SPDX-License-Identifier: BSD-3-Clause
/** \file
 * \brief What an integer may be, by what it means: one place for the bounds that the
 * command lines and the file readers check (a value outside is refused with one line, never
 * wrapped or truncated into an int).
 */
#ifndef NODEBW_LIMITS_H
#define NODEBW_LIMITS_H

/** Devices of one node nodebw measures or a model predicts for (also G, the solver's
 *  device count). */
#define NBW_MAX_DEVICES 64
/** The largest side of a solver grid, N of N^3 or nx, ny, nz (1e15 points: 8 PB a field). */
#define NBW_GRID_MAX_SIDE 100000
/** The most time steps of a solver run or a prediction. */
#define NBW_STEPS_MAX 1000000000
/** The most timed repetitions of one probe size (--reps, --max-reps). */
#define NBW_REPS_MAX 1000000
/** Hidden helper threads: 0 to this (-1 where a file says "the runtime's default"). */
#define NBW_HH_MAX 64

#endif

// SPDX-License-Identifier: BSD-3-Clause
/** \file
 * \brief The OpenMP host offload plugin's loaded images, removed from /tmp.
 *
 * LLVM 19's host plugin (libomptarget.rtl.host / the x86_64 plugin) writes every device
 * image it loads to a file made with mkstemp("/tmp/tmpfile_XXXXXX"), dlopens it and never
 * removes it: each device of each process leaves one file per offload image (a `nodebw list`
 * left 8, 16-57 KB each). Once dlopen has mapped the file, its name is no longer needed: the
 * mapping keeps the inode alive until the process ends. This unlinks exactly the files the
 * calling process has mapped under that name (the path, device and inode of
 * /proc/self/maps must match the file still found there), never another process's.
 */
#ifndef NODEBW_PLUGIN_IMAGES_H
#define NODEBW_PLUGIN_IMAGES_H

/** The prefix the plugin gives its image files. */
#define NBW_PLUGIN_IMAGE_PREFIX "/tmp/tmpfile_"

/** Unlink the plugin image files this process has mapped. Returns how many were removed,
 * or -1 when /proc/self/maps cannot be read (nothing is removed then). Safe to call at any
 * time and more than once; async-signal-unsafe (stdio). */
int nbw_unlink_plugin_images(void);

/** Call right after dlopen of an offload library: unlinks the images loaded so far and has
 * the images loaded later unlinked at exit, before libomptarget's own exit handlers (which
 * were registered by that dlopen, after main()'s) unload them from /proc/self/maps. Once
 * per process whatever the calls. */
void nbw_plugin_images_after_dlopen(void);

#endif

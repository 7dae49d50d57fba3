// SPDX-License-Identifier: BSD-3-Clause
/* Removing the host offload plugin's image files once mapped (include/nodebw/plugin_images.h). */
#include "nodebw/plugin_images.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* The plugin's name is the prefix and exactly six mkstemp characters. */
static int is_image_name(const char *p)
{
	size_t lp = strlen(NBW_PLUGIN_IMAGE_PREFIX);
	if (strncmp(p, NBW_PLUGIN_IMAGE_PREFIX, lp) != 0 || strlen(p + lp) != 6)
		return 0;
	for (const char *c = p + lp; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9')))
			return 0;
	return 1;
}

int nbw_unlink_plugin_images(void)
{
	FILE *f = fopen("/proc/self/maps", "re");
	if (!f)
		return -1;
	char *line = NULL;
	size_t cap = 0;
	int removed = 0;
	while (getline(&line, &cap, f) > 0) {
		/* address perms offset dev(major:minor) inode path */
		unsigned maj, min;
		uintmax_t ino;
		int at = 0;
		if (sscanf(line, "%*s %*s %*s %x:%x %ju %n", &maj, &min, &ino, &at) != 3 || !at)
			continue;
		char *path = line + at;
		path[strcspn(path, "\n")] = '\0';
		if (!is_image_name(path))
			continue; /* also skips "... (deleted)": already gone */
		struct stat st;
		if (lstat(path, &st) || !S_ISREG(st.st_mode) || (uintmax_t)st.st_ino != ino ||
		    major(st.st_dev) != maj || minor(st.st_dev) != min)
			continue; /* the name now belongs to another file */
		if (unlink(path) == 0)
			removed++;
	}
	free(line);
	fclose(f);
	return removed;
}

static void unlink_at_exit(void)
{
	nbw_unlink_plugin_images();
}

static void register_at_exit(void)
{
	atexit(unlink_at_exit);
}

void nbw_plugin_images_after_dlopen(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	nbw_unlink_plugin_images();
	pthread_once(&once, register_at_exit);
}

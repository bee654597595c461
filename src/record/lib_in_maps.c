// SPDX-License-Identifier: GPL-2.0
/* A library found in a process's mappings, and a path to open it by (attach_internal.h). */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "record/attach_internal.h"

static bool name_matches_lib(const char *base, const char *lib)
{
	size_t n = strlen(lib);

	/* "libc.so.6" exactly, or "libc" matching "libc.so.6" / "libc-2.36.so". */
	return strcmp(base, lib) == 0 ||
	       (strncmp(base, lib, n) == 0 && (base[n] == '.' || base[n] == '-'));
}

/* Find a library by name in a process's executable mappings. */
bool attach_find_in_maps(uint32_t pid, const char *lib, char *out, size_t outlen)
{
	char fname[64], line[PATH_MAX + 128];
	bool found = false;
	struct stat st;
	FILE *f;

	if (pid)
		snprintf(fname, sizeof(fname), "/proc/%u/maps", pid);
	else
		snprintf(fname, sizeof(fname), "/proc/self/maps");
	f = fopen(fname, "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char *path = strchr(line, '/');
		unsigned long long ino = 0;
		const char *base;

		if (!path)
			continue;
		path[strcspn(path, "\n")] = '\0';
		base = strrchr(path, '/') + 1;
		if (!name_matches_lib(base, lib))
			continue;
		found = true;
		/* start-end perms offset dev inode: the file's inode, to check a path by */
		if (sscanf(line, "%*s %*s %*s %*s %llu", &ino) != 1)
			ino = 0;
		if (!pid) {
			snprintf(out, outlen, "%s", path);
			break;
		}
		/*
		 * The path is as the reader sees it: from a container's root
		 * when that root is its own mount (pivot_root), from ours when
		 * it is a directory of ours (chroot, unshare --root).  Neither:
		 * the mapping itself (root may open it).
		 */
		snprintf(out, outlen, "/proc/%u/root%s", pid, path);
		if (stat(out, &st) == 0 && st.st_ino == ino)
			break;
		snprintf(out, outlen, "%s", path);
		if (stat(out, &st) == 0 && st.st_ino == ino)
			break;
		snprintf(out, outlen, "/proc/%u/map_files/%.*s", pid, (int)strcspn(line, " "), line);
	}
	fclose(f);
	return found;
}


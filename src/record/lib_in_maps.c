// SPDX-License-Identifier: GPL-2.0
/* A library found in a process's mappings, and a path to open it by (attach_internal.h). */
#include <ctype.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "record/attach_internal.h"

bool lib_name_matches(const char *base, const char *lib)
{
	size_t n = strlen(lib);
	const char *so = strstr(lib, ".so.");
	const char *v;

	if (strcmp(base, lib) == 0 ||
	    (strncmp(base, lib, n) == 0 && (base[n] == '.' || base[n] == '-')))
		return true;
	/* glibc before 2.34: libc.so.6 is a link to libc-2.31.so, the file mapped */
	if (!so || strncmp(base, lib, so - lib) || base[so - lib] != '-')
		return false;
	v = base + (so - lib) + 1;
	if (!isdigit((unsigned char)*v))
		return false;
	while (isdigit((unsigned char)*v) || *v == '.')
		v++;
	return strcmp(v - 1, ".so") == 0;
}

bool attach_find_in_maps(uint32_t pid, const char *lib, char *out, size_t outlen)
{
	return attach_find_in_maps_as(pid, lib, out, outlen, NULL, 0);
}

bool attach_find_in_maps_as(uint32_t pid, const char *lib, char *out, size_t outlen,
			    char *seen, size_t seenlen)
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
		if (!lib_name_matches(base, lib))
			continue;
		found = true;
		if (seen)
			snprintf(seen, seenlen, "%s", path);
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

